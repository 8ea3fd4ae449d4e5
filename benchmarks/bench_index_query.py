"""Index time per stage and answer latency per method, in one run (default: the 40 MultiHop-RAG
dev articles, the default build profile and model).

    .venv/bin/python benchmarks/bench_index_query.py [--corpus PATH] [--queries PATH] [--questions 10]
        [--methods hybrid,k2rag] [--llm qwen2.5-coder-0.5b] [--profile default]
        [--graph-extractor auto] [--summarizer auto] [--compare-docs 4]

Prints, for indexing into a fresh collection: the time until the first document is searchable
(its text stage committed), every stage's seconds and the total; with ``--compare-docs N`` the
summary graph of the first N documents is built again by the LLM extractor (the "deep" mode) and
the fast and deep graph stages are compared per document. Then the median, mean, min and max
answer time of each method over the first ``--questions`` questions. Figures from one run on a
shared machine: compare ratios within a run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from k2desk.config import DEFAULT_LLM, Settings
from k2desk.engine import Engine, shared_llm
from k2desk.runtime.device import graph_extractor, summarizer_backend

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"


def index(settings: Settings, name: str, paths: list[Path]) -> tuple[dict[str, float], float, float, int]:
    """(stage seconds, seconds to the first searchable document, total seconds, documents)."""
    with Engine(settings, name) as engine:
        _ = engine.embedder  # loaded outside the timed region
        first = []
        t0 = time.perf_counter()

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "embed" and done >= 1 and not first:  # document 1's text stage has committed
                first.append(time.perf_counter() - t0)

        report = engine.index(paths, progress=progress)
        total = time.perf_counter() - t0
        if not first and report.added:  # a single document: searchable when its stage ended
            first.append(report.stage_seconds.get("embed", total))
        return report.stage_seconds, first[0] if first else 0.0, total, len(report.added)


def stage_table(stages: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.1f} s" for k, v in stages.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=BENCH / "corpus.jsonl")
    ap.add_argument("--queries", type=Path, default=BENCH / "queries_sample.jsonl")
    ap.add_argument("--questions", type=int, default=10)
    ap.add_argument("--methods", default="hybrid,k2rag")
    ap.add_argument("--llm", default=DEFAULT_LLM)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--profile", default="default")
    ap.add_argument("--graph-extractor", default="auto")
    ap.add_argument("--summarizer", default="auto")
    ap.add_argument("--compare-docs", type=int, default=4, help="documents whose graph the LLM extractor builds too (0: none)")
    args = ap.parse_args()

    questions = [json.loads(line)["query"] for line in args.queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = questions[: args.questions]
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), llm=args.llm, threads=args.threads, build_profile=args.profile,
                            graph_extractor=args.graph_extractor, summarizer=args.summarizer)
        print(f"settings: profile {settings.build_profile}, summarizer {summarizer_backend(settings)}, "
              f"graph {graph_extractor(settings)}, llm {settings.llm}, threads {settings.effective_threads()}")
        stages, first, total, n_docs = index(settings, "bench", [args.corpus])
        print(f"index   {n_docs} documents of {args.corpus.name}: first searchable after {first:.1f} s, "
              f"everything in {total:.1f} s ({total / 60:.1f} min)")
        print(f"        stages: {stage_table(stages)}")

        if args.compare_docs and settings.build_profile in ("default", "summary") and args.corpus.suffix == ".jsonl":
            sample = Path(home) / "sample.jsonl"
            lines = args.corpus.read_text(encoding="utf-8").splitlines()[: args.compare_docs]
            sample.write_text("\n".join(lines) + "\n", encoding="utf-8")
            per_doc = {}
            for extractor in ("fast", "llm"):
                s, _, _, n = index(Settings(home=Path(home), llm=args.llm, threads=args.threads, build_profile=args.profile,
                                            graph_extractor=extractor, summarizer=args.summarizer),
                                   f"compare-{extractor}", [sample])
                per_doc[extractor] = s.get("graph", 0.0) / max(1, n)
                print(f"graph   {extractor:>4} extractor on {n} documents: {stage_table(s)}; graph {per_doc[extractor]:.2f} s/document")
            if per_doc["fast"] > 0:
                print(f"        deep / fast graph time per document: {per_doc['llm'] / per_doc['fast']:.0f}x")

        with Engine(settings, "bench") as engine:
            engine.llm, shared_llm(settings, "check")  # both loaded outside the timed region
            for method in [m.strip() for m in args.methods.split(",") if m.strip()]:
                times = []
                for q in questions:
                    t0 = time.perf_counter()
                    engine.ask(q, method=method)
                    times.append(time.perf_counter() - t0)
                print(f"answer  {method:>12}: median {statistics.median(times):.1f} s, mean {statistics.mean(times):.1f} s "
                      f"(min {min(times):.1f}, max {max(times):.1f}; n={len(times)})")


if __name__ == "__main__":
    main()
