"""Conversations measured (issue 54): how a follow-up is understood, and answered, against its thread.

The dialogue set (benchmarks/dialogues.jsonl, by id) holds 2- and 3-turn conversations over the
README's sample, the test fixtures, the two person-like folders and the three dev collections;
each later turn carries the standalone question it stands for and that question's gold. The set
is split 50/50 by a seeded shuffle of the conversation ids (``split``); tune on one half, report
the held one.

    .venv/bin/python benchmarks/bench_dialogue.py rewrite --half held --mode llm --out docs/eval/dialogue/rewrite-llm
    .venv/bin/python benchmarks/bench_dialogue.py ask --half held --condition thread --out docs/eval/dialogue/ask-thread
    .venv/bin/python benchmarks/bench_dialogue.py report docs/eval/dialogue/rewrite-llm docs/eval/dialogue/ask-thread ...

``rewrite`` reads each later turn against its earlier turns as the set writes them (the gold
standalone questions and gold answers: an oracle thread) and records the standalone question it
makes (``--mode llm``: rules, then the default reader model where a reference is open; ``rules``:
no model), whether a context-free turn came out unchanged, and whether the rewrite is judged
equivalent to the gold standalone (it holds every proper noun and number of the gold's and at
least 60 % of its other content words: a proxy, the answers are the measure). No index, no
retrieval. ``--read-ahead on`` lets the model read each later turn's rewrite prompt up to the
message first, as it does while a person types (``Engine.read_ahead``; not timed); ``both``
understands each later turn both ways, the order alternating, the model's context emptied before
each as an answer between the turns would leave it (rows ``KEY@ahead``).

``ask`` answers with the default method and models, per conversation, in one of three conditions:
``thread`` (each turn through Engine.converse with the turns the run itself answered before it,
the model having read ahead what it reads while the person types),
``standalone`` (each later turn's gold standalone question asked alone) and ``alone`` (the
message asked as typed, as k2desk did before conversations). A turn is right when the answer holds
every content word of its gold (eval.metrics.strict_match). Rows are kept by id and turn
(``rows.jsonl``), so a run resumes where it stopped; ``--limit`` bounds the conversations.

``context`` measures the layer under the answers without a model: whether each follow-up's gold
is in the evidence the reader would read for the thread's question, the gold standalone one and
the message as typed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from k2desk.conversation import Turn, understand  # noqa: E402
from k2desk.eval.metrics import strict_match  # noqa: E402

SET = ROOT / "benchmarks" / "dialogues.jsonl"
SEED = 54  # the number: the split is fixed before anything is tuned
BENCH = ROOT.parent / "shared" / "bench"
NO_CONTEXT = ("subject_change", "context_free")
EQUIV_SHARE = 0.5


def load(path: Path = SET) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def halves(dialogues: list[dict[str, Any]], seed: int = SEED) -> dict[str, str]:
    """Item id -> "tune" or "held": a seeded shuffle of the sorted ids, cut in two."""
    ids = sorted(d["id"] for d in dialogues)
    random.Random(seed).shuffle(ids)
    cut = len(ids) // 2
    return {i: ("tune" if n < cut else "held") for n, i in enumerate(ids)}


def chosen(half: str, limit: Optional[int] = None, collections: Optional[list[str]] = None,
           path: Path = SET, seed: int = SEED) -> list[dict[str, Any]]:
    """The items of ``half`` ("tune", "held", "all") of the set at ``path`` split by ``seed``."""
    dialogues = load(path)
    split = halves(dialogues, seed)
    out = [d for d in dialogues if half == "all" or split[d["id"]] == half]
    if collections:
        out = [d for d in out if d["collection"] in collections]
    return out[:limit] if limit else out


def equivalent(rewrite: str, gold: str, message: str, nlp) -> bool:
    """A proxy of "the rewrite stands for the gold standalone question": it brings in at least
    half of the proper nouns and numbers that the gold has and the message lacks (what the
    conversation must supply), and keeps the message's own content words. The answers are the
    measure; this one reads the rewrite alone."""
    g, r, m = nlp(gold), nlp(rewrite), nlp(message)
    have = {t.lemma_.lower() for t in r} | {t.lower_ for t in r}
    said = {t.lower_ for t in m} | {t.lemma_.lower() for t in m}
    needed = {t.lower_ for t in g if t.pos_ in ("PROPN", "NUM") and t.lower_ not in said}
    own = {t.lemma_.lower() for t in m if t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM") and not t.is_stop}
    if needed and len(needed & have) < EQUIV_SHARE * len(needed) - 1e-9:
        return False
    return len(own & have) >= EQUIV_SHARE * len(own) - 1e-9


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    return {r["key"]: r for r in (json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip())}


def _append(path: Path, row: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


# -- rewrite ------------------------------------------------------------------------------------
def cmd_rewrite(args: argparse.Namespace) -> None:
    from k2desk.conversation import read_ahead
    from k2desk.graph.nlp import load_pipeline

    nlp = load_pipeline()
    llm = None
    if args.mode == "llm":
        from k2desk.config import Settings
        from k2desk.engine import shared_llm

        settings = Settings.load(home=args.work / "home")
        llm = lambda: shared_llm(settings, "reader")  # noqa: E731
    variants = {"off": [""], "on": ["ahead"], "both": ["", "ahead"]}[args.read_ahead if llm else "off"]
    out = args.out / "rows.jsonl"
    done = _rows(out)
    for d in chosen(args.half, args.limit):
        turns: list[Turn] = []
        for n, t in enumerate(d["turns"]):
            order = variants if n % 2 else variants[::-1]  # the order alternates, so drift falls on both
            for variant in order if n else []:
                key = f"{d['id']}#{n}" + (f"@{variant}" if variant else "")
                if key in done:
                    continue
                if llm is not None and args.read_ahead != "off":
                    llm()._llm.reset()  # noqa: SLF001 - the context holds another prompt, as after an answer
                    if variant == "ahead":  # read while the person types (not timed)
                        read_ahead(turns, llm)
                u = understand(t["message"], turns, llm=llm, nlp=nlp)
                row = {"key": key, "id": d["id"], "turn": n, "collection": d["collection"], "kind": t["kind"],
                       "how": u.how, "standalone": u.standalone, "seconds": round(u.seconds, 3),
                       "unchanged": u.standalone == t["message"], "equivalent": equivalent(u.standalone, t["standalone"], t["message"], nlp),  # noqa: E501
                       "llm_tokens": u.usage.prompt_tokens + u.usage.completion_tokens,
                       "read_tokens": u.usage.prompt_tokens - u.usage.reused_tokens,
                       **({"variant": variant} if variant else {}), **({"rejected": u.rejected} if u.rejected else {})}
                _append(out, row)
                print(f"{key:<28} {t['kind']:<15} {u.how:<9} {u.seconds:5.2f}s {'=' if row['equivalent'] else 'x'} {u.standalone}",
                      flush=True)
            turns.append(Turn(t["message"], t["standalone"], t["gold"], (t.get("doc") or "",)))


# -- ask ----------------------------------------------------------------------------------------
def _folder(name: str, work: Path) -> Path:
    """Where a collection's documents are (the person-like sets' documents where they lie)."""
    if name == "sample":
        return ROOT / "resources" / "sample"
    if name == "mixed":
        return ROOT / "tests" / "fixtures" / "mixed"
    if name in ("person1", "person2"):  # k2desk's calibration set, and the second person-like set
        from k2desk.eval.calibrate import SET

        return (SET if name == "person1" else ROOT / "benchmarks" / "data" / "person2") / "documents"
    return BENCH / {"multihop": "multihop-rag-dev", "wiki": "wiki-qa-dev", "papers": "papers-qa-dev"}[name] / "corpus.jsonl"


def cmd_ask(args: argparse.Namespace) -> None:
    from k2desk.config import Settings
    from k2desk.engine import Engine, shared_llm

    settings = Settings.load(home=args.work / "home")
    out = args.out / "rows.jsonl"
    done = _rows(out)
    reuse = _rows(args.reuse / "rows.jsonl") if args.reuse else {}
    dialogues = chosen(args.half, args.limit, args.collection)
    if args.ids:
        dialogues = [d for d in dialogues if d["id"] in set(args.ids)]
    engines: dict[str, Any] = {}
    try:
        for d in dialogues:
            name = d["collection"]
            if name not in engines:
                engine = Engine(settings, f"dlg-{name}")
                t0 = time.perf_counter()
                report = engine.index([_folder(name, args.work)])
                print(f"{name}: indexed ({len(report.added)} added) in {time.perf_counter() - t0:.1f} s", flush=True)
                engines[name] = engine
            engine = engines[name]
            turns: list[Turn] = []
            for n, t in enumerate(d["turns"]):
                key = f"{d['id']}#{n}"
                if n == 0 and args.condition != "thread":  # a first question is the same in every condition
                    continue
                if key in done:  # resumed: the thread goes on from what this run answered then
                    r = done[key]
                    turns.append(Turn(t["message"], r.get("asked", t["message"]), r["answer"], tuple(r.get("sources", ())),
                                      tuple(r.get("documents", ()))))
                    continue
                if reuse and args.condition == "thread":  # the same question asked of the same documents: its answer
                    u = understand(t["message"], turns, llm=lambda: shared_llm(settings, "reader")) if n else None
                    old = reuse.get(key)
                    # (a question still pointing at "it" is asked of the last answer's documents:
                    # asked again, with the documents the turn before came from)
                    same = old is not None and "sources" in old and (u is None or (u.standalone == old["asked"] and not u.cited
                                                              and not old.get("cited") and not u.unresolved))
                    if same:
                        row = {**old, "reused": True}
                        _append(out, row)
                        print(f"{key:<22} {t['kind']:<15} {'R' if row['right'] else '-'}  reused  {row['asked']!r}", flush=True)
                        turns.append(Turn(t["message"], row["asked"], row["answer"], tuple(row.get("sources", ())),
                                          tuple(row.get("documents", ()))))
                        continue
                if args.condition == "thread":
                    engine.read_ahead(turns=turns)  # as while the person types (not in the answer's seconds)
                    a = engine.converse(t["message"], turns=turns, remember=False)
                    asked = a.question
                elif args.condition == "standalone":
                    asked = t["standalone"]
                    a = engine.ask(asked)
                else:
                    asked = t["message"]
                    a = engine.ask(asked)
                row = {"key": key, "id": d["id"], "turn": n, "collection": name, "kind": t["kind"], "asked": asked,
                       "answer": a.answer, "outcome": a.outcome, "right": strict_match(a.answer, t["gold"]),
                       "seconds": round(a.timings.get("total", 0.0), 3),
                       "understand_seconds": round(a.timings.get("understand", 0.0), 3),
                       "how": a.conversation.get("how", ""), "llm_calls": a.llm.calls,
                       "sources": [s.title or s.document for s in a.sources[:2]],
                       "documents": list(dict.fromkeys(s.document for s in a.sources[:2])),
                       **({"cited": a.conversation["cited"]} if a.conversation.get("cited") else {}),
                       **({"scope": a.conversation["scope"]} if a.conversation.get("scope") else {})}
                _append(out, row)
                print(f"{key:<22} {t['kind']:<15} {'R' if row['right'] else '-'} {row['seconds']:5.1f}s  {asked!r} -> {a.answer!r}",
                      flush=True)
                turns.append(Turn(t["message"], asked, a.answer, tuple(row["sources"]), tuple(row["documents"])))
    finally:
        for e in engines.values():
            e.close()


# -- report -------------------------------------------------------------------------------------
def cmd_context(args: argparse.Namespace) -> None:
    """The layer under the answers (no model): is a follow-up's gold in what the reader would read
    (the question's passages, ``evidence_search``, cut to its best sentences within the reader's
    1,000 tokens)? For each later turn that needs its thread, three questions: the one a kept
    ``ask --condition thread`` run asked (``--thread-rows``), the gold standalone one, and the
    message as typed. Tokens are counted as 1.3 a word (no model loaded)."""
    from k2desk.config import Settings
    from k2desk.engine import Engine
    from k2desk.methods.retrieval import Retriever
    from k2desk.methods.select import select_evidence

    asked = {}
    for folder in args.thread_rows:
        asked.update(_rows(folder / "rows.jsonl"))
    settings = Settings.load(home=args.work / "home")
    engines: dict[str, Any] = {}
    found = {"thread": 0, "standalone": 0, "typed": 0}
    n = 0
    try:
        for d in chosen(args.half):
            for i, t in enumerate(d["turns"]):
                row = asked.get(f"{d['id']}#{i}")
                if i == 0 or t["kind"] in NO_CONTEXT or row is None:
                    continue
                name = d["collection"]
                if name not in engines:
                    engines[name] = Engine(settings, f"dlg-{name}")
                    engines[name].index([_folder(name, args.work)])
                e = engines[name]
                retriever = Retriever(e.db, e.embedder, "text")
                n += 1
                for label, q in (("thread", row["asked"]), ("standalone", t["standalone"]), ("typed", t["message"])):
                    hits = retriever.evidence_search(q, k=settings.top_k)
                    context = "\n".join(select_evidence(q, hits, retriever.sparse, lambda x: int(len(x.split()) * 1.3), 1000))
                    found[label] += strict_match(context, t["gold"])
    finally:
        for e in engines.values():
            e.close()
    print(f"{args.half}: the gold in the reader's evidence, of {n} follow-ups: " +
          ", ".join(f"{k} {v}" for k, v in found.items()))


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f} %)" if b else "–"


def _q(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def cmd_report(args: argparse.Namespace) -> None:
    for folder in args.dirs:
        rows = list(_rows(folder / "rows.jsonl").values())
        later = [r for r in rows if r["turn"] > 0]
        free = [r for r in later if r["kind"] in NO_CONTEXT]
        ref = [r for r in later if r["kind"] not in NO_CONTEXT]
        print(f"## {folder}")
        if "equivalent" in (rows[0] if rows else {}):
            secs = [r["seconds"] for r in later]
            print(f"later turns {len(later)}; context-free left unchanged {_pct(sum(r['unchanged'] for r in free), len(free))}; "
                  f"follow-ups judged equivalent {_pct(sum(r['equivalent'] for r in ref), len(ref))}; "
                  f"all judged equivalent {_pct(sum(r['equivalent'] for r in later), len(later))}")
            print(f"added seconds: median {statistics.median(secs) if secs else 0:.2f}, p95 {_q(secs, 0.95):.2f}; "
                  f"context-free median {statistics.median([r['seconds'] for r in free]) if free else 0:.3f}; "
                  f"model asked on {sum(r['how'] not in ('unchanged', 'first') for r in later)} of {len(later)}")
            kinds = sorted({r["kind"] for r in later})
            print("by kind: " + "; ".join(f"{k} {sum(r['equivalent'] for r in later if r['kind'] == k)}/"
                                          f"{sum(1 for r in later if r['kind'] == k)}" for k in kinds))
        else:
            firsts = [r for r in rows if r["turn"] == 0]
            print(f"first turns right {_pct(sum(r['right'] for r in firsts), len(firsts))}; "
                  f"follow-ups (need context) right {_pct(sum(r['right'] for r in ref), len(ref))}; "
                  f"context-free later turns right {_pct(sum(r['right'] for r in free), len(free))}")
            us = [r["understand_seconds"] for r in later]
            print(f"answer seconds median {statistics.median([r['seconds'] for r in rows]) if rows else 0:.1f}; "
                  f"understanding adds median {statistics.median(us) if us else 0:.2f} s, p95 {_q(us, 0.95):.2f} s")
        print()


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split", help="print the halves' sizes")
    for name in ("rewrite", "ask"):
        s = sub.add_parser(name)
        s.add_argument("--half", choices=("tune", "held", "all"), default="tune")
        s.add_argument("--out", type=Path, required=True)
        s.add_argument("--work", type=Path, default=Path("/tmp/k2desk-dialogue"))
        s.add_argument("--limit", type=int, default=None, help="conversations")
        if name == "rewrite":
            s.add_argument("--mode", choices=("llm", "rules"), default="llm")
            s.add_argument("--read-ahead", choices=("off", "on", "both"), default="off",
                           help="the model reads the rewrite's prompt up to the message before each later turn "
                                "(both: each turn understood both ways, alternating; the context emptied before each)")
        else:
            s.add_argument("--condition", choices=("thread", "standalone", "alone"), default="thread")
            s.add_argument("--collection", action="append", help="only these collections (repeatable)")
            s.add_argument("--ids", nargs="+", default=None, help="only these conversations (by id)")
            s.add_argument("--reuse", type=Path, default=None,
                           help="an earlier run's folder: a turn understood as the same question keeps its answer")
    s = sub.add_parser("context", help="whether a follow-up's gold is in the reader's evidence (no model)")
    s.add_argument("--half", choices=("tune", "held", "all"), default="tune")
    s.add_argument("--thread-rows", type=Path, nargs="+", required=True, help="kept thread runs (later ones win)")
    s.add_argument("--work", type=Path, default=Path("/tmp/k2desk-dialogue"))
    s = sub.add_parser("report")
    s.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "split":
        d = load()
        split = halves(d)
        for half in ("tune", "held"):
            ds = [x for x in d if split[x["id"]] == half]
            later = [t for x in ds for t in x["turns"][1:]]
            print(f"{half}: {len(ds)} conversations, {len(later)} later turns, "
                  f"{sum(t['kind'] in NO_CONTEXT for t in later)} need no context")
        return
    {"rewrite": cmd_rewrite, "ask": cmd_ask, "context": cmd_context, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
