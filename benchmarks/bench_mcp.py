"""What the Model Context Protocol costs (issue 69), on loopback only, bounded in count and time.

    .venv/bin/python benchmarks/bench_mcp.py [--repeat 10] [--asks 4] [--clients 4] [--each 5] [--out FILE]

The README's sample is indexed into a temporary home (default profile and models). Then, one after
the other (one model job at a time on these cores):
  1. **Engine**: ``search`` (``--repeat`` times) and ``ask`` (``--asks`` questions) called on an
     ``Engine`` in this process: the reference;
  2. **stdio**: the same calls through the official MCP client to a `k2desk mcp` subprocess;
  3. **HTTP**: the same calls through the official client to `k2desk serve`'s ``/mcp`` (Streamable
     HTTP; the server its own process);
  4. **clients at once**: ``--clients`` official clients over Streamable HTTP at the same time, each
     ``--each`` searches and one ask; a call is answered, refused (the queue full: said so) or lost
     (anything else: an error, a timeout).
The first call of each kind in each place loads what it needs and is not measured. The protocol's
overhead is the median through MCP less the median on the Engine. Figures printed as Markdown and
kept as JSON (--out). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
from bench_serve import QUESTIONS  # the sample's questions (benchmarks/ is this script's folder)

ROOT = Path(__file__).resolve().parents[1]
SEARCHES = ["Lindenfeld Solar Cooperative chair", "ferry crossing", "observatory telescope", "cooperative members 2022"]
CALL_TIMEOUT = 600
TOTAL_TIMEOUT = 3000


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def p90(xs: list[float]) -> float:
    return sorted(xs)[max(0, round(0.9 * len(xs)) - 1)] if xs else float("nan")


def engine_calls(home: Path, repeat: int, asks: int) -> dict[str, list[float]]:
    from k2desk.config import Settings
    from k2desk.engine import Engine

    out: dict[str, list[float]] = {"search": [], "ask": []}
    with Engine(Settings(home=home), "sample") as engine:
        engine.search(SEARCHES[0], k=5)
        engine.ask(QUESTIONS[0])  # the models load
        for i in range(repeat):
            t0 = time.perf_counter()
            engine.search(SEARCHES[i % len(SEARCHES)], k=5)
            out["search"].append(time.perf_counter() - t0)
        for i in range(asks):
            t0 = time.perf_counter()
            engine.ask(QUESTIONS[(i + 1) % len(QUESTIONS)])
            out["ask"].append(time.perf_counter() - t0)
    return out


async def timed_calls(session, repeat: int, asks: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"search": [], "ask": []}
    await session.call_tool("search", {"query": SEARCHES[0]})
    await session.call_tool("ask", {"question": QUESTIONS[0]})  # the models load
    for i in range(repeat):
        t0 = time.perf_counter()
        result = await session.call_tool("search", {"query": SEARCHES[i % len(SEARCHES)], "limit": 5})
        assert not result.is_error, result
        out["search"].append(time.perf_counter() - t0)
    for i in range(asks):
        t0 = time.perf_counter()
        result = await session.call_tool("ask", {"question": QUESTIONS[(i + 1) % len(QUESTIONS)]})
        assert not result.is_error, result
        out["ask"].append(time.perf_counter() - t0)
    return out


def over_stdio(home: Path, env: dict[str, str], work: Callable[[Any], Awaitable[Any]]) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "k2desk", "mcp", "-c", "sample"],
                                   env={**env, "K2DESK_HOME": str(home)}, cwd=str(ROOT))
    out = []

    async def main() -> None:
        with anyio.fail_after(TOTAL_TIMEOUT):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                out.append(await work(session))

    anyio.run(main)
    return out[0]


async def http_session(url: str, work: Callable[[Any], Awaitable[Any]]) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await work(session)


def start_server(home: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "k2desk", "serve", "--port", "0", "-c", "sample"],
                            env={**env, "K2DESK_HOME": str(home)}, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    lines = "".join(proc.stdout.readline() for _ in range(3))
    match = re.search(r"MCP \(Streamable HTTP\): (http://127\.0\.0\.1:\d+/mcp)", lines)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {lines!r}")
    return proc, match.group(1)


def at_once(url: str, clients: int, each: int) -> dict[str, Any]:
    """``clients`` sessions at once, each ``each`` searches then one ask: every call's outcome."""
    rows: list[dict[str, Any]] = []

    async def client(c: int) -> None:
        async def work(session) -> None:
            calls = [("search", {"query": SEARCHES[(c + i) % len(SEARCHES)]}) for i in range(each)]
            calls.append(("ask", {"question": QUESTIONS[c % len(QUESTIONS)]}))
            for tool, arguments in calls:
                t0 = time.perf_counter()
                row = {"client": c, "tool": tool}
                try:
                    with anyio.fail_after(CALL_TIMEOUT):
                        result = await session.call_tool(tool, arguments)
                    text = result.content[0].text if result.content else ""
                    row["outcome"] = ("refused" if "busy" in text else "lost") if result.is_error else "answered"
                except Exception as exc:  # noqa: BLE001 - a lost call is a figure, not a crash
                    row["outcome"], row["error"] = "lost", f"{type(exc).__name__}: {exc}"
                row["seconds"] = time.perf_counter() - t0
                rows.append(row)

        await http_session(url, work)

    async def main() -> None:
        with anyio.fail_after(TOTAL_TIMEOUT):
            async with anyio.create_task_group() as tg:
                for c in range(clients):
                    tg.start_soon(client, c)

    t0 = time.perf_counter()
    anyio.run(main)
    wall = time.perf_counter() - t0
    return {"rows": rows, "wall": wall, "calls": clients * (each + 1),
            **{k: sum(r["outcome"] == k for r in rows) for k in ("answered", "refused", "lost")}}


def table(places: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = ["| call | where | n | median s | p90 s | overhead vs Engine (median) |", "|---|---|---:|---:|---:|---:|"]
    for call in ("search", "ask"):
        base = median(places["Engine"][call])
        for where, calls in places.items():
            xs = calls[call]
            over = "" if where == "Engine" else f"{median(xs) - base:+.3f} s"
            lines.append(f"| {call} | {where} | {len(xs)} | {median(xs):.3f} | {p90(xs):.3f} | {over} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--asks", type=int, default=4)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--each", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="k2desk-bench-mcp-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("K2DESK_SERVE")}
    try:
        shutil.copytree(ROOT / "resources" / "sample", tmp / "docs")
        subprocess.run([sys.executable, "-m", "k2desk", "index", "-c", "sample", str(tmp / "docs")],
                       env={**env, "K2DESK_HOME": str(tmp / "home")}, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        places = {"Engine": engine_calls(tmp / "home", args.repeat, args.asks)}
        places["MCP stdio"] = over_stdio(tmp / "home", env, lambda s: timed_calls(s, args.repeat, args.asks))
        proc, url = start_server(tmp / "home", env)
        try:
            places["MCP HTTP"] = anyio.run(http_session, url, lambda s: timed_calls(s, args.repeat, args.asks))
            crowd = at_once(url, args.clients, args.each)
        finally:
            proc.terminate()
            proc.wait(60)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = table(places)
    lines += ["", f"{args.clients} clients at once over Streamable HTTP, {args.each} searches and one ask each: "
              f"{crowd['calls']} calls, {crowd['answered']} answered, {crowd['refused']} refused (queue full), "
              f"{crowd['lost']} lost, {crowd['wall']:.1f} s in all"]
    print("\n".join(lines))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"places": places, "at_once": crowd, "args": vars(args) | {"out": str(args.out)}},
                                       indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
