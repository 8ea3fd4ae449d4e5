"""One variant's answers for benchmarks/bench_speed.py: a process that reads one job per line on
stdin (JSON) and writes one row per line on stdout, run with its variant's source tree first on
``PYTHONPATH`` (the code as it is, or a git worktree of an earlier commit). It uses only what
every commit since conversations has: ``Engine.ask`` / ``Engine.converse`` with ``on_token``, the
answer's ``llm`` usage and ``timings``.

A job: {"id", "home", "collection", "question"} and, optionally, "urls" (ask within the documents
of these urls: papers' --scope evidence) or "turns" (earlier turns [{message, standalone, answer,
doc}]: the question is a follow-up, answered with ``converse``; where the variant has
``Engine.read_ahead``, the model first reads what it would read while the person types, not timed).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


def first_token(first: list[float], t0: float):
    """An ``on_token`` that notes the seconds from ``t0`` to the first token in ``first``."""
    def on_token(piece: str) -> None:
        if not first:
            first.append(time.perf_counter() - t0)
    return on_token


def main() -> None:
    from k2desk.config import Settings
    from k2desk.conversation import Turn
    from k2desk.engine import Engine

    engines: dict[tuple[str, str], Any] = {}
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever the code prints goes to stderr: stdout carries rows only
    for line in sys.stdin:
        job = json.loads(line)
        key = (job["home"], job["collection"])
        if key not in engines:
            engines[key] = Engine(Settings.load(home=job["home"]), job["collection"])
        engine = engines[key]
        first: list[float] = []
        t0 = time.perf_counter()
        on_token = first_token(first, t0)
        row: dict[str, Any] = {"id": job["id"]}
        try:
            if job.get("turns") is not None:
                turns = [Turn(t["message"], t["standalone"], t["answer"], (t.get("doc") or "",)) for t in job["turns"]]
                if hasattr(engine, "read_ahead"):  # what the model reads while the person types (not timed)
                    engine.read_ahead(turns=turns)
                    first.clear()
                    t0 = time.perf_counter()
                    on_token = first_token(first, t0)
                answer = engine.converse(job["question"], turns=turns, on_token=on_token, remember=False)
            else:
                documents = None
                if job.get("urls"):
                    by_url = {d.key.split("#", 1)[-1]: d.key for d in engine.documents()}
                    documents = [by_url[u] for u in job["urls"] if u in by_url] or None
                answer = engine.ask(job["question"], on_token=on_token, documents=documents)
        except Exception as exc:  # noqa: BLE001 - a failed question is a row
            row.update(error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - t0)
        else:
            usage = answer.llm
            row.update(seconds=time.perf_counter() - t0, first_token=first[0] if first else None,
                       answer=answer.answer, outcome=getattr(answer, "outcome", ""), calls=usage.calls,
                       prompt_tokens=usage.prompt_tokens, reused_tokens=getattr(usage, "reused_tokens", 0),
                       completion_tokens=usage.completion_tokens,
                       timings={k: round(float(v), 4) for k, v in (answer.timings or {}).items()})
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
