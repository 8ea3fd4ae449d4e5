"""Knowledge-graph extraction cost on raw text versus summaries (the paper's Table 1, graph rows).

    .venv/bin/python benchmarks/bench_graph_extraction.py --home DIR --collection NAME [--sample 8]
        [--llm qwen2.5-coder-0.5b] [--seed 0]

Takes an indexed collection whose documents have summaries (build profile "default"), cuts every
document's raw text and its summary into the graph profile's 300/100 chunks, and runs the graph
extraction (one LLM call per chunk, as GraphStage does, header line included) on a seeded random
sample of each, alternating raw and summary chunks so that both see the same machine load. Prints
seconds per chunk and the whole-corpus estimate (mean seconds per chunk x number of chunks) for
each source, and their ratio. Writes nothing to the collection.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.graph.extract import extract
from k2desk.methods.retrieval import chunk_header
from k2desk.text.chunking import chunk_text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--collection", required=True)
    ap.add_argument("--sample", type=int, default=8, help="chunks per source")
    ap.add_argument("--llm", default="qwen2.5-coder-0.5b")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    settings = Settings(home=args.home, llm=args.llm, threads=args.threads)
    with Engine(settings, args.collection) as engine:
        embedder, llm = engine.embedder, engine.llm
        chunks: dict[str, list[str]] = {"text": [], "summary": []}
        for doc in engine.documents():
            text, summary = engine.db.one("SELECT text, summary FROM documents WHERE id = ?", (doc.id,))
            header = chunk_header(doc.title, doc.meta)
            for source, body in (("text", text), ("summary", summary)):
                for c in chunk_text(body or "", embedder, "graph"):
                    chunks[source].append(f"{header}\n{c.text}" if header else c.text)
        if not chunks["summary"]:
            raise SystemExit(f"collection {args.collection!r} has no summaries: index it with the default build profile")
        rng = random.Random(args.seed)
        sample = {s: rng.sample(cs, min(args.sample, len(cs))) for s, cs in chunks.items()}
        seconds: dict[str, list[float]] = {"text": [], "summary": []}
        found: dict[str, list[tuple[int, int, int]]] = {"text": [], "summary": []}
        for i in range(max(len(v) for v in sample.values())):
            for source in ("text", "summary"):
                if i < len(sample[source]):
                    t0 = time.perf_counter()
                    ex = extract(llm, sample[source][i])
                    seconds[source].append(time.perf_counter() - t0)
                    found[source].append((len(ex.entities), len(ex.relations), ex.completion_tokens))
                    print(f"  {source:>7} chunk {i + 1}: {seconds[source][-1]:.1f} s, {len(ex.entities)} entities, "
                          f"{len(ex.relations)} relations, {ex.completion_tokens} tokens out", flush=True)
        estimate = {}
        for source in ("text", "summary"):
            s, n = seconds[source], len(chunks[source])
            estimate[source] = statistics.mean(s) * n
            ents = statistics.mean(f[0] for f in found[source])
            rels = statistics.mean(f[1] for f in found[source])
            print(f"{source:>7}: {n} chunks; sample of {len(s)}: mean {statistics.mean(s):.1f} s/chunk "
                  f"(median {statistics.median(s):.1f}, min {min(s):.1f}, max {max(s):.1f}); "
                  f"{ents:.1f} entities, {rels:.1f} relations per chunk; whole corpus ~ {estimate[source]:.0f} s")
        print(f"raw text / summaries: {estimate['text'] / estimate['summary']:.1f}x the graph build time (llm {args.llm})")


if __name__ == "__main__":
    main()
