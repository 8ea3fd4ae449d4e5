"""The Model Context Protocol over Streamable HTTP at `k2desk serve`'s ``/mcp`` (issue 69), with the
official client of the ``mcp`` SDK: the README's sample answered through the real command; on a
server in this process, the same Host / Origin / token checks as every route, malformed JSON-RPC
and bad tool calls answered as errors with the server up after each, the index tool only under
allowed folders, four clients at once, and an ask cancelled by its client."""

import http.client
import json
import re
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.serve.servers import (
    ACCEPT,
    INITIALIZE,
    bad_calls,
    bad_tool_calls,
    call,
    check_bad_calls,
    check_the_sample,
    http_streams,
    indexed_home,
    mcp_session,
    serve_command,
    serving,
    the_sample,
)

TOKEN = "token-for-the-mcp-test"
TIMEOUT = 600


def session_run(url: str, steps, headers=None):
    """Open the official client's session at ``url``, run ``steps(session)``, return what it returns."""
    return mcp_session(lambda: http_streams(url, headers), steps, TIMEOUT)


def names(passages) -> list[str]:
    return [Path(p["document"]).name for p in passages]


# -- the README's sample through the real `k2desk serve` ----------------------------------------------

@pytest.fixture(scope="module")
def served(sample_home, models_dir):
    env = {"K2DESK_HOME": str(sample_home), "K2DESK_MODELS": str(models_dir), "PATH": "/usr/bin:/bin",
           "K2DESK_SERVE_TOKEN": TOKEN}
    with serve_command(env) as lines:
        yield re.search(r"MCP \(Streamable HTTP\): (http://127\.0\.0\.1:\d+/mcp)", lines).group(1)


@pytest.mark.slow
def test_the_sample_through_serves_mcp_with_the_official_client(served):
    check_the_sample(session_run(served, the_sample, {"Authorization": f"Bearer {TOKEN}"}))


@pytest.mark.slow
def test_without_the_token_serves_mcp_refuses(served):
    port = int(served.rsplit(":", 1)[1].split("/")[0])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/mcp", json.dumps(INITIALIZE), {"Content-Type": "application/json", "Accept": ACCEPT})
    response = conn.getresponse()
    assert response.status == 401 and "token" in response.read().decode()
    conn.close()


# -- on a server in this process, over the test fixtures ---------------------------------------------

@pytest.fixture(scope="module")
def settings(tmp_path_factory, models_dir):
    return indexed_home(tmp_path_factory.mktemp("mcp-http"), models_dir)


@pytest.fixture(scope="module")
def server(settings):
    with serving(settings) as server:
        yield server


def initialized(server) -> str:
    """A session opened by hand: its Mcp-Session-Id."""
    status, headers, _ = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT})
    assert status == 200 and headers.get("mcp-session-id"), (status, headers)
    session = headers["mcp-session-id"]
    status, _, _ = call(server, "POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"Accept": ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
    assert status == 202
    return session


def still_up(server) -> None:
    found = session_run(server.options.mcp_url, lambda s: s.call_tool("search", {"query": "chess", "limit": 1}))
    assert not found.is_error and found.structured_content["passages"]


def test_over_http_the_tools_search_and_fetch(server):
    async def steps(s):
        tools = (await s.list_tools()).tools
        found = await s.call_tool("search", {"query": "chess club", "limit": 3})
        whole = await s.call_tool("fetch", {"id": found.structured_content["passages"][0]["document_id"]})
        listed = await s.call_tool("list_documents", {})
        return tools, found, whole, listed

    tools, found, whole, listed = session_run(server.options.mcp_url, steps)
    assert {t.name for t in tools} == {"search", "fetch", "ask", "list_documents"}
    assert names(found.structured_content["passages"])[0] == "chess_club.txt"
    assert whole.structured_content["kind"] == "document" and whole.structured_content["text"]
    assert "chess_club.txt" in names(listed.structured_content["documents"])


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"}, {"Origin": "http://localhost:3000"},
                                     {"Origin": "null"}, {"Host": "evil.example"},
                                     {"Host": "evil.example:{port}"}, {"Host": "127.0.0.1:1"}])
def test_a_foreign_origin_or_host_is_refused(server, headers):
    headers = {k: v.format(port=server.options.port) for k, v in headers.items()}
    status, _, body = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT, **headers})
    assert status == 403 and body["error"]["code"] in ("origin_not_allowed", "host_not_allowed"), body


