"""`k2desk serve` under load (issue 57), on loopback only, bounded in count and time.

    .venv/bin/python benchmarks/bench_serve.py [--clients 8] [--each 5] [--single 5] [--kills 5] [--out FILE]

A real `k2desk serve` (its own process, default models and method) over the README's sample,
indexed into a temporary home first. Every request is a streamed chat completion of one of the
sample's questions; its latency (to the last event) and time to first token (the first content
that is not empty) are read by the client.
  1. **one client**: ``--single`` requests one after another (the reference);
  2. **N clients at once**: ``--clients`` threads send ``--each`` requests each (≥ 40 in all by
     default); a 429 is counted as refused and its client waits the Retry-After it was given before
     its next request. "Lost" is any request neither answered nor refused (an error, a timeout, a
     broken stream);
  3. **a client killed mid-stream**: a client process is killed (SIGKILL) once it has read its
     first token, or earlier, once it has read the stream's first event (the model still reading
     the passages); the seconds from the kill until the server's /health says the model is free
     (its job ended, nothing running), and whether the job was cancelled or had finished first,
     ``--kills`` times each.
Figures printed as Markdown and kept as JSON (--out). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [  # about the README's sample (resources/sample), written for this benchmark
    "Who leads the Lindenfeld Solar Cooperative?", "Who is the treasurer of the Lindenfeld Solar Cooperative?",
    "When did the Hohenstein observatory open?", "What is the main telescope of the Hohenstein observatory?",
    "How long does the ferry crossing take?", "How many cars can the ferry carry?",
    "How many members did the Lindenfeld Solar Cooperative have in 2022?", "Who was the ferry's longest-serving captain?",
]
REQUEST_TIMEOUT = 300
TOTAL_TIMEOUT = 3000


def start_server(home: Path, env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "k2desk", "serve", "--port", "0", "--collection", "sample"],
                            env={**env, "K2DESK_HOME": str(home)}, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/v1", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, int(match.group(1))


def stream(port: int, question: str) -> dict[str, Any]:
    """One streamed request: its status, seconds to the first token and to the end, and how it ended."""
    t0 = time.monotonic()
    row: dict[str, Any] = {"question": question}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
        body = {"model": "sample", "stream": True, "messages": [{"role": "user", "content": question}]}
        conn.request("POST", "/v1/chat/completions", json.dumps(body),
                     {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json"})
        resp = conn.getresponse()
        row["status"] = resp.status
        if resp.status == 429:
            row["retry_after"] = int(resp.getheader("Retry-After") or 1)
            resp.read()
            row["outcome"] = "refused"
            return row
        done = False
        for line in resp:
            if not line.startswith(b"data: "):
                continue
            data = line[6:].strip()
            if data == b"[DONE]":
                done = True
                break
            event = json.loads(data)
            if "error" in event:
                row["error"] = event["error"]["message"]
                break
            delta = (event.get("choices") or [{}])[0].get("delta", {})
            if delta.get("content") and "first_token" not in row:
                row["first_token"] = time.monotonic() - t0
        row["outcome"] = "answered" if done and resp.status == 200 and "error" not in row else "lost"
        conn.close()
    except (OSError, ValueError, http.client.HTTPException) as exc:
        row["outcome"], row["error"] = "lost", f"{type(exc).__name__}: {exc}"
    row["seconds"] = time.monotonic() - t0
    return row


def health(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/health", headers={"Host": f"127.0.0.1:{port}"})
    out = json.loads(conn.getresponse().read())
    conn.close()
    return out["queue"]


KILLED_CLIENT = r"""
import http.client, json, sys
port = int(sys.argv[1])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
body = {"model": "sample", "stream": True, "messages": [{"role": "user", "content": sys.argv[2]}]}
conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json"})
resp = conn.getresponse()
for line in resp:
    if line.startswith(b"data: {") and (sys.argv[3] == "event" or
                                        json.loads(line[6:]).get("choices", [{}])[0].get("delta", {}).get("content")):
        print("read", flush=True)
        break
