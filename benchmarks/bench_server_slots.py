"""Do independent LLM calls gain from llama-server's parallel slots (continuous batching)?

    .venv/bin/python benchmarks/bench_server_slots.py [--llm qwen2.5-coder-0.5b] [--calls 3]
        [--gen 48] [--threads N] [--server .venv/bin/llama-server]

Starts ``llama-server`` on loopback with ``--calls`` slots and sends the same ``--calls`` requests
(a dev article's first 2,400 characters and "write one question about it": K²RAG's sub-question
step) one after another, then all at once, with the prompt cache off; prints both times and the
ratio. On a CPU prompt reading is compute-bound, so only the decode share can gain.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm", default="qwen2.5-coder-0.5b")
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--gen", type=int, default=48)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--server", default=str(ROOT / ".venv" / "bin" / "llama-server"))
    args = ap.parse_args()

    import sys

    sys.path.insert(0, str(ROOT))
    from k2desk.runtime.models import ModelStore

    model = ModelStore(ROOT / "models").resolve_llm(args.llm)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([args.server, "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c",
                             str(4096 * args.calls), "-np", str(args.calls), "-t", str(args.threads), "--no-webui", "-fa", "on"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(url + "/health", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        bodies = [json.loads(line)["body"] for line in (BENCH / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
        usage: list[dict] = []

        def call(i: int) -> None:
            body = {"messages": [{"role": "user", "content": f"{bodies[i][:2400]}\n\nWrite one question about this text."}],
                    "max_tokens": args.gen, "temperature": 0, "cache_prompt": False}
            req = urllib.request.Request(url + "/v1/chat/completions", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            usage.append(json.loads(urllib.request.urlopen(req, timeout=600).read())["usage"])

        t0 = time.perf_counter()
        for i in range(args.calls):
            call(i)
        sequential = time.perf_counter() - t0
        threads = [threading.Thread(target=call, args=(i,)) for i in range(args.calls)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        parallel = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    prompt = sum(u["prompt_tokens"] for u in usage[: args.calls]) / args.calls
    made = sum(u["completion_tokens"] for u in usage[: args.calls]) / args.calls
    print(f"{args.calls} calls of ~{prompt:.0f} prompt + ~{made:.0f} generated tokens ({Path(model).name}, "
          f"{args.threads} threads): one after another {sequential:.1f} s, in {args.calls} slots at once "
          f"{parallel:.1f} s, ratio {sequential / parallel:.2f}")


if __name__ == "__main__":
    main()
