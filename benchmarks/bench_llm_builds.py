"""Prompt and generation tokens/s of llama.cpp builds, in one run: each build is the Python of a
virtualenv holding that llama-cpp-python wheel (e.g. the portable AVX2 build of scripts/setup.sh
and the runtime-dispatched one, GGML_BACKEND_DL + GGML_CPU_ALL_VARIANTS).

    .venv/bin/python benchmarks/bench_llm_builds.py PYTHON [PYTHON ...] [--llm qwen2.5-coder-0.5b]
        [--prompt 1500] [--gen 64] [--repeat 3] [--threads N]

Each build runs in its own subprocess (one after another, never together: two llama.cpp jobs on
the same cores slow each other ~10x) through k2desk's own LLM class, so the run-time CPU backend
loading is the one the app does. Prints each build's CPU features in use, the median prompt-eval
and generation tokens/s, and the ratios to the first build.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"


def child(model: str, prompt_tokens: int, gen: int, repeat: int, threads: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from k2desk.runtime.llm import LLM

    llm = LLM(model, n_ctx=4096, gpu_layers=0, threads=threads)
    import llama_cpp

    words = " ".join(json.loads(line)["body"] for line in (BENCH / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:20])
    ids = llm._llm.tokenize(words.encode(), add_bos=False)  # noqa: SLF001
    prompt = llm._llm.detokenize(ids[:prompt_tokens]).decode(errors="ignore")  # noqa: SLF001
    prompt_rates, gen_rates = [], []
    for i in range(repeat):
        llm._llm.reset()  # noqa: SLF001 - no prefix reuse between repeats
        text = f"{i} {prompt}"
        n = len(llm._llm.tokenize(text.encode()))  # noqa: SLF001
        t0 = time.perf_counter()
        llm._llm.create_completion(text, max_tokens=1, temperature=0.0)  # noqa: SLF001
        t_prompt = time.perf_counter() - t0
        prompt_rates.append(n / t_prompt)
        t0 = time.perf_counter()
        out = llm._llm.create_completion("Write a long story about a lighthouse keeper.", max_tokens=gen,  # noqa: SLF001
                                         temperature=0.0)
        t_all = time.perf_counter() - t0
        made = out["usage"]["completion_tokens"]
        gen_rates.append(made / max(1e-6, t_all))
    features = [f.strip() for f in llama_cpp.llama_print_system_info().decode().split("|") if "= 1" in f]
    return {"backend": llm.cpu_backend, "features": features, "prompt_tokens": prompt_tokens,
            "prompt_tok_s": statistics.median(prompt_rates), "gen_tok_s": statistics.median(gen_rates)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pythons", nargs="*", default=[sys.executable])
    ap.add_argument("--llm", default="qwen2.5-coder-0.5b")
    ap.add_argument("--prompt", type=int, default=1500)
    ap.add_argument("--gen", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.llm, args.prompt, args.gen, args.repeat, args.threads)))
        return
    sys.path.insert(0, str(ROOT))
    from k2desk.runtime.models import ModelStore

    model = str(ModelStore(ROOT / "models").resolve_llm(args.llm))
    results = []
    for python in args.pythons:
        proc = subprocess.run([python, __file__, "--child", "--llm", model, "--prompt", str(args.prompt), "--gen", str(args.gen),
                               "--repeat", str(args.repeat), "--threads", str(args.threads)],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if proc.returncode:
            sys.exit(f"{python}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        results.append(r)
        print(f"{python}\n    backend {r['backend']}; CPU features in use: {', '.join(r['features'])}")
        print(f"    prompt eval {r['prompt_tok_s']:.0f} tok/s ({r['prompt_tokens']} tokens), "
              f"generation {r['gen_tok_s']:.1f} tok/s; {Path(model).name}, {args.threads} threads")
    base = results[0]
    for python, r in zip(args.pythons[1:], results[1:]):
        print(f"{python} / {args.pythons[0]}: prompt x{r['prompt_tok_s'] / base['prompt_tok_s']:.2f}, "
              f"generation x{r['gen_tok_s'] / base['gen_tok_s']:.2f}")


if __name__ == "__main__":
    main()
