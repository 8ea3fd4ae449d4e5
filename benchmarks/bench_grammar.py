"""Greedy decoding under the graph extractor's JSON grammar: the chosen token checked first
(k2desk/runtime/grammar_sampling.py) against llama-cpp-python's own chain (every candidate of
the vocabulary checked at every token), on the same chunks, alternating so both see the same load.

    .venv/bin/python benchmarks/bench_grammar.py [--bench ../shared/bench/multihop-rag-dev]
        [--chunks 6] [--llm qwen2.5-coder-0.5b] [--gpu-layers 0] [--threads N]

Prints per chunk: completion tokens, seconds each way, tokens that needed the full check, and
whether both ways wrote the same text (greedy: they must); then the totals and the ratio.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from k2desk.config import Settings
from k2desk.graph.extract import EXTRACTION_SCHEMA, MAX_TOKENS, extraction_messages
from k2desk.runtime.llm import LLM
from k2desk.runtime.models import ModelStore

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench" / "multihop-rag-dev")
    ap.add_argument("--chunks", type=int, default=6)
    ap.add_argument("--llm", default="qwen2.5-coder-0.5b")
    ap.add_argument("--gpu-layers", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    docs = [json.loads(line) for line in (args.bench / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    # each article's opening ~1,200 characters (about the graph profile's 300-token chunk), cut at a sentence end
    chunks = [d["body"][:1200].rsplit(". ", 1)[0] + "." for d in docs[: args.chunks]]
    llm = LLM(ModelStore(Settings().models_dir).resolve_llm(args.llm), gpu_layers=args.gpu_layers, threads=args.threads)
    lazy_chain = llm._llm.__dict__["_init_sampler"]  # noqa: SLF001 - installed by grammar_sampling
    totals = {"lazy": 0.0, "full": 0.0, "tokens": 0, "same": 0, "full_checks": 0, "checked": 0}
    print("chunk  tokens  lazy s  full s  full checks  same text")
    for i, chunk in enumerate(chunks):
        outs, secs = {}, {}
        for way in ("lazy", "full"):
            if way == "lazy":
                llm._llm._init_sampler = lazy_chain  # noqa: SLF001
            else:
                llm._llm.__dict__.pop("_init_sampler", None)
            llm._llm.reset()  # noqa: SLF001 - both ways read the whole prompt
            before = (llm.grammar_stats.tokens, llm.grammar_stats.full_checks)
            t0 = time.perf_counter()
            out = llm.chat(extraction_messages(chunk), max_tokens=MAX_TOKENS, schema=EXTRACTION_SCHEMA)
            secs[way], outs[way] = time.perf_counter() - t0, out
            if way == "lazy":
                checked = llm.grammar_stats.tokens - before[0]
                full_checks = llm.grammar_stats.full_checks - before[1]
        same = outs["lazy"].text == outs["full"].text
        totals["lazy"] += secs["lazy"]
        totals["full"] += secs["full"]
        totals["tokens"] += outs["lazy"].completion_tokens
        totals["same"] += same
        totals["full_checks"] += full_checks
        totals["checked"] += checked
        print(f"{i:5d}  {outs['lazy'].completion_tokens:6d}  {secs['lazy']:6.1f}  {secs['full']:6.1f}  "
              f"{full_checks:4d} of {checked:4d}  {same}")
    print(f"total  {totals['tokens']:6d}  {totals['lazy']:6.1f}  {totals['full']:6.1f}  "
          f"{totals['full_checks']:4d} of {totals['checked']:4d}  {totals['same']}/{len(chunks)} same")
    print(f"first-token check: {totals['full'] / max(totals['lazy'], 1e-9):.2f}x faster ({llm.name}, gpu_layers "
          f"{args.gpu_layers}, {args.threads or 'default'} threads)")


if __name__ == "__main__":
    main()
