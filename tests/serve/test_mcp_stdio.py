"""The official MCP client (the ``mcp`` SDK's ClientSession over stdio) against a real `k2desk mcp`
subprocess on the README's sample with the default models (issue 69): the tools with their
schemas, search without a model, fetch by id, ask with its verdict and sources (and progress), a
question the documents do not answer declined as data, errors as protocol errors with the server
up after each, the documents as resources, and nothing but JSON-RPC on stdout."""

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from k2desk.eval.metrics import strict_match
from tests.serve.servers import bad_tool_calls

TIMEOUT = 600


@pytest.fixture(scope="module")
def server_env(sample_home, models_dir):
    return {"K2DESK_HOME": str(sample_home), "K2DESK_MODELS": str(models_dir), "PATH": "/usr/bin:/bin"}


def session_run(env, steps, options=()):
    """Start `k2desk mcp`, open the official client's session, run ``steps(session)``, return what it returns."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "k2desk", "mcp", "--collection", "sample", *options],
                                   env=env)
    out = []

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                out.append(await steps(session))

    anyio.run(main)
    return out[0]


def documents(passages) -> list[str]:
    return [Path(p["document"]).name for p in passages]


@pytest.mark.slow
def test_search_fetch_ask_and_list_through_the_official_client(server_env):
    async def steps(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        found = await s.call_tool("search", {"query": "Lindenfeld Solar Cooperative chair"})
        first = found.structured_content["passages"][0]
        fetched = await s.call_tool("fetch", {"id": first["id"]})
        whole = await s.call_tool("fetch", {"id": first["document_id"]})
        progress = []

        async def on_progress(done, total, message):
            progress.append(message)

        asked = await s.call_tool("ask", {"question": "Who leads the Lindenfeld Solar Cooperative?"},
                                  progress_callback=on_progress)
        missing = await s.call_tool("ask", {"question": "Who painted the dome of the observatory?"})
        listed = await s.call_tool("list_documents", {})
        templates = (await s.list_resource_templates()).resource_templates
        number = first["document_id"].rsplit(":", 1)[1]
        resource = await s.read_resource(f"k2desk://sample/documents/{number}")
        return tools, found, fetched, whole, asked, progress, missing, listed, templates, resource

    tools, found, fetched, whole, asked, progress, missing, listed, templates, resource = session_run(server_env, steps)
    assert set(tools) == {"search", "fetch", "ask", "list_documents"}
    assert tools["search"].input_schema["required"] == ["query"]
    assert {"query", "collection", "documents", "limit"} == set(tools["search"].input_schema["properties"])
    assert tools["ask"].output_schema["properties"]["outcome"]["type"] == "string"
    assert all(t.description for t in tools.values())

    passages = found.structured_content["passages"]
    assert not found.is_error and documents(passages)[0] == "solar-cooperative.md"
    assert passages[0]["id"].startswith("passage:sample:") and passages[0]["score"] > 0
    assert fetched.structured_content["text"] == passages[0]["text"] and fetched.structured_content["kind"] == "passage"
    assert "Henrike Albers" in whole.structured_content["text"] and whole.structured_content["kind"] == "document"

    answer = asked.structured_content
    assert strict_match(answer["answer"], "Henrike Albers") and answer["outcome"] == "answered", answer
    assert "solar-cooperative.md" in documents(answer["sources"]) and progress  # progress while it read
    declined = missing.structured_content
    assert not missing.is_error and declined["outcome"] == "declined" and declined["reason"], declined

    names = [Path(d["document"]).name for d in listed.structured_content["documents"]]
    assert "solar-cooperative.md" in names and all(d["status"] == "done" for d in listed.structured_content["documents"])
    assert templates[0].uri_template == "k2desk://{collection}/documents/{number}"
    assert "Henrike Albers" in resource.contents[0].text


def test_bad_calls_are_protocol_errors_and_the_server_stays_up(server_env):
    bad = bad_tool_calls("sample")

    async def steps(s):
        results = []
        for name, arguments in bad:
            results.append(await s.call_tool(name, arguments))
            again = await s.call_tool("search", {"query": "ferry", "limit": 1})  # still answering
            assert not again.is_error and again.structured_content["passages"]
        return results

    results = session_run(server_env, steps)
    assert len(results) == len(bad) >= 23
    for (name, arguments), result in zip(bad, results):
        assert result.is_error and result.content and result.content[0].text, (name, arguments, result)


def test_the_index_tool_is_offered_only_under_allowed_folders(server_env, tmp_path):
    async def steps(s):
        return {t.name: t for t in (await s.list_tools()).tools}

    assert "index" not in session_run(server_env, steps)
    tools = session_run(server_env, steps, ["--allow-index", str(tmp_path)])
    assert tools["index"].input_schema["required"] == ["paths"] and str(tmp_path) in tools["index"].description


def test_stdout_carries_nothing_but_json_rpc(server_env):
    """The raw stream a client reads: every line one JSON-RPC message, even while models load."""
    proc = subprocess.Popen([sys.executable, "-m", "k2desk", "mcp", "-c", "sample"], env=server_env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                                        "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "ferry"}}},
        "this is not json",
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    parsed = []
    try:
        for m in messages:
            proc.stdin.write((m if isinstance(m, str) else json.dumps(m)) + "\n")
            proc.stdin.flush()
        while {1, 2, 3} - {p.get("id") for p in parsed}:
            line = proc.stdout.readline()  # the test's own timeout bounds a server that never answers
            assert line, "the server closed stdout before answering"
            parsed.append(json.loads(line))  # a stray line would not parse
        proc.stdin.close()  # the client goes: the server ends
        proc.wait(timeout=60)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
    parsed += [json.loads(line) for line in out.splitlines() if line.strip()]
    assert all(p.get("jsonrpc") == "2.0" for p in parsed)
    by_id = {p.get("id"): p for p in parsed}
    assert "result" in by_id[1] and "result" in by_id[2] and "result" in by_id[3]
    assert "k2desk mcp: serving sample" in err and proc.returncode == 0  # what it says goes to stderr
