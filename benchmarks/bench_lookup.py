"""Prompt-lookup decoding on a CPU (issue 72, "generation that copies"): is it faster here?

    .venv/bin/python benchmarks/bench_lookup.py --home HOME [--news-home HOME2] [--questions 6] [--pred 2] [--out FILE]

k2desk's answers copy words from what they read, which is what prompt-lookup decoding drafts
from (llama-cpp-python's ``LlamaPromptLookupDecoding``; its authors advise ``num_pred_tokens=2``
on a CPU). The prompts are k2desk's own: the default method answers the first ``--questions``
open questions of the news sample and the wiki set (the reader's prompts recorded as they are
sent), plus one follow-up rewrite. Each prompt is then completed by the default reader model
twice, in two model objects, one after the other: plain, and with the draft. Figures: seconds per
prompt (median), whether every reply is the same, and the model's memory (the draft makes
llama-cpp-python keep every position's logits: ``logits_all``). Printed as Markdown, kept as
JSON with --out. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine, reader_llm_name  # noqa: E402
from k2desk.eval import datasets  # noqa: E402
from k2desk.eval.runner import current_rss_mb  # noqa: E402
from k2desk.methods.forms import ask_form  # noqa: E402
from k2desk.runtime import llm as runtime_llm  # noqa: E402
from k2desk.runtime.models import ModelStore  # noqa: E402

BENCH = ROOT.parent / "shared" / "bench"


def recorded_prompts(home: Path, news_home: Path, n: int) -> list[dict[str, Any]]:
    """The reader's chat calls (messages, max_tokens, stop) for ``n`` open questions of each set."""
    calls: list[dict[str, Any]] = []
    original = runtime_llm.LLM.chat

    def recording(self, messages, max_tokens=256, *args, **kwargs):
        if kwargs.get("schema") is None:
            calls.append({"messages": messages, "max_tokens": max_tokens, "stop": kwargs.get("stop")})
        return original(self, messages, max_tokens, *args, **kwargs)

    runtime_llm.LLM.chat = recording
    try:
        for folder, queries in (("multihop-rag-dev", "queries_sample.jsonl"), ("wiki-qa-dev", None)):
            bench, questions = datasets.prepare(BENCH / folder, None, queries=queries)
            where = news_home if folder == "multihop-rag-dev" else home
            with Engine(Settings.load(home=where), datasets.collection_name(bench.corpus)) as engine:
                asked = 0
                for q in questions:
                    if asked >= n:
                        break
                    if ask_form(q.query).kind == "yes_no":
                        continue  # a yes/no question writes nothing (its claims are scored)
                    engine.ask(q.prompt)
                    asked += 1
    finally:
        runtime_llm.LLM.chat = original
    return calls


def complete(model: Any, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for call in calls:
        model._llm.reset()  # noqa: SLF001 - every prompt read from its first token, in both variants
        t0 = time.perf_counter()
        out = model.chat(call["messages"], max_tokens=call["max_tokens"], stop=call["stop"])
        rows.append({"seconds": time.perf_counter() - t0, "text": out.text, "prompt_tokens": out.prompt_tokens,
                     "completion_tokens": out.completion_tokens})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="where `k2desk eval` indexed the dev collections")
    ap.add_argument("--news-home", type=Path, help="the news sample's home, when it is another")
    ap.add_argument("--questions", type=int, default=6)
    ap.add_argument("--pred", type=int, default=2, help="num_pred_tokens of the draft")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    settings = Settings.load(home=args.home)
    calls = recorded_prompts(args.home, args.news_home or args.home, args.questions)
    path = ModelStore(settings.models_dir).resolve_llm(reader_llm_name(settings))
    results: dict[str, Any] = {}
    for variant in ("plain", "lookup"):
        before = current_rss_mb()
        model = runtime_llm.LLM(path, n_ctx=settings.n_ctx, threads=settings.effective_threads(), seed=settings.seed)
        if variant == "lookup":
            from llama_cpp import Llama
            from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

            model.close()  # the draft is given at load: the same file loaded with it
            model._llm = Llama(model_path=str(path), n_ctx=settings.n_ctx, n_threads=settings.effective_threads(),  # noqa: SLF001
                               n_threads_batch=settings.effective_threads(), seed=settings.seed, flash_attn=True,
                               verbose=False, draft_model=LlamaPromptLookupDecoding(num_pred_tokens=args.pred),
                               logits_all=True)  # 0.3.36 sizes its logits array by this flag alone: a draft
            # without it fails on a prompt longer than n_batch (512 tokens)
        complete(model, calls[:1])  # warm
        rows = complete(model, calls)
        results[variant] = {"rows": rows, "rss_mb": current_rss_mb() - before}
        model.close()
    same = sum(a["text"] == b["text"] for a, b in zip(results["plain"]["rows"], results["lookup"]["rows"]))
    lines = ["| variant | prompts | median s | mean s | generated tokens (mean) | memory added MB |", "|---|---:|---:|---:|---:|---:|"]
    for variant, r in results.items():
        secs = [x["seconds"] for x in r["rows"]]
        lines.append(f"| {variant} | {len(secs)} | {statistics.median(secs):.2f} | {statistics.mean(secs):.2f} | "
                     f"{statistics.mean(x['completion_tokens'] for x in r['rows']):.1f} | {r['rss_mb']:.0f} |")
    lines.append(f"\nthe same reply: {same} of {len(calls)}; prompt tokens (median) "
                 f"{statistics.median(x['prompt_tokens'] for x in results['plain']['rows']):.0f}")
    print("\n".join(lines))
    if args.out:
        args.out.write_text(json.dumps({"results": results, "pred": args.pred}, indent=1) + "\n")


if __name__ == "__main__":
    main()
