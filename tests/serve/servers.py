"""A real `k2desk serve` (uvicorn on a free loopback port, in this process) over a small collection,
and a plain HTTP client that sets every header itself (a foreign Host, an Origin)."""

from __future__ import annotations

import http.client
import json
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.serve import ServeOptions
from k2desk.serve.server import Server

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ACCEPT = "application/json, text/event-stream"  # what an MCP client accepts from /mcp
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",  # an MCP session's first request, by hand
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}


def indexed_home(tmp: Path, models_dir: Path, collection: str = "mixed") -> Settings:
    """The test fixtures' folder indexed with the naive profile (passages only: no model writes)."""
    shutil.copytree(FIXTURES / "mixed", tmp / "docs")
    settings = Settings(home=tmp / "home", models_dir=models_dir, threads=2, build_profile="naive")
    with Engine(settings, collection) as engine:
        engine.index([tmp / "docs"])
    return settings


@contextmanager
def serving(settings: Settings, **options: Any) -> Iterator[Server]:
    opts = ServeOptions(options.pop("collections", ["mixed"]), port=0, **options)
    server = Server(settings, opts)
    server.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield server
    finally:
        server.stop()


def call(server: Server, method: str, path: str, body: Any = None, headers: Optional[dict[str, str]] = None,
         raw: Optional[bytes] = None, timeout: float = 120) -> tuple[int, dict[str, str], Any]:
    """One request: (status, headers lower-cased, the JSON body or the text)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.options.port, timeout=timeout)
    sent = {"Host": f"127.0.0.1:{server.options.port}"}
    if body is not None:
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    conn.request(method, path, data, {k: v for k, v in sent.items() if v is not None})
    resp = conn.getresponse()
    text = resp.read().decode("utf-8", "replace")
    conn.close()
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, parsed


def bad_tool_calls(collection: str) -> list[tuple[str, dict[str, Any]]]:
    """MCP tool calls a server must answer with a protocol error (an unknown tool, a missing or
    wrongly typed argument, an oversize one, an id or collection that is not there), staying up."""
    return [("nope", {}), ("search", {}), ("search", {"query": 3}), ("search", {"query": "x" * 5000}),
            ("search", {"query": "ferry", "limit": 0}), ("search", {"query": "ferry", "limit": "five"}),
            ("search", {"query": "ferry", "collection": "elsewhere"}), ("search", {"query": "ferry", "documents": "a"}),
            ("search", {"query": "ferry", "documents": ["/nowhere/at/all.md"]}), ("search", {"query": "   "}),
            ("fetch", {}), ("fetch", {"id": f"passage:{collection}:99999999"}), ("fetch", {"id": "chunk:1"}),
            ("fetch", {"id": "document:elsewhere:1"}), ("fetch", {"id": 7}), ("fetch", {"id": f"document:{collection}:x"}),
            ("ask", {}), ("ask", {"question": ""}), ("ask", {"question": ["a"]}), ("ask", {"question": "q" * 3000}),
            ("ask", {"question": "Who?", "documents": ["x"] * 60}), ("list_documents", {"collection": "elsewhere"}),
            ("list_documents", {"collection": 5})]
