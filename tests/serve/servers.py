"""A real `k2desk serve` (uvicorn on a free loopback port, in this process) over a small collection,
and a plain HTTP client that sets every header itself (a foreign Host, an Origin)."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncContextManager, Callable, Iterator, Optional

import anyio

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


@contextmanager
def serve_command(env: dict[str, str]) -> Iterator[str]:
    """`k2desk serve --port 0` in its own process: the lines it starts with (its addresses); on
    leaving, SIGTERM, and a clean stop checked."""
    proc = subprocess.Popen([sys.executable, "-m", "k2desk", "serve", "--port", "0"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        yield "".join(proc.stdout.readline() for _ in range(3))
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "k2desk serve stopped" in out, err


@asynccontextmanager
async def http_streams(url: str, headers: Optional[dict[str, str]] = None):
    """The official MCP client's Streamable HTTP transport to ``url`` (with ``headers``)."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=headers) as client, \
            streamable_http_client(url, http_client=client) as streams:
        yield streams


def mcp_session(transport: Callable[[], AsyncContextManager], steps: Callable[[Any], Any], timeout: float = 600) -> Any:
    """Open the official MCP client's session over ``transport()`` (stdio or Streamable HTTP),
    run ``steps(session)`` and return what it returns, within ``timeout`` seconds."""
    from mcp.client.session import ClientSession

    out = []

    async def main():
        with anyio.fail_after(timeout):
            async with transport() as (read, write, *_), ClientSession(read, write) as session:
                await session.initialize()
                out.append(await steps(session))

    anyio.run(main)
    return out[0]


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


def bad_calls(bad: list[tuple[str, dict[str, Any]]], probe: str) -> Callable[[Any], Any]:
    """Steps for an open session: each of ``bad`` called, and after each a search for ``probe``
    that must still answer (the server up); the bad calls' results."""
    async def steps(s) -> list[Any]:
        results = []
        for name, arguments in bad:
            results.append(await s.call_tool(name, arguments))
            again = await s.call_tool("search", {"query": probe, "limit": 1})
            assert not again.is_error and again.structured_content["passages"], (name, arguments)
        return results

    return steps


def check_bad_calls(bad: list[tuple[str, dict[str, Any]]], results: list[Any]) -> None:
    assert len(results) == len(bad) >= 23
    for (name, arguments), result in zip(bad, results):
        assert result.is_error and result.content and result.content[0].text, (name, arguments, result)


# -- the acceptance scenario on the README's sample, over either transport ----------------------------

async def the_sample(s) -> dict[str, Any]:
    """Issue 69's calls on the sample through an open session: the tools, a search, fetch by
    passage and by document, an answer (with its progress), a question the documents do not
    answer, the document list, the resource template and one document as a resource."""
    out: dict[str, Any] = {"tools": {t.name: t for t in (await s.list_tools()).tools}}
    out["found"] = await s.call_tool("search", {"query": "Lindenfeld Solar Cooperative chair"})
    first = out["found"].structured_content["passages"][0]
    out["fetched"] = await s.call_tool("fetch", {"id": first["id"]})
    out["whole"] = await s.call_tool("fetch", {"id": first["document_id"]})
    out["progress"] = []

    async def on_progress(done, total, message):
        out["progress"].append(message)

    out["asked"] = await s.call_tool("ask", {"question": "Who leads the Lindenfeld Solar Cooperative?"},
                                     progress_callback=on_progress)
    out["missing"] = await s.call_tool("ask", {"question": "Who painted the dome of the observatory?"})
    out["listed"] = await s.call_tool("list_documents", {})
    out["templates"] = (await s.list_resource_templates()).resource_templates
    number = first["document_id"].rsplit(":", 1)[1]
    out["resource"] = await s.read_resource(f"k2desk://sample/documents/{number}")
    return out


def check_the_sample(r: dict[str, Any]) -> None:
    from k2desk.eval.metrics import strict_match

    def names(items) -> list[str]:
        return [Path(p["document"]).name for p in items]

    tools = r["tools"]
    assert set(tools) == {"search", "fetch", "ask", "list_documents"}  # no index tool: no --allow-index
    assert tools["search"].input_schema["required"] == ["query"]
    assert {"query", "collection", "documents", "limit"} == set(tools["search"].input_schema["properties"])
    assert tools["ask"].output_schema["properties"]["outcome"]["type"] == "string"
    assert all(t.description for t in tools.values())

    passages = r["found"].structured_content["passages"]
    assert not r["found"].is_error and names(passages)[0] == "solar-cooperative.md"
    assert passages[0]["id"].startswith("passage:sample:") and passages[0]["score"] > 0
    fetched, whole = r["fetched"].structured_content, r["whole"].structured_content
    assert fetched["text"] == passages[0]["text"] and fetched["kind"] == "passage"
    assert "Henrike Albers" in whole["text"] and whole["kind"] == "document"

    answer = r["asked"].structured_content
    assert strict_match(answer["answer"], "Henrike Albers") and answer["outcome"] == "answered", answer
    assert "solar-cooperative.md" in names(answer["sources"]) and r["progress"]  # progress while it read
    declined = r["missing"].structured_content
    assert not r["missing"].is_error and declined["outcome"] == "declined" and declined["reason"], declined

    listed = r["listed"].structured_content["documents"]
    assert "solar-cooperative.md" in names(listed) and all(d["status"] == "done" for d in listed)
    assert r["templates"][0].uri_template == "k2desk://{collection}/documents/{number}"
    assert "Henrike Albers" in r["resource"].contents[0].text
