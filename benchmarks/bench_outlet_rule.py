"""Which questions the outlet rule declines before the reader runs ("No document in this collection
is from X"), before and after a name that a document's title holds stopped counting as a publisher
(session 54). No model: the rule is decided from the question, the collection's publishers
(``meta.source``) and its titles, before any retrieval, so a question whose decision is unchanged
is answered exactly as before.

    .venv/bin/python benchmarks/bench_outlet_rule.py --home /tmp/k2desk-dialogue/home \
        [--asked docs/eval/dialogue/s54-ask-thread-held/rows.jsonl]…

Reads the three dev collections' questions (../shared/bench) and the dialogue set's messages and
standalone questions (benchmarks/dialogues.jsonl) and the questions a dialogue run asked (``--asked``:
its rows, the model's rewrites among them), each against its collection indexed in
``--home`` (bench_dialogue.py's collections: dlg-multihop, dlg-wiki, dlg-papers, …). Prints a
Markdown table and the questions whose decision changed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.question import unknown_outlets

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"
DEV = {"multihop-rag-dev": "dlg-multihop", "wiki-qa-dev": "dlg-wiki", "papers-qa-dev": "dlg-papers"}


def decisions(engine: Engine, questions: list[tuple[str, str]]) -> dict[str, int | list]:
    outlets = engine.docs.outlets()
    before = after = 0
    changed = []
    for key, text in questions:
        b = bool(unknown_outlets(text, outlets))
        a = bool(unknown_outlets(text, outlets, engine.docs.title_holds))
        before, after = before + b, after + a
        if a != b:
            changed.append(f"{key}: {text}")
    return {"questions": len(questions), "outlets": len(outlets), "before": before, "after": after, "changed": changed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--asked", type=Path, action="append", default=[], help="a bench_dialogue.py run's rows.jsonl")
    args = ap.parse_args()
    settings = Settings.load(home=args.home)
    rows = []
    for bench, collection in DEV.items():
        qs = [json.loads(line) for line in (BENCH / bench / "queries.jsonl").open(encoding="utf-8")]
        with Engine(settings, collection) as engine:
            rows.append((bench, decisions(engine, [(q["id"], q["query"]) for q in qs])))
    by_collection: dict[str, list[tuple[str, str]]] = {}
    for line in (ROOT / "benchmarks" / "dialogues.jsonl").open(encoding="utf-8"):
        d = json.loads(line)
        for n, t in enumerate(d["turns"]):
            for form in ("message", "standalone"):
                if t.get(form):
                    by_collection.setdefault(d["collection"], []).append((f"{d['id']}#{n} {form}", t[form]))
    for path in args.asked:
        for line in path.open(encoding="utf-8"):
            r = json.loads(line)
            by_collection.setdefault(r["collection"], []).append((f"{r['key']} asked", r["asked"]))
    for collection, qs in sorted(by_collection.items()):
        with Engine(settings, f"dlg-{collection}") as engine:
            rows.append((f"dialogues: {collection}", decisions(engine, qs)))
    print("| questions of | n | the collection's publishers | declined by the rule before | after | changed |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r['questions']} | {r['outlets']} | {r['before']} | {r['after']} | {len(r['changed'])} |")
    for name, r in rows:
        for line in r["changed"]:
            print(f"{name}: {line}")


if __name__ == "__main__":
    main()
