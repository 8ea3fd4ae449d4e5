"""Indexing throughput and per-method latency on a corpus (default: the shared MultiHop-RAG slice).

    .venv/bin/python benchmarks/bench_index_query.py [--corpus PATH] [--queries PATH] [--questions 5]
        [--methods semantic,keyword,hybrid] [--llm smollm2-135m]

Prints documents/s and chunks/s for indexing into a fresh collection, then the median (and min,
max) latency of retrieval alone and of a full answer for each method. Figures from one run on a
shared machine: compare ratios within a run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.naive import LAMBDAS

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=BENCH / "corpus.jsonl")
    ap.add_argument("--queries", type=Path, default=BENCH / "queries_sample.jsonl")
    ap.add_argument("--questions", type=int, default=5)
    ap.add_argument("--methods", default="semantic,keyword,hybrid")
    ap.add_argument("--llm", default="smollm2-135m")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()

    questions = [json.loads(line)["query"] for line in args.queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = questions[: args.questions]
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), llm=args.llm, threads=args.threads, build_profile="naive")
        with Engine(settings, "bench") as engine:
            engine.embedder  # load outside the timed region
            t0 = time.perf_counter()
            report = engine.index([args.corpus])
            seconds = time.perf_counter() - t0
            n_docs = len(report.added)
            print(f"index  {args.corpus.name}: {n_docs} documents, {report.chunks} chunks in {seconds:.2f} s "
                  f"-> {n_docs / seconds:.1f} documents/s, {report.chunks / seconds:.1f} chunks/s")
            for stage, s in report.stage_seconds.items():
                print(f"       stage {stage}: {s:.2f} s")
            engine.llm  # load once
            for method in args.methods.split(","):
                retrieval, full = [], []
                for q in questions:
                    if method in ("semantic", "keyword", "hybrid"):
                        lam = LAMBDAS.get(method, settings.lam)
                        t0 = time.perf_counter()
                        engine.method(method).ctx.retriever("text").search(q, k=settings.top_k, lam=lam)  # type: ignore[attr-defined]
                        retrieval.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    engine.ask(q, method=method)
                    full.append(time.perf_counter() - t0)
                if retrieval:
                    print(f"{method:>16} retrieval: median {statistics.median(retrieval) * 1000:.1f} ms "
                          f"(min {min(retrieval) * 1000:.1f}, max {max(retrieval) * 1000:.1f}; n={len(retrieval)})")
                print(f"{method:>16} answer:    median {statistics.median(full):.2f} s "
                      f"(min {min(full):.2f}, max {max(full):.2f}; n={len(full)}; llm {args.llm})")


if __name__ == "__main__":
    main()