def test_an_allowed_origin_is_served(settings):
    with serving(settings, allow_origins=["http://localhost:3000"]) as server:
        status, headers, _ = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT, "Origin": "http://localhost:3000"})
        assert status == 200 and headers["access-control-allow-origin"] == "http://localhost:3000"
        status, _, _ = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT, "Origin": "http://localhost:3001"})
        assert status == 403


def test_with_a_token_mcp_needs_it(settings):
    with serving(settings, token=TOKEN) as server:
        status, headers, _ = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT})
        assert status == 401 and headers["www-authenticate"] == "Bearer"
        status, _, _ = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT, "Authorization": "Bearer wrong-token"})
        assert status == 401
        tools = session_run(server.options.mcp_url, lambda s: s.list_tools(), {"Authorization": f"Bearer {TOKEN}"})
        assert len(tools.tools) == 4


def malformed(server, session: str) -> list[tuple[str, dict, bytes | None]]:
    """(what, headers, raw body) of requests that must come back as an error, never a crash."""
    ok = {"Accept": ACCEPT, "Content-Type": "application/json", "Mcp-Session-Id": session,
          "MCP-Protocol-Version": "2025-06-18"}
    big = server.options.body_max + 1
    return [
        ("not JSON", ok, b"this is not json"),
        ("truncated JSON", ok, b'{"jsonrpc": "2.0", "id": 9, "method": "tools/li'),
        ("an empty body", ok, b""),
        ("an empty batch", ok, b"[]"),
        ("a number", ok, b"42"),
        ("no method", ok, json.dumps({"jsonrpc": "2.0", "id": 9}).encode()),
        ("no jsonrpc", ok, json.dumps({"id": 9, "method": "tools/list"}).encode()),
        ("jsonrpc 1.0", ok, json.dumps({"jsonrpc": "1.0", "id": 9, "method": "tools/list"}).encode()),
        ("an unknown method", ok, json.dumps({"jsonrpc": "2.0", "id": 9, "method": "no/such/method"}).encode()),
        ("params not an object", ok, json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": 5}).encode()),
        ("a tool call without a name", ok, json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                                       "params": {"arguments": {}}}).encode()),
        ("a resource that is not there", ok, json.dumps({"jsonrpc": "2.0", "id": 9, "method": "resources/read",
                                                         "params": {"uri": "k2desk://mixed/documents/99999"}}).encode()),
        ("a declared oversize body", {**ok, "Content-Length": str(big)}, b"{}"),
        ("an oversize body", ok, json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                             "params": {"name": "search", "arguments": {"query": "x" * big}}}).encode()),
        ("text/plain", {**ok, "Content-Type": "text/plain"}, b"{}"),
        ("no Accept", {k: v for k, v in ok.items() if k != "Accept"},
         json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode()),
        ("no session", {k: v for k, v in ok.items() if k != "Mcp-Session-Id"},
         json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode()),
        ("an unknown session", {**ok, "Mcp-Session-Id": "0" * 32},
         json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode()),
    ]


def refused(status: int, body) -> bool:
    """An HTTP error, or a JSON-RPC error object (or a tool's error result) in a 200's body."""
    if status >= 400:
        return True
    text = body if isinstance(body, str) else json.dumps(body)
    return '"error"' in text or '"isError": true' in text or '"isError":true' in text