import time; time.sleep(600)
"""


def killed_mid_stream(port: int, question: str, after: str) -> dict[str, Any]:
    """A streaming client SIGKILLed ``after`` its first "token" or its first "event": the seconds
    to the model free (/health: its job ended, none running) and whether the job was cancelled."""
    before = health(port)
    client = subprocess.Popen([sys.executable, "-c", KILLED_CLIENT, str(port), question, after],
                              stdout=subprocess.PIPE, text=True)
    if client.stdout.readline().strip() != "read":
        client.kill()
        return {"after": after, "seconds": float("nan")}
    client.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    client.wait()
    while time.monotonic() - killed < 60:
        queue = health(port)
        if queue["served"] > before["served"] and queue["running"] == 0:
            return {"after": after, "seconds": time.monotonic() - killed,
                    "cancelled": queue["cancelled"] > before["cancelled"]}
        time.sleep(0.005)
    return {"after": after, "seconds": float("nan")}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answered = [r for r in rows if r["outcome"] == "answered"]

    def pct(values: list[float], q: float) -> float:
        values = sorted(values)
        return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else float("nan")

    lat = [r["seconds"] for r in answered]
    ttft = [r["first_token"] for r in answered if "first_token" in r]
    return {"requests": len(rows), "answered": len(answered), "refused": sum(r["outcome"] == "refused" for r in rows),
            "lost": sum(r["outcome"] == "lost" for r in rows),
            "latency_p50": pct(lat, 0.5), "latency_p95": pct(lat, 0.95),
            "ttft_p50": pct(ttft, 0.5), "ttft_p95": pct(ttft, 0.95)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--each", type=int, default=5)
    ap.add_argument("--single", type=int, default=5)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="k2desk-bench-serve-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("K2DESK_SERVE")}
    try:
        shutil.copytree(ROOT / "resources" / "sample", tmp / "docs")
        subprocess.run([sys.executable, "-m", "k2desk", "index", "-c", "sample", str(tmp / "docs")],
                       env={**env, "K2DESK_HOME": str(tmp / "home")}, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        proc, port = start_server(tmp / "home", env)
        try:
            stream(port, QUESTIONS[0])  # the models load: not measured
            single = [stream(port, QUESTIONS[i % len(QUESTIONS)]) for i in range(args.single)]
            rows: list[dict[str, Any]] = []
            lock = threading.Lock()

            def client(c: int) -> None:
                for i in range(args.each):
                    if time.monotonic() - started > TOTAL_TIMEOUT:
                        return
                    row = stream(port, QUESTIONS[(c + i) % len(QUESTIONS)])
                    row["client"] = c
                    with lock:
                        rows.append(row)
                    if row["outcome"] == "refused":
                        time.sleep(row["retry_after"])

            threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.monotonic() - t0
            kills = [killed_mid_stream(port, QUESTIONS[i % len(QUESTIONS)], after)
                     for after in ("token", "event") for i in range(args.kills)]
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    one, many = summary(single), summary(rows)
    result = {"single": one, "concurrent": {**many, "clients": args.clients, "wall_seconds": wall},
              "kill_to_free": kills, "rows": rows, "single_rows": single}
    print("| load (streamed, default model and method) | requests | answered | refused (429) | lost | latency p50 / p95, s "
          "| first token p50 / p95, s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in (("1 client, one after another", one), (f"{args.clients} clients at once", many)):
        print(f"| {name} | {r['requests']} | {r['answered']} | {r['refused']} | {r['lost']} | "
              f"{r['latency_p50']:.2f} / {r['latency_p95']:.2f} | {r['ttft_p50']:.2f} / {r['ttft_p95']:.2f} |")
    print(f"\n{args.clients} clients: {many['answered']} answered in {wall:.0f} s "
          f"({many['answered'] / wall * 60:.1f} answers a minute)")
    print("\n| a client killed (SIGKILL) | kills | model free: median / max, s | its job cancelled | finished first |")
    print("|---|---:|---:|---:|---:|")
    for after, name in (("token", "after its first token"), ("event", "after the first event, before any token")):
        done = [k for k in kills if k["after"] == after and k["seconds"] == k["seconds"]]
        if done:
            secs = [k["seconds"] for k in done]
            print(f"| {name} | {len(done)} | {statistics.median(secs):.3f} / {max(secs):.3f} | "
                  f"{sum(k['cancelled'] for k in done)} | {sum(not k['cancelled'] for k in done)} |")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
