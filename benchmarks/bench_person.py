"""The person-like collection (benchmarks/person_folder.py), asked end to end: a folder as a person
keeps one (web pages with their menus and footers, a PDF report with tables, wiki pages, blog
posts, letters, notes, a CSV, an e-mail), every fact invented, and its questions as people ask
them, a third of them near misses the documents do not answer.

The questions are split 50/50 by a seeded shuffle of their ids (``halves``) before anyone reads
them: decisions are tuned on the "tune" half only, and both halves are reported.

    python benchmarks/bench_person.py ask --work /tmp/person [--half tune|held|all] [--limit N]
    python benchmarks/bench_person.py report --work /tmp/person

``ask`` writes the folder, indexes it with the default settings and models (once), and asks each
question with the default method; each row is kept by question id in WORK/answers.jsonl (the
outcome, the model's candidate answer before any decline, the signals the reader recorded), so a
run resumes where it stopped. ``report`` judges each row (strict rule) and prints, per half and
per question kind: right answers by outcome (answered / cautioned / declined), answerable
questions declined, unanswerable questions declined; and the same re-decided from the recorded
signals by this code's rule (``reader.decide``), so a new rule needs no new model run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import k2desk  # noqa: E402,F401  (the privacy switches first)
from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.eval.metrics import strict_match  # noqa: E402

SEED = 44
COLLECTION = "person"


def halves(ids: list[str], seed: int = SEED) -> dict[str, str]:
    """Each id's half, "tune" or "held", by a seeded shuffle (the first half is "tune")."""
    ordered = sorted(ids)
    random.Random(seed).shuffle(ordered)
    return {qid: ("tune" if i < len(ordered) // 2 else "held") for i, qid in enumerate(ordered)}


def load_questions(work: Path):
    from person_folder import make_person_folder

    folder = work / "folder"
    questions = make_person_folder(folder)
    return folder, questions


def settings(work: Path) -> Settings:
    return Settings(home=work / "home", models_dir=ROOT / "models", threads=2)


def cmd_ask(args: argparse.Namespace) -> None:
    work = Path(args.work)
    folder, questions = load_questions(work)
    half = halves([q.id for q in questions])
    out = work / "answers.jsonl"
    done = {r["id"] for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    chosen = [q for q in questions if args.half == "all" or half[q.id] == args.half][: args.limit or None]
    with Engine(settings(work), COLLECTION) as engine:
        t0 = time.perf_counter()
        report = engine.index([str(folder)])
        print(f"index: {len(report.added)} added, {len(report.skipped)} unchanged, {len(report.failed)} failed "
              f"in {time.perf_counter() - t0:.1f} s", flush=True)
        with out.open("a") as fh:
            for q in chosen:
                if q.id in done:
                    continue
                t0 = time.perf_counter()
                a = engine.ask(q.question)
                reader = a.trace.get("reader") if isinstance(a.trace.get("reader"), dict) else {}
                row = {"id": q.id, "half": half[q.id], "outcome": a.outcome, "answer": a.answer[:300],
                       "candidate": str(reader.get("candidate") or a.answer)[:300],
                       "form": reader.get("form"), "reader_kind": reader.get("kind"),
                       "coverage": (reader.get("coverage") or {}).get("score"),
                       "support": (reader.get("answer_support") or {}).get("score"),
                       "restates": (reader.get("answer_support") or {}).get("restates"),
                       "found": (reader.get("answer_support") or {}).get("found_answer"),
                       "meaning": reader.get("meaning"), "verify": reader.get("verify"),
                       "first_source": a.sources[0].document if a.sources else None,
                       "second": reader.get("second"), "first": reader.get("first"), "read": reader.get("read", "first"),
                       "together": reader.get("together"),
                       "seconds": round(time.perf_counter() - t0, 2)}
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(f"{q.id} {half[q.id]} {row['outcome']} {row['seconds']} s", flush=True)


def judge(row: dict, q) -> str:
    """"right", "wrong", "declined" (an answerable question) or "abstained" / "invented" (not)."""
    if not q.answerable:
        return "abstained" if row["outcome"] == "declined" else "invented"
    if row["outcome"] == "declined":
        return "declined"
    return "right" if strict_match(row["answer"], q.gold) else "wrong"


def table(rows: list[dict], qs: dict) -> list[str]:
    lines = ["| half | kind | n | answered right / n | cautioned right / n | declined | unanswerable declined |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for half in ("tune", "held"):
        sel = [r for r in rows if r["half"] == half]
        kinds = sorted({qs[r["id"]].kind for r in sel}) + ["all"]
        for kind in kinds:
            ks = [r for r in sel if kind == "all" or qs[r["id"]].kind == kind]
            ans = [r for r in ks if qs[r["id"]].answerable]
            un = [r for r in ks if not qs[r["id"]].answerable]
            by = {o: [r for r in ans if r["outcome"] == o] for o in ("answered", "cautioned", "declined")}
            right = {o: sum(judge(r, qs[r["id"]]) == "right" for r in by[o]) for o in ("answered", "cautioned")}
            lines.append(f"| {half} | {kind} | {len(ks)} | {right['answered']} / {len(by['answered'])} | "
                         f"{right['cautioned']} / {len(by['cautioned'])} | "
                         f"{len(by['declined'])} / {len(ans)} ({len(by['declined']) / len(ans) if ans else 0:.0%}) | "
                         + (f"{sum(r['outcome'] == 'declined' for r in un)} / {len(un)}" if un else "–") + " |")
    return lines


def cmd_report(args: argparse.Namespace) -> None:
    work = Path(args.work)
    _, questions = load_questions(work)
    qs = {q.id: q for q in questions}
    rows = [json.loads(line) for line in (work / "answers.jsonl").read_text().splitlines() if line.strip()]
    print(f"{len(rows)} of {len(questions)} questions answered; outcomes {dict(Counter(r['outcome'] for r in rows))}")
    print("\n".join(table(rows, qs)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ask = sub.add_parser("ask")
    ask.add_argument("--work", required=True)
    ask.add_argument("--half", choices=("tune", "held", "all"), default="all")
    ask.add_argument("--limit", type=int, default=0)
    rep = sub.add_parser("report")
    rep.add_argument("--work", required=True)
    args = ap.parse_args()
    {"ask": cmd_ask, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
