"""File → "Serve this collection on this computer" (issues 57, 69): off by default; on, the open
collection answers on loopback through the OpenAI API and MCP, the status bar names both
addresses, that no token is needed, and counts the requests served; off, the port closes; closing the window stops it."""

import socket

import pytest

from k2desk.serve.options import DEFAULT_PORT
from tests.serve.servers import ACCEPT, INITIALIZE, call


@pytest.fixture
def win(indexed_window, settings, folder):
    return indexed_window(settings, [folder])


def test_the_switch_serves_the_open_collection_and_counts_its_requests(qtbot, win):
    switch = win.serve_switch
    assert switch.action in win.menuBar().actions()[0].menu().actions()
    assert not switch.action.isChecked() and not switch.label.isVisible()
    switch.action.setChecked(True)
    server = switch.server
    assert server is not None and server.options.host == "127.0.0.1" and server.options.collections == ["default"]
    qtbot.waitUntil(lambda: server.started, timeout=30_000)
    assert server.options.port == DEFAULT_PORT or server.options.port > 0
    assert switch.label.isVisible() and server.options.root_url in switch.label.text()
    assert "/v1: OpenAI API" in switch.label.text() and "/mcp: MCP" in switch.label.text()
    assert server.options.base_url in switch.label.toolTip() and server.options.mcp_url in switch.label.toolTip()
    assert "no token" in switch.label.text() and "0 requests served" in switch.label.text()
    status, _, body = call(server, "POST", "/v1/search", {"model": "default", "query": "lighthouse keeper"})
    assert status == 200 and body["data"][0]["document"].endswith("lighthouse.txt")
    qtbot.waitUntil(lambda: "1 request served" in switch.label.text(), timeout=10_000)
    status, headers, _ = call(server, "POST", "/mcp", INITIALIZE, {"Accept": ACCEPT})  # MCP on the same switch
    assert status == 200 and headers["mcp-session-id"]
    qtbot.waitUntil(lambda: "2 requests served" in switch.label.text(), timeout=10_000)
    port = server.options.port
    switch.action.setChecked(False)
    assert switch.server is None and not switch.label.isVisible()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    switch.action.setChecked(True)  # on again, then the window closes: the server stops with it
    port = switch.server.options.port
    qtbot.waitUntil(lambda: switch.server.started, timeout=30_000)
    win.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_a_taken_port_serves_on_a_free_one(qtbot, win):
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server's own (a closed one may linger)
        try:
            taken.bind(("127.0.0.1", DEFAULT_PORT))
            taken.listen()
        except OSError:
            pass  # another program listens there: the same case
        win.serve_switch.action.setChecked(True)
        server = win.serve_switch.server
        assert server is not None and server.options.port != DEFAULT_PORT
        win.serve_switch.stop()
