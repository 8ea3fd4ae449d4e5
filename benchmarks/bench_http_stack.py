"""Which HTTP stack `k2desk serve` stands on (issue 57): Starlette + uvicorn against the standard
library's ThreadingHTTPServer, measured on what a local OpenAI-compatible server needs.

    .venv/bin/python benchmarks/bench_http_stack.py [--runs 5] [--out FILE]

For each stack, in a fresh process, on loopback only:
  - **start**: from the process's start to its first answered request (imports, bind, serve);
  - **streaming**: a Server-Sent-Events response of 40 events 20 ms apart (an answer streamed at a
    small model's pace on 2 cores): time to the first event and to the last, as a client reads them;
  - **a client gone mid-stream**: the client reads 3 events and closes its socket; the seconds
    until the server's producer learns of it (what frees the model for the next request);
  - **size**: what the stack adds to the install beyond what k2desk already carries.
The figures are printed as a Markdown table (medians over ``--runs``) and kept as JSON (--out).
Nothing is asserted. The stdlib server is written here as `serve` would need it (HTTP/1.1, one
thread per connection, Server-Sent Events); it is a measuring stand-in, not k2desk's code.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

EVENTS, GAP = 40, 0.02
HOST = "127.0.0.1"


# -- the two servers (run in a child process: `--serve STACK PORT LOG`) ---------------------------

def _events():
    for i in range(EVENTS):
        time.sleep(GAP)
        yield f"data: {json.dumps({'n': i, 'token': 'word '})}\n\n".encode()


def serve_stdlib(port: int, log: Path) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            return None

        def do_GET(self) -> None:
            if self.path == "/ping":
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for event in _events():
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                with log.open("a") as f:
                    f.write(f"{time.time()}\n")

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address) -> None:  # a client gone: quiet
            return None

    Server((HOST, port), Handler).serve_forever()


def serve_starlette(port: int, log: Path) -> None:
    import anyio
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    async def ping(request):
        return JSONResponse({"ok": True})

    async def stream(request):
        # the producer blocks, as a model's tokens do: a worker thread, its events passed over a
        # stream; a response cancelled (the client gone) tells it with a flag it reads per token
        send, receive = anyio.create_memory_object_stream(EVENTS)
        gone = threading.Event()

        def produce() -> None:
            for event in _events():
                if gone.is_set():
                    with log.open("a") as f:
                        f.write(f"{time.time()}\n")
                    return
                anyio.from_thread.run(send.send, event)
            anyio.from_thread.run(send.aclose)

        async def events():
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: anyio.to_thread.run_sync(produce, abandon_on_cancel=True))
                try:
                    async for event in receive:
                        yield event
                finally:
                    gone.set()

        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/ping", ping), Route("/stream", stream)])
    uvicorn.run(app, host=HOST, port=port, log_level="warning", http="h11", loop="asyncio", lifespan="off")


# -- the client ------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start(stack: str, log: Path) -> tuple[subprocess.Popen, int, float]:
    port = free_port()
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", stack, str(port), str(log)])
    while True:
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=5)
            conn.request("GET", "/ping")
            if conn.getresponse().status == 200:
                return proc, port, time.monotonic() - t0
        except OSError:
            if proc.poll() is not None or time.monotonic() - t0 > 30:
                raise SystemExit(f"{stack}: the server did not start") from None
            time.sleep(0.005)


def read_stream(port: int, stop_after: int = 0) -> tuple[float, float]:
    """Seconds to the first event and to the last (or to the ``stop_after``-th, then the socket closes)."""
    t0 = time.monotonic()
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    conn.request("GET", "/stream")
    resp = conn.getresponse()
    first = last = 0.0
    n = 0
    while True:
        line = resp.readline()
        if not line:
            break
        if line.startswith(b"data:"):
            n += 1
            last = time.monotonic() - t0
            first = first or last
            if stop_after and n >= stop_after:
                conn.sock.shutdown(socket.SHUT_RDWR)
                conn.close()
                break
    return first, last


def disconnect_notice(port: int, log: Path) -> float:
    log.write_text("")
    read_stream(port, stop_after=3)
    closed = time.time()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        text = log.read_text().strip()
        if text:
            return float(text.splitlines()[0]) - closed
        time.sleep(0.002)
    return float("nan")


def stack_size(stack: str) -> int:
    """Bytes the stack adds: starlette and uvicorn (anyio, h11 and click already come with k2desk's
    dependencies); the standard library's server adds nothing."""
    if stack == "stdlib":
        return 0
    import starlette
    import uvicorn

    return sum(f.stat().st_size for pkg in (starlette, uvicorn) for f in Path(pkg.__file__).parent.rglob("*")
               if f.is_file() and "__pycache__" not in f.parts)


def measure(stack: str, runs: int) -> dict:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "gone.log"
        for _ in range(runs):
            proc, port, started = start(stack, log)
            try:
                first, last = read_stream(port)
                rows.append({"start": started, "first_event": first, "last_event": last,
                             "gone_notice": disconnect_notice(port, log)})
            finally:
                proc.terminate()
                proc.wait(10)
    out = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    out["size_bytes"] = stack_size(stack)
    out["runs"] = runs
    return out


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        os.environ.setdefault("PYTHONUNBUFFERED", "1")
        {"stdlib": serve_stdlib, "starlette": serve_starlette}[sys.argv[2]](int(sys.argv[3]), Path(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    results = {stack: measure(stack, args.runs) for stack in ("stdlib", "starlette")}
    print(f"| stack | start to first answer, s | first event, s | last of {EVENTS} events, s | client gone → noticed, s | adds |")
    print("|---|---:|---:|---:|---:|---:|")
    for stack, r in results.items():
        name = "standard library (ThreadingHTTPServer)" if stack == "stdlib" else "Starlette + uvicorn (h11)"
        print(f"| {name} | {r['start']:.3f} | {r['first_event']:.3f} | {r['last_event']:.3f} | "
              f"{r['gone_notice']:.3f} | {r['size_bytes'] / 2**20:.1f} MiB |")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
