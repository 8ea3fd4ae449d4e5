"""Nothing leaves the machine: index, ask and the desktop app's start, each a real subprocess under
`strace -f -e trace=connect` (native libraries included: onnxruntime, llama.cpp, Qt), fail on any
connect() to a non-loopback address. The child gets none of k2desk's privacy switches from the
environment, so k2desk has to set them itself (onnxruntime >= 1.29 sends telemetry otherwise).

strace comes from scripts/setup.sh (installed when missing and run as root, as in CI).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from k2desk import PRIVACY_ENV

FIXTURES = Path(__file__).parent / "fixtures"
_INET = re.compile(r'connect\(\d+, \{sa_family=AF_INET6?, (?:sin6?_port=htons\((\d+)\)).*?'
                   r'(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")')


def outside_connects(trace: str) -> list[str]:
    """The connect() lines of an strace log that reach beyond this machine (or look a name up)."""
    found = []
    for line in trace.splitlines():
        m = _INET.search(line)
        if not m:
            continue
        port, addr = int(m.group(1)), ipaddress.ip_address(m.group(2) or m.group(3))
        mapped = getattr(addr, "ipv4_mapped", None)
        if not (mapped or addr).is_loopback or port == 53:
            found.append(line.strip())
    return found


@pytest.fixture(scope="module")
def strace():
    path = shutil.which("strace")
    if path is None:
        pytest.fail("strace is missing: scripts/setup.sh installs it (as root), or `apt-get install strace`", pytrace=False)
    return path


def traced(strace: str, tmp_path: Path, argv: list[str], env: dict, timeout: int = 600) -> tuple[subprocess.CompletedProcess, list[str]]:
    log = tmp_path / f"strace-{len(list(tmp_path.glob('strace-*')))}.log"
    proc = subprocess.run([strace, "-f", "-qq", "-e", "trace=connect", "-o", str(log), *argv], env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc, outside_connects(log.read_text(errors="replace"))


@pytest.fixture
def clean_env(tmp_path, models_dir):
    """The environment of a person who never heard of these switches."""
    env = {k: v for k, v in os.environ.items() if k not in PRIVACY_ENV}
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": 2, "llm": "smollm2-135m"}))
    return {**env, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir), "QT_QPA_PLATFORM": "offscreen"}


def test_the_detector_sees_an_outside_connect(strace, tmp_path):
    probe = ("import socket; s = socket.socket(); s.settimeout(0.2); s.connect_ex(('192.0.2.1', 9)); "
             "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.connect(('127.0.0.1', 9))")
    _, found = traced(strace, tmp_path, [sys.executable, "-c", probe], dict(os.environ), timeout=60)
    assert len(found) == 1 and "192.0.2.1" in found[0]


def test_index_ask_and_the_desktop_app_connect_to_nothing_outside(strace, tmp_path, clean_env, embedder, tiny_llm_path):
    from tests.ingest.office_folder import CONTRACT_PAGES, scanned_pdf, slides

    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", folder)
    (folder / "scan.pdf").write_bytes(scanned_pdf(CONTRACT_PAGES[:1]))  # read by OCR: its library could fetch models
    slides(folder / "board.pptx")  # from a hub; here it must use the manifest's, and nothing else leaves
    k2desk = [sys.executable, "-m", "k2desk"]

    proc, found = traced(strace, tmp_path, [*k2desk, "index", str(folder)], clean_env)
    assert proc.returncode == 0, proc.stderr
    assert found == [], f"index connected outside: {found[:3]}"

    proc, found = traced(strace, tmp_path, [*k2desk, "ask", "What is the chess club's membership?", "--method", "hybrid",
                                            "--json"], clean_env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["answer"]
    assert found == [], f"ask connected outside: {found[:3]}"

    gui_env = {**clean_env, "K2DESK_GUI_SELFTEST": "Who keeps the lighthouse?"}
    proc, found = traced(strace, tmp_path, k2desk, gui_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["ok"] is True
    assert found == [], f"the desktop app connected outside: {found[:3]}"


def test_serve_connects_to_nothing_outside(strace, tmp_path, clean_env, embedder, tiny_llm_path):
    """`k2desk serve` under strace: started, asked (a chat completion and a search) from this
    process over loopback, stopped with SIGTERM; its connect() calls stay on this machine."""
    import psutil

    from tests.serve.servers import call

    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", folder)
    k2desk = [sys.executable, "-m", "k2desk"]
    assert subprocess.run([*k2desk, "index", str(folder)], env=clean_env, capture_output=True, timeout=600).returncode == 0
    log = tmp_path / "strace-serve.log"
    proc = subprocess.Popen([strace, "-f", "-qq", "-e", "trace=connect", "-o", str(log), *k2desk, "serve", "--port", "0"],
                            env=clean_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/v1", first).group(1))

        class At:  # what tests/serve/servers.call reads of a server
            options = type("Options", (), {"port": port})

        status, _, body = call(At, "POST", "/v1/chat/completions", {
            "model": "default/hybrid", "messages": [{"role": "user", "content": "Who keeps the lighthouse?"}]})
        assert status == 200 and body["sources"], body
        assert call(At, "POST", "/v1/search", {"model": "default", "query": "lighthouse"})[0] == 200
        server = next(p for p in psutil.Process(proc.pid).children() if "serve" in " ".join(p.cmdline()))
        server.terminate()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "stopped after 2 request(s)" in out, out + err
    found = outside_connects(log.read_text(errors="replace"))
    assert found == [], f"serve connected outside: {found[:3]}"


def test_mcp_connects_to_nothing_outside(strace, tmp_path, clean_env, embedder, tiny_llm_path):
    """`k2desk mcp` under strace: a client's JSON-RPC on its stdin (initialize, a search, an
    answer), then the client goes; its connect() calls stay on this machine."""
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", folder)
    k2desk = [sys.executable, "-m", "k2desk"]
    assert subprocess.run([*k2desk, "index", str(folder)], env=clean_env, capture_output=True, timeout=600).returncode == 0
    calls = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "lighthouse"}}},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "ask", "arguments": {"question": "Who keeps the lighthouse?"}}}]
    log = tmp_path / "strace-mcp.log"
    proc = subprocess.Popen([strace, "-f", "-qq", "-e", "trace=connect", "-o", str(log), *k2desk, "mcp", "--method", "hybrid"],
                            env=clean_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answered = {}
    try:
        for call in calls:
            proc.stdin.write(json.dumps(call) + "\n")
            proc.stdin.flush()
        while {1, 2, 3} - set(answered):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            message = json.loads(line)
            answered[message.get("id")] = message
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert answered[2]["result"]["structuredContent"]["passages"] and answered[3]["result"]["structuredContent"]["answer"]
    assert proc.returncode == 0
    found = outside_connects(log.read_text(errors="replace"))
    assert found == [], f"mcp connected outside: {found[:3]}"
