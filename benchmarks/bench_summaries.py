"""How much of a collection K²RAG's summaries and the graph built from them see: summary tokens
and graph entities / relations per 10,000 characters of text (docs/eval/summaries/).

Indexes a corpus .jsonl with the default build profile (extractive summaries, the fast graph)
into WORK, then prints one JSON line of figures. Run it from the tree to be measured (an
earlier commit's tree measures "before"):

    python benchmarks/bench_summaries.py ../shared/bench/wiki-qa-dev/corpus.jsonl --work /tmp/sum-wiki
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import k2desk  # noqa: E402,F401  (the privacy switches first)
from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.store.graph import GraphStore  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=ROOT / "models")
    args = ap.parse_args()
    settings = Settings(home=args.work / "home", models_dir=args.models, threads=2, build_profile="default",
                        summarizer="extractive", graph_extractor="fast")
    t0 = time.perf_counter()
    with Engine(settings, "c") as engine:
        engine.index([args.corpus])
        seconds = time.perf_counter() - t0
        docs = engine.documents()
        chars = sum(len(engine.docs.text(d.id)) for d in docs)
        summaries = [engine.docs.source_text(d.id, "summary") for d in docs]
        tokens = sum(engine.embedder.count_tokens(s) for s in summaries)
        text_tokens = sum(engine.embedder.count_tokens(engine.docs.text(d.id)) for d in docs)
        counts = GraphStore(engine.db).counts("summary")
    per = 10_000 / chars
    print(json.dumps({"corpus": str(args.corpus), "code": str(ROOT), "documents": len(docs), "chars": chars,
                      "text_tokens": text_tokens, "summary_tokens": tokens, "summary_share": round(tokens / text_tokens, 4),
                      "summary_tokens_per_10k_chars": round(tokens * per, 1), "entities": counts.get("entities"),
                      "relations": counts.get("relations"), "entities_per_10k_chars": round(counts.get("entities", 0) * per, 2),
                      "relations_per_10k_chars": round(counts.get("relations", 0) * per, 2), "index_seconds": round(seconds, 1)}))


if __name__ == "__main__":
    main()