def test_malformed_json_rpc_gets_errors_and_the_server_stays_up(server):
    session = initialized(server)
    cases = malformed(server, session)
    for what, headers, raw in cases:
        sent = dict(headers)
        status, _, body = call(server, "POST", "/mcp", headers=sent, raw=raw) if "Content-Length" not in sent \
            else declared(server, sent, raw)
        assert refused(status, body), (what, status, body)
        status, _, body = call(server, "POST", "/mcp", {"jsonrpc": "2.0", "id": 10, "method": "tools/list"},
                               {k: v for k, v in headers.items() if k not in ("Content-Length", "Content-Type")} | {
                                   "Accept": ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
        assert status == 200 and "search" in str(body), (what, status, body)  # the session still answers
    for method in ("PUT", "PATCH"):
        status, _, _ = call(server, method, "/mcp", {}, {"Accept": ACCEPT})
        assert status == 405
    assert len(cases) >= 18
    still_up(server)


def declared(server, headers: dict[str, str], raw: bytes):
    """A request that declares a larger body than it sends: refused on its headers."""
    conn = http.client.HTTPConnection("127.0.0.1", server.options.port, timeout=30)
    conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
    conn.putheader("Host", f"127.0.0.1:{server.options.port}")
    for key, value in headers.items():
        conn.putheader(key, value)
    conn.endheaders(raw)
    resp = conn.getresponse()
    body = resp.read().decode("utf-8", "replace")
    conn.close()
    return resp.status, {}, body


def test_bad_tool_calls_are_errors_and_the_server_stays_up(server):
    bad = bad_tool_calls("mixed")
    check_bad_calls(bad, session_run(server.options.mcp_url, bad_calls(bad, "chess")))


def test_four_clients_at_once_none_lost(server):
    queries = ["chess club", "ferry", "report", "budget", "meeting"]

    async def client(n: int, out: list):
        async with streamable_http_client(server.options.mcp_url) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for q in queries:
                result = await s.call_tool("search", {"query": q, "limit": 2})
                out.append((n, q, not result.is_error and bool(result.structured_content["passages"])))

    out: list = []

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tg:
                for n in range(4):
                    tg.start_soon(client, n, out)

    anyio.run(main)
    assert sorted((n, q) for n, q, _ in out) == sorted((n, q) for n in range(4) for q in queries)
    assert all(ok for _, _, ok in out)


def test_the_index_tool_only_under_allowed_folders(settings, tmp_path):
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    for folder in (allowed, elsewhere):
        folder.mkdir()
        (folder / "lighthouse.md").write_text("# Lighthouse\n\nThe Varne lighthouse keeper is Oskar Lindqvist.\n")
    with serving(settings, allow_index=[allowed]) as server:
        async def steps(s):
            tools = {t.name for t in (await s.list_tools()).tools}
            outside = await s.call_tool("index", {"paths": [str(elsewhere / "lighthouse.md")]})
            sneaky = await s.call_tool("index", {"paths": [str(allowed / ".." / "elsewhere")]})
            empty = await s.call_tool("index", {"paths": []})
            inside = await s.call_tool("index", {"paths": [str(allowed)]})
            found = await s.call_tool("search", {"query": "Varne lighthouse keeper", "limit": 1})
            return tools, outside, sneaky, empty, inside, found

        tools, outside, sneaky, empty, inside, found = session_run(server.options.mcp_url, steps)
    assert "index" in tools
    assert outside.is_error and sneaky.is_error and empty.is_error and "not under a folder" in outside.content[0].text
    assert not inside.is_error and inside.structured_content["added"], inside
    assert names(found.structured_content["passages"]) == ["lighthouse.md"]
    assert "Oskar Lindqvist" in found.structured_content["passages"][0]["text"]


@pytest.mark.slow
def test_an_ask_cancelled_by_its_client_stops_on_the_worker(server):
    jobs = server.service.jobs
    before = jobs.status()["cancelled"]

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with streamable_http_client(server.options.mcp_url) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                started = anyio.Event()

                async def on_progress(done, total, message):
                    started.set()

                async with anyio.create_task_group() as tg:
                    async def asking():
                        await s.call_tool("ask", {"question": "Who runs the chess club, and when does it meet?"},
                                          progress_callback=on_progress)

                    tg.start_soon(asking)
                    await started.wait()
                    tg.cancel_scope.cancel()  # the client gives up: notifications/cancelled

    anyio.run(main)
    deadline = time.monotonic() + 120
    while jobs.status()["cancelled"] == before or jobs.status()["running"]:
        assert time.monotonic() < deadline, jobs.status()
        time.sleep(0.1)
    still_up(server)


def test_a_wrong_method_on_mcp_is_refused_without_a_session(server):
    status, _, _ = call(server, "GET", "/mcp", None, {"Accept": "text/event-stream"})
    assert status >= 400
    status, _, _ = call(server, "DELETE", "/mcp", None, {"Mcp-Session-Id": "0" * 32})
    assert status >= 400


def test_a_connected_client_does_not_hold_the_server_from_stopping(settings, capfd):
    """A client keeps its session (and its event stream) open; the server stops anyway, without
    waiting out uvicorn's graceful timeout (which says so when it is exceeded)."""
    import threading

    connected, release, finished = threading.Event(), threading.Event(), threading.Event()

    def client(url: str) -> None:
        async def steps(s):
            await s.list_tools()
            connected.set()
            await anyio.to_thread.run_sync(release.wait)  # idle, its session and event stream open

        try:
            session_run(url, steps)
        except BaseException:  # noqa: BLE001 - the server ended the session: what this test wants
            pass
        finished.set()

    with serving(settings) as server:
        thread = threading.Thread(target=client, args=(server.options.mcp_url,), daemon=True)
        thread.start()
        assert connected.wait(60)
        server.stop()
        assert not server._thread.is_alive()
    release.set()
    assert finished.wait(60)
    err = capfd.readouterr().err
    assert "graceful shutdown exceeded" not in err and "Traceback" not in err, err
