"""Bridge questions measured (issue 55): answered hop by hop against the method reading them once.

The bridge set (benchmarks/bridges.jsonl, by id) holds two- and three-hop questions over the
README's sample, the test fixtures, the two person-like folders and the three dev collections;
each carries its final gold and every hop's question and gold (the middle entities). The set is
split 50/50 by a seeded shuffle of the ids (``split``); tune on one half, report the held one.

    .venv/bin/python benchmarks/bench_hops.py scan
    .venv/bin/python benchmarks/bench_hops.py ask --half held --condition once --out docs/eval/hops/ask-once-held
    .venv/bin/python benchmarks/bench_hops.py ask --half held --reuse docs/eval/hops/ask-once-held --out docs/eval/hops/ask-held
    .venv/bin/python benchmarks/bench_hops.py report docs/eval/hops/ask-once-held docs/eval/hops/ask-held
    .venv/bin/python benchmarks/bench_hops.py own --out docs/eval/hops/own

``scan`` reads questions with the grammar alone (no model, no index): how many of the set's
questions show a bridge, and how many of the dev collections' and person-like folders' own
questions would take the hop path (those are the only ones whose answers can change).

``own`` asks the dev collections' and person-like folders' own questions (those of the runs kept
in docs/eval/) whose grammar shows a bridge both ways, once and with the default settings: the
only ones whose answers can change.

``ask`` answers with the default method and models in one of three conditions: ``second`` (the
default settings: the question read once, and hop by hop where its answer does not fit it), ``hops``
(``settings.hops_first``: hop by hop first wherever the grammar shows a bridge, session 51's order)
and ``once`` (settings.hops off: k2desk before this issue). ``--reuse ONCE_DIR`` takes from that run
the rows of the questions the condition reads as it did: no bridge (``hops``), or no bridge or a
first reading that fits (``second``); the row is marked ``reused``. A question is right when its
answer holds every content word of its gold (eval.metrics.strict_match); it "answered the middle
entity" when it is wrong and holds the gold of a hop before the last. Rows are kept by id
(``rows.jsonl``), so a run resumes where it stopped.
The collections are the ones bench_dialogue.py indexes (``--work``, shared).

``graph`` asks whether the knowledge graph could name a description's entity before the reader
(issue item 2; no model). ``ask --no-linked`` turns ``settings.linked_support`` off; ``ask
--linked`` records each checked answer's outcome with and without it (a probe).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dialogue import _append, _folder, _pct, _q, _rows  # noqa: E402
from bench_dialogue import chosen as _chosen  # noqa: E402
from bench_dialogue import halves as _halves  # noqa: E402
from bench_dialogue import load as _load  # noqa: E402

from k2desk.eval.metrics import strict_match  # noqa: E402

SET = ROOT / "benchmarks" / "bridges.jsonl"
SEED = 55  # the number: the split is fixed before anything is tuned
BENCH = ROOT.parent / "shared" / "bench"


def load(path: Path = SET) -> list[dict[str, Any]]:
    return _load(path)


def halves(items: list[dict[str, Any]]) -> dict[str, str]:
    return _halves(items, SEED)


def chosen(half: str, limit: Optional[int] = None, collections: Optional[list[str]] = None) -> list[dict[str, Any]]:
    return _chosen(half, limit, collections, SET, SEED)


# -- scan ---------------------------------------------------------------------------------------
def _own_questions() -> dict[str, list[str]]:
    """The dev collections' and person-like folders' own questions (read, never copied)."""
    out: dict[str, list[str]] = {}
    for name in ("multihop-rag-dev", "wiki-qa-dev", "papers-qa-dev"):
        path = BENCH / name / "queries.jsonl"
        if path.is_file():
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            out[name] = [r.get("query") or r.get("question") or "" for r in rows]
    for name in ("person1", "person2"):
        out[name] = [q.question for q in _person_set(name)]
    return out


def _person_set(name: str):
    """The questions of a person-like set (person1: k2desk's calibration set; person2: benchmarks/data/person2)."""
    from k2desk.eval.calibrate import SET, load_set

    return load_set(SET if name == "person1" else ROOT / "benchmarks" / "data" / "person2")[1]


def cmd_scan(args: argparse.Namespace) -> None:
    from k2desk.graph.nlp import load_pipeline
    from k2desk.hops.find import find_bridge

    nlp = load_pipeline()
    items = chosen(args.half)
    t0 = time.perf_counter()
    found = [(q, find_bridge(nlp(q["question"]))) for q in items]
    per = (time.perf_counter() - t0) / max(1, len(items))
    loose = [q for q in items if find_bridge(nlp(q["question"]), loose=True) is not None]
    hits = [q for q, b in found if b is not None]
    first = [q for q, b in found if b is not None and b.question.rstrip("?").lower() == q["hops"][0]["question"].rstrip("?").lower()]
    print(f"bridge set ({args.half}): a bridge found in {_pct(len(hits), len(items))}; its first hop word for word the "
          f"set's in {len(first)}; {per * 1000:.1f} ms a question; loose (where a first reading does not fit): "
          f"{_pct(len(loose), len(items))}")
    for kind in sorted({q["kind"] for q in items}):
        n = [q for q in items if q["kind"] == kind]
        print(f"  {kind}: {_pct(sum(1 for q in hits if q['kind'] == kind), len(n))}")
    if args.show:
        for q, b in found:
            print(f"  {'+' if b else '-'} {q['id']}: {q['question']}\n      {b.question if b else ''}")
    for name, questions in _own_questions().items():
        docs = [nlp(q) for q in questions]
        fired = [q for q, d in zip(questions, docs) if find_bridge(d) is not None]
        lax = sum(find_bridge(d, loose=True) is not None for d in docs)
        print(f"{name}: {len(fired)} of {len(questions)} own questions show a bridge; {lax} loose (read hop by hop "
              f"only where a first reading does not fit)")
        for q in fired[:args.show_own]:
            print(f"    {q[:160]}")


# -- ask ----------------------------------------------------------------------------------------
def _middle(answer: str, q: dict[str, Any]) -> bool:
    return any(strict_match(answer, h["gold"]) for h in q["hops"][:-1])


def cmd_ask(args: argparse.Namespace) -> None:
    from k2desk.config import Settings
    from k2desk.engine import Engine

    settings = Settings.load(home=args.work / "home")
    settings.hops = args.condition != "once"
    settings.hops_first = args.condition == "hops"
    settings.linked_support = not args.no_linked
    out = args.out / "rows.jsonl"
    done = _rows(out)
    reuse = _rows(args.reuse / "rows.jsonl") if args.reuse else {}
    nlp = None
    if reuse or args.bridged_only:
        from k2desk.graph.nlp import load_pipeline
        from k2desk.hops.find import find_bridge
        from k2desk.hops.fit import described_only, unfit_text
        from k2desk.store.db import Database
        from k2desk.store.sparse import SparseIndex

        nlp = load_pipeline()
        terms = SparseIndex(Database(":memory:")).terms_of  # the index's tokenizer (FTS5, porter)

    def same_path(q: dict[str, Any]) -> bool:
        """Whether the condition reads ``q`` as the 'once' run reused did: no bridge for the
        hop-first order; for the once-first order, none (loose) or a first reading that fits."""
        doc = nlp(q["question"])
        if args.condition == "hops":
            return find_bridge(doc) is None
        bridge = find_bridge(doc, loose=True)
        row = reuse[q["id"]]
        if bridge is None:
            return True
        if unfit_text(doc, row["outcome"], row["answer"], nlp, bridge.noun) or "missing" not in row:
            return False  # read again, or a row without the support check's terms: asked, the engine decides
        return not (row["missing"] and described_only(row["missing"], bridge.description, bridge.noun, terms))
    asking: dict[str, str] = {}
    if args.linked:  # a probe: each checked answer's support with the windows linked to its own
        import bench_person

        bench_person.record_linked(args.out / "linked.jsonl")
        asking = bench_person._ASKING
    engines: dict[str, Any] = {}
    try:
        for q in chosen(args.half, args.limit, args.collection):
            if q["id"] in done:
                continue
            if args.bridged_only and find_bridge(nlp(q["question"]), loose=args.condition == "second") is None:
                continue
            if q["id"] in reuse and same_path(q):
                # the hop path is not taken: the method reads the question as in the run reused
                _append(out, {**reuse[q["id"]], "reused": str(args.reuse)})
                continue
            name = q["collection"]
            if name not in engines:
                engine = Engine(settings, f"dlg-{name}")
                t0 = time.perf_counter()
                report = engine.index([_folder(name, args.work)])
                print(f"{name}: indexed ({len(report.added)} added) in {time.perf_counter() - t0:.1f} s", flush=True)
                engines[name] = engine
            asking["id"] = q["id"]
            a = engines[name].ask(q["question"])
            right = strict_match(a.answer, q["gold"])
            hops = a.trace.get("hops") or []
            row = {"key": q["id"], "id": q["id"], "collection": name, "kind": q["kind"], "answer": a.answer,
                   "outcome": a.outcome, "right": right, "middle": not right and _middle(a.answer, q),
                   "bridge": bool(hops), "hops": [{"question": h["question"], "name": h.get("name", "")} for h in hops],
                   "first_hop_right": bool(hops) and strict_match(hops[0].get("answer", ""), q["hops"][0]["gold"]),
                   "read_once": a.trace.get("read_once", {}).get("unfit", ""), "hops_tried": len(a.trace.get("hops_tried", [])),
                   "missing": ((a.trace.get("reader") or {}).get("answer_support") or {}).get("missing", []),
                   "seconds": round(a.timings.get("total", 0.0), 3), "llm_calls": a.llm.calls}
            _append(out, row)
            print(f"{q['id']:<18} {q['kind']:<9} {'R' if right else ('M' if row['middle'] else '-')} {row['seconds']:5.1f}s "
                  f"{len(hops)} hops  {a.answer[:80]!r}", flush=True)
    finally:
        for e in engines.values():
            e.close()


# -- graph: can the knowledge graph name a description's entity (no model)? ------------------------
def cmd_graph(args: argparse.Namespace) -> None:
    """For each bridge the grammar finds (loose), the description's named entities looked up in
    the collection's graph (``--source``: "summary", the default build's, or "text", built with
    ``--profile both``), and the entities related to them ranked by the share of the hop
    question's terms in the relation's sentence and keywords: is the first hop's gold first, or
    in the first four? The default profile reads the dialogue indexes (WORK/home); ``both`` builds
    its own in WORK/graph-both."""
    from k2desk.config import Settings
    from k2desk.engine import Engine
    from k2desk.graph.nlp import load_pipeline
    from k2desk.hops.find import find_bridge
    from k2desk.store.graph import GraphStore
    from k2desk.store.sparse import SparseIndex

    settings = Settings.load(home=args.work / ("home" if args.profile == "default" else f"graph-{args.profile}"))
    settings.build_profile = args.profile
    nlp = load_pipeline()
    engines: dict[str, Any] = {}
    counts = {"bridges": 0, "anchored": 0, "first": 0, "four": 0}
    try:
        for q in chosen(args.half):
            bridge = find_bridge(nlp(q["question"]), loose=True)
            if bridge is None:
                continue
            name = q["collection"]
            if name not in engines:
                engines[name] = Engine(settings, f"dlg-{name}")
                engines[name].index([_folder(name, args.work)])
            db = engines[name].db
            graph, sparse = GraphStore(db), SparseIndex(db)
            anchors = {}
            for ent in nlp(bridge.question).ents:
                for e in graph.find(args.source, [ent.text]) or graph.containing(args.source, ent.text, 3):
                    anchors[e.id] = e
            asked = set(sparse.terms_of(bridge.question))
            best: dict[str, float] = {}
            for r in graph.relations_of(anchors):
                other = r.dst_id if r.src_id in anchors else r.src_id
                if other in anchors:
                    continue
                said = set(sparse.terms_of(f"{r.description} {r.keywords}"))
                shown = r.dst if other == r.dst_id else r.src
                best[shown] = max(best.get(shown, 0.0), len(asked & said) / max(1, len(asked)))
            ranked = sorted(best, key=lambda n: -best[n])[:4]
            gold = q["hops"][0]["gold"]
            counts["bridges"] += 1
            counts["anchored"] += bool(anchors)
            counts["first"] += bool(ranked) and strict_match(ranked[0], gold)
            counts["four"] += any(strict_match(n, gold) for n in ranked)
            print(f"{q['id']:<18} {'*' if ranked and strict_match(ranked[0], gold) else ' '} {ranked[:2]}", flush=True)
    finally:
        for e in engines.values():
            e.close()
    print(f"{args.half}, graph of {args.source} ({args.profile}): {counts}")


# -- own: the questions of the dev collections and person-like folders the second reading can change
EVAL = ROOT / "docs" / "eval"
# (their questions, the collection bench_dialogue.py indexes for them, a kept run of today's
# default on them: which of their questions were asked there)
OWN_RUNS = (("wiki-qa-dev", "wiki", EVAL / "wiki68-s49" / "results.jsonl"),
            ("multihop-rag-dev", "multihop", EVAL / "sample60-s49" / "results.jsonl"),
            ("papers-qa-dev", "papers", EVAL / "papers89-s49" / "results.jsonl"),
            ("person1", "person1", EVAL / "person" / "answers-final.jsonl"),
            ("person2", "person2", EVAL / "person" / "second-answers-s48.jsonl"))


def _own_golds(name: str) -> dict[str, tuple[str, str, bool]]:
    """id -> (question, gold, answerable) of a dev collection's or person-like folder's own questions."""
    if name.startswith("person"):
        return {q.id: (q.question, q.gold, q.answerable) for q in _person_set(name)}
    rows = [json.loads(line) for line in (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["id"]: (r.get("query") or r.get("question") or "", str(r.get("answer") or ""), bool(r.get("answer")))
            for r in rows}


def cmd_own(args: argparse.Namespace) -> None:
    """The own questions of the evaluation runs kept in docs/eval/ whose grammar shows a bridge
    (loose), asked once and with the default settings: only these can be read a second time
    (declined, or an answer that does not fit), every other one is read once as before."""
    from k2desk.config import Settings
    from k2desk.engine import Engine
    from k2desk.graph.nlp import load_pipeline
    from k2desk.hops.find import find_bridge

    nlp = load_pipeline()
    out = args.out / "rows.jsonl"
    done = _rows(out)
    settings = Settings.load(home=args.work / "home")
    for name, collection, kept in OWN_RUNS:
        golds = _own_golds(name)
        ids = [json.loads(line)["id"] for line in kept.read_text(encoding="utf-8").splitlines() if line.strip()]
        bridged = [i for i in ids if i in golds and find_bridge(nlp(golds[i][0]), loose=True) is not None]
        print(f"{name}: {len(bridged)} of {len(ids)} questions show a bridge (loose): {bridged}", flush=True)
        engine = None
        for qid in bridged:
            if qid in done:
                continue
            if engine is None:
                engine = Engine(settings, f"dlg-{collection}")
                engine.index([_folder(collection, args.work)])
            question, gold, answerable = golds[qid]
            row: dict[str, Any] = {"key": qid, "id": qid, "collection": name, "answerable": answerable}
            for condition in ("once", "second"):
                settings.hops = condition == "second"
                a = engine.ask(question)
                right = strict_match(a.answer, gold) if answerable else a.outcome == "declined"
                row[condition] = {"answer": a.answer, "outcome": a.outcome, "right": right,
                                  "read_again": a.trace.get("read_once", {}).get("unfit", "") or
                                  ("tried" if a.trace.get("hops_tried") else ""),
                                  "seconds": round(a.timings.get("total", 0.0), 3)}
            settings.hops = True
            _append(out, row)
            print(f"{qid:<24} once {'R' if row['once']['right'] else '-'} second {'R' if row['second']['right'] else '-'} "
                  f"{row['second']['read_again'] or 'as once':<26} {row['second']['answer'][:60]!r}", flush=True)
        if engine is not None:
            engine.close()
    rows = list(_rows(out).values())
    changed = [r for r in rows if r["once"]["right"] != r["second"]["right"]]
    print(f"asked both ways: {len(rows)}; read a second time: {sum(bool(r['second']['read_again']) for r in rows)}; "
          f"right only the second way: {sum(r['second']['right'] for r in changed)}; right only once: "
          f"{sum(r['once']['right'] for r in changed)}")


# -- report -------------------------------------------------------------------------------------
def cmd_report(args: argparse.Namespace) -> None:
    runs = [(folder, _rows(folder / "rows.jsonl")) for folder in args.dirs]
    for folder, rows in runs:
        rs = list(rows.values())
        secs = [r["seconds"] for r in rs]
        print(f"## {folder}")
        print(f"right {_pct(sum(r['right'] for r in rs), len(rs))}; answered the middle entity "
              f"{_pct(sum(r['middle'] for r in rs), len(rs))}; declined {_pct(sum(r['outcome'] == 'declined' for r in rs), len(rs))}; "
              f"read hop by hop {sum(r['bridge'] for r in rs)}; first hop right {sum(r['first_hop_right'] for r in rs)}")
        for kind in sorted({r["kind"] for r in rs}):
            k = [r for r in rs if r["kind"] == kind]
            print(f"  {kind}: right {_pct(sum(r['right'] for r in k), len(k))}, middle {sum(r['middle'] for r in k)}")
        for coll in sorted({r["collection"] for r in rs}):
            k = [r for r in rs if r["collection"] == coll]
            print(f"  {coll}: right {_pct(sum(r['right'] for r in k), len(k))}")
        print(f"seconds a question: median {statistics.median(secs) if secs else 0:.1f}, p95 {_q(secs, 0.95):.1f}")
        print()
    if len(runs) == 2:
        (fa, a), (fb, b) = runs
        both = sorted(set(a) & set(b))
        gained = [i for i in both if b[i]["right"] and not a[i]["right"]]
        lost = [i for i in both if a[i]["right"] and not b[i]["right"]]
        print(f"question for question ({len(both)} in both): {fb.name} right where {fa.name} was not: {len(gained)}; "
              f"the reverse: {len(lost)} {lost}")


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("split", help="print the halves' sizes")
    s = sub.add_parser("scan")
    s.add_argument("--half", choices=("tune", "held", "all"), default="tune")
    s.add_argument("--show", action="store_true", help="every question of the set with the hop found")
    s.add_argument("--show-own", type=int, default=0, help="this many own questions that take the hop path")
    s = sub.add_parser("ask")
    s.add_argument("--half", choices=("tune", "held", "all"), default="tune")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--work", type=Path, default=Path("/tmp/k2desk-dialogue"))
    s.add_argument("--limit", type=int, default=None)
    s.add_argument("--condition", choices=("second", "hops", "once"), default="second",
                   help="second: read once, hop by hop where the answer does not fit (the default settings); "
                        "hops: hop by hop first wherever a bridge is found (session 51's order); once: settings.hops off")
    s.add_argument("--collection", action="append", help="only these collections (repeatable)")
    s.add_argument("--no-linked", action="store_true", help="settings.linked_support off (session 57's reading)")
    s.add_argument("--linked", action="store_true", help="record each checked answer's support with the windows "
                   "linked to its own (OUT/linked.jsonl; a probe, bench_person.record_linked)")
    s.add_argument("--bridged-only", action="store_true",
                   help="only the questions whose grammar shows a bridge (the others answer alike in both conditions)")
    s.add_argument("--reuse", type=Path, default=None,
                   help="a 'once' run whose rows stand for the questions without a bridge (their path is the same)")
    s = sub.add_parser("own", help="the dev collections' and person-like folders' own questions the second reading can change")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--work", type=Path, default=Path("/tmp/k2desk-dialogue"))
    s = sub.add_parser("graph", help="whether the knowledge graph names a bridge's middle entity (no model)")
    s.add_argument("--half", choices=("tune", "held", "all"), default="tune")
    s.add_argument("--source", choices=("summary", "text"), default="summary")
    s.add_argument("--profile", choices=("default", "both"), default="default")
    s.add_argument("--work", type=Path, default=Path("/tmp/k2desk-dialogue"))
    s = sub.add_parser("report")
    s.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "split":
        items = load()
        split = halves(items)
        for half in ("tune", "held"):
            part = [q for q in items if split[q["id"]] == half]
            kinds = {k: sum(1 for q in part if q["kind"] == k) for k in sorted({q["kind"] for q in part})}
            print(f"{half}: {len(part)} questions {kinds}")
        return
    {"scan": cmd_scan, "ask": cmd_ask, "own": cmd_own, "graph": cmd_graph, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
