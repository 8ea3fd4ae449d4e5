"""The official MCP client (the ``mcp`` SDK's ClientSession over stdio) against a real `k2desk mcp`
subprocess on the README's sample with the default models (issue 69): the tools with their
schemas, search without a model, fetch by id, ask with its verdict and sources (and progress), a
question the documents do not answer declined as data, errors as protocol errors with the server
up after each, the documents as resources, and nothing but JSON-RPC on stdout."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.serve.servers import bad_calls, bad_tool_calls, check_bad_calls, check_the_sample, mcp_session, the_sample

TIMEOUT = 600


@pytest.fixture(scope="module")
def server_env(sample_home, models_dir):
    return {"K2DESK_HOME": str(sample_home), "K2DESK_MODELS": str(models_dir), "PATH": "/usr/bin:/bin"}


def session_run(env, steps, options=()):
    """Start `k2desk mcp`, open the official client's session, run ``steps(session)``, return what it returns."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "k2desk", "mcp", "--collection", "sample", *options],
                                   env=env)
    return mcp_session(lambda: stdio_client(params), steps, TIMEOUT)


def documents(passages) -> list[str]:
    return [Path(p["document"]).name for p in passages]


@pytest.mark.slow
def test_search_fetch_ask_and_list_through_the_official_client(server_env):
    check_the_sample(session_run(server_env, the_sample))


def test_bad_calls_are_protocol_errors_and_the_server_stays_up(server_env):
    bad = bad_tool_calls("sample")
    check_bad_calls(bad, session_run(server_env, bad_calls(bad, "ferry")))


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
