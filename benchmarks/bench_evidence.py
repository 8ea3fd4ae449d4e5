"""Read fewer evidence tokens (issue 72, "read no more than the answer needs"): what is lost?

    .venv/bin/python benchmarks/bench_evidence.py --set news --set wiki --set papers --home H [--news-home H2] [--out DIR]

No model answers here: the layer under the answers. For every open question of the three dev
collections (yes/no, null and multiple-choice questions left out; papers asked within their
evidence documents, as ``--scope evidence``), the default method's passages are ranked as it
ranks them (``Retriever.evidence_search``, top_k) and cut to evidence by each selection below;
a question counts when the evidence holds every content word of its gold answer
(eval.metrics.gold_token_recall = 1): the most the reader could answer right from it. Tokens are
the reader model's.

Selections: ``select.select_evidence`` (the question's terms by inverse document frequency: the
reader's) at 1,000 tokens (as shipped), 600 and 400, and at 400 from the first 5 passages; the
same frame with each sentence scored by its meaning instead (MiniLM: the cosine of the
question's and the sentence's embeddings, ``meaning``) or by both (``both``: the terms' share of
the question's weight plus the cosine), at 600 and 400; and the shipped one with a floor (after
each passage's best sentence, none scoring under 0.3 or 0.5 of the best sentence's score). Per set: questions whose gold is in the
evidence, and the median tokens; per question in DIR/rows.jsonl. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine, shared_llm  # noqa: E402
from k2desk.eval import datasets, metrics  # noqa: E402
from k2desk.methods import select  # noqa: E402
from k2desk.methods.forms import ask_form  # noqa: E402
from k2desk.methods.retrieval import Hit  # noqa: E402
from k2desk.runtime.summarizer import STOPWORDS  # noqa: E402
from k2desk.store.sparse import SparseIndex  # noqa: E402

BENCH = ROOT.parent / "shared" / "bench"
SETS = {"news": ("multihop-rag-dev", "queries_sample.jsonl"), "wiki": ("wiki-qa-dev", None),
        "papers": ("papers-qa-dev", None)}


def rescored(question: str, hits: Sequence[Hit], sparse: SparseIndex, embed: Callable[[list[str]], Any],
             count: Callable[[str], int], budget: int, w_terms: float, w_meaning: float, floor: float = 0.0) -> list[str]:
    """select_evidence with each sentence scored ``w_terms`` × its terms' score as a share of the
    question's whole term weight + ``w_meaning`` × the cosine of its embedding with the
    question's; ``floor``: after each passage's best sentence, none scoring under this share of
    the best sentence's score."""
    per_hit = select.scored(question, hits, sparse)
    flat = [x for s in per_hit for x in s]
    if not flat:
        return []
    terms = set(sparse.terms_of(question)) - set(sparse.terms_of(" ".join(STOPWORDS)))
    whole = sum(sparse.idf(terms).values()) if terms else 0.0
    cosines: Any = [0.0] * len(flat)
    if w_meaning:
        vectors = embed([question, *(x.text for x in flat)])
        cosines = vectors[1:] @ vectors[0]
    for x, cosine in zip(flat, cosines):
        x.score = w_terms * x.score / (whole or 1.0) + w_meaning * float(cosine)
    order = select.ranked(per_hit)
    firsts = sum(1 for s in per_hit if s)
    best = max(x.score for x in flat)
    order = order[:firsts] + [x for x in order[firsts:] if x.score >= floor * best]
    return select.within(hits, order, count, budget)


def selections(embed: Callable[[list[str]], Any], count: Callable[[str], int]) -> dict[str, Callable[..., list[str]]]:
    terms = lambda budget, k=None: lambda q, h, sp: select.select_evidence(q, h[:k], sp, count, budget)  # noqa: E731
    mixed = lambda budget, wt, wm, floor=0.0: lambda q, h, sp: rescored(q, h, sp, embed, count, budget, wt, wm, floor)  # noqa: E731
    return {"terms 1000 (shipped)": terms(1000), "terms 600": terms(600), "terms 400": terms(400),
            "terms 400, 5 passages": terms(400, 5), "meaning 600": mixed(600, 0, 1), "meaning 400": mixed(400, 0, 1),
            "both 600": mixed(600, 1, 1), "both 400": mixed(400, 1, 1),
            "terms 1000, the rest from 0.3 of the best": mixed(1000, 1, 0, 0.3),
            "terms 1000, the rest from 0.5 of the best": mixed(1000, 1, 0, 0.5)}


def run(name: str, home: Path, out: Optional[Path]) -> dict[str, list[tuple[str, bool, int]]]:
    folder, queries = SETS[name]
    bench, chosen = datasets.prepare(BENCH / folder, None, queries=queries)
    engine = Engine(Settings.load(home=home), datasets.collection_name(bench.corpus))
    count = shared_llm(engine.settings, "reader").count_tokens
    ways = selections(lambda texts: engine.embedder.embed(texts), count)
    by_url = {d.key.split("#", 1)[-1]: d.key for d in engine.documents()} if name == "papers" else {}
    results: dict[str, list[tuple[str, bool, int]]] = {k: [] for k in ways}
    for q in chosen:
        if q.options or metrics.question_kind(q.answer) in ("yes_no", "null") or metrics.is_null_gold(q.answer):
            continue
        form = ask_form(q.prompt)
        if form.kind in ("yes_no", "summary", "multi"):
            continue
        scope = None
        if by_url:
            keys = [by_url[e["url"]] for e in q.evidence_list if isinstance(e, dict) and e.get("url") in by_url]
            scope = frozenset(engine.scope(keys)) if keys else None
        retriever = engine.method("k2rag", scope=scope).ctx.retriever("text")
        hits = retriever.evidence_search(form.text, k=engine.settings.top_k)
        if not hits:
            continue
        for way, pick in ways.items():
            context = "\n\n".join(pick(form.text, hits, retriever.sparse))
            found = metrics.gold_token_recall(context, q.answer) >= 1.0
            results[way].append((q.id, found, count(context)))
            if out is not None:
                with (out / "rows.jsonl").open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"set": name, "id": q.id, "selection": way, "gold_in": found,
                                         "tokens": count(context)}) + "\n")
    return results


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", choices=list(SETS), required=True)
    ap.add_argument("--home", type=Path, required=True, help="the home where `k2desk eval` indexed the dev collections")
    ap.add_argument("--news-home", type=Path, help="the news sample's home, when it is another")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "rows.jsonl").write_text("", encoding="utf-8")
    tables = {name: run(name, (args.news_home or args.home) if name == "news" else args.home, args.out) for name in args.set}
    ways = list(next(iter(tables.values())))
    print("| selection | " + " | ".join(f"{n}: gold in the evidence | {n}: tokens (median)" for n in tables) + " |")
    print("|---|" + "---:|---:|" * len(tables))
    for way in ways:
        cells = []
        for rows in tables.values():
            found = sum(r[1] for r in rows[way])
            cells += [f"{found} of {len(rows[way])}", f"{statistics.median(r[2] for r in rows[way]):.0f}" if rows[way] else "-"]
        print(f"| {way} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
