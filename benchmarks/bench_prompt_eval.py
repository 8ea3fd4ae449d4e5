"""How fast the reader model reads a prompt on this CPU (issue 72): by piece size, and by weight type.

    .venv/bin/python benchmarks/bench_prompt_eval.py [--model qwen2.5-coder-1.5b] [--types q4_0,q8_0] [--work DIR]

An answer's seconds on a CPU are the model reading its prompt, so this measures the reading alone,
with llama.cpp as k2desk loads it (the CPU variant ``cpu_dispatch`` chooses, flash attention, 2
threads as set): (1) the seconds to read a piece of N tokens after 400 already read, N from 1 to
512 (a follow-up's words, a claim, an answer's evidence), the best of two; (2) 1,000 tokens read
from the start by the shipped file and by the same weights written again as each of ``--types``
(``llama_model_quantize`` from the shipped Q4_K_M, into ``--work``: types whose CPU kernels differ;
the values of a requantized file differ a little, so its answers could too). Text: the first
characters of the wiki dev corpus. Printed as Markdown; nothing is asserted.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from k2desk.config import Settings  # noqa: E402
from k2desk.runtime.cpu_dispatch import load_cpu_backend  # noqa: E402
from k2desk.runtime.llama_import import import_llama  # noqa: E402
from k2desk.runtime.models import ModelStore  # noqa: E402

TEXT = ROOT.parent / "shared" / "bench" / "wiki-qa-dev" / "corpus.jsonl"
PIECES = (1, 4, 8, 16, 32, 64, 128, 256, 512)
FTYPES = {"q4_0": "LLAMA_FTYPE_MOSTLY_Q4_0", "q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0", "bf16": "LLAMA_FTYPE_MOSTLY_BF16",
          "q4_k_m": "LLAMA_FTYPE_MOSTLY_Q4_K_M"}


def load(path: Path, threads: int) -> Any:
    from llama_cpp import Llama

    return Llama(model_path=str(path), n_ctx=4096, n_threads=threads, n_threads_batch=threads, flash_attn=True,
                 verbose=False)


def seconds(llm: Any, before: list[int], piece: list[int], repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        llm.reset()
        if before:
            llm.eval(before)
        t0 = time.perf_counter()
        llm.eval(piece)
        best = min(best, time.perf_counter() - t0)
    return best


def requantize(source: Path, target: Path, name: str) -> None:
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, FTYPES[name])
    params.allow_requantize = True
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise SystemExit(f"could not write {target}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--types", default="q4_0,q8_0", help=f"weight types to write and compare ({', '.join(FTYPES)})")
    ap.add_argument("--work", type=Path, default=Path("/tmp/k2desk-prompt-eval"))
    args = ap.parse_args(argv)
    settings = Settings.load()
    threads = settings.effective_threads()
    path = ModelStore(settings.models_dir).resolve_llm(args.model)
    import_llama()
    variant = load_cpu_backend(path)
    llm = load(path, threads)
    tokens = llm.tokenize(TEXT.read_text(encoding="utf-8")[:40_000].encode())
    print(f"{path.name}, CPU variant {variant}, {threads} threads\n")
    print("| piece read after 400 tokens | ms | tokens/s |\n|---:|---:|---:|")
    for n in PIECES:
        s = seconds(llm, tokens[:400], tokens[400:400 + n])
        print(f"| {n} | {s * 1000:.0f} | {n / s:.1f} |", flush=True)
    print("\n| weights | file MB | 1,000 tokens from the start, s | tokens/s |\n|---|---:|---:|---:|")
    shipped = seconds(llm, [], tokens[:1000])
    llm.close()
    print(f"| {path.name} (shipped) | {path.stat().st_size / 2**20:.0f} | {shipped:.2f} | {1000 / shipped:.0f} |", flush=True)
    args.work.mkdir(parents=True, exist_ok=True)
    for name in [t for t in args.types.split(",") if t]:
        target = args.work / f"{path.stem}.{name}.gguf"
        if not target.is_file():
            requantize(path, target, name)
        other = load(target, threads)
        s = seconds(other, [], tokens[:1000])
        other.close()
        print(f"| the same weights as {name} | {target.stat().st_size / 2**20:.0f} | {s:.2f} | {1000 / s:.0f} |", flush=True)


if __name__ == "__main__":
    main()
