"""`k2desk serve` is safe by default (issue 57): a real server on loopback over the test fixtures.
A foreign Host (DNS rebinding) or Origin is refused, no CORS header unless an origin was allowed,
a token when there is one, bodies bounded, and ≥ 50 malformed requests answered with OpenAI-style
errors while the server stays up."""

import json
import socket
import subprocess
import sys

import pytest

from tests.serve.servers import call, indexed_home, serving


@pytest.fixture(scope="module")
def settings(tmp_path_factory, models_dir, embedder):
    return indexed_home(tmp_path_factory.mktemp("serve-security"), models_dir)


@pytest.fixture(scope="module")
def server(settings):
    with serving(settings) as s:
        yield s


def is_error(body, code=None) -> bool:
    return isinstance(body, dict) and set(body) == {"error"} and {"message", "type", "code"} <= set(body["error"]) \
        and (code is None or body["error"]["code"] == code)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost.evil.example:{port}",
                                  "10.0.0.5:{port}", ""])
def test_a_foreign_host_header_is_refused(server, host):
    status, headers, body = call(server, "GET", "/v1/models", headers={"Host": host.format(port=server.options.port)})
    assert status == 403 and is_error(body, "host_not_allowed")


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_this_computers_names_are_served(server, host):
    status, _, body = call(server, "GET", "/v1/models", headers={"Host": host.format(port=server.options.port)})
    assert status == 200 and [m["id"] for m in body["data"]] == ["mixed", "mixed/hybrid"]


def test_no_cors_header_by_default_and_a_foreign_page_is_refused(server):
    for method in ("GET", "OPTIONS"):
        status, headers, body = call(server, method, "/v1/models", headers={
            "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
        assert status == 403 and is_error(body, "origin_not_allowed")
        assert not any(h.startswith("access-control-") for h in headers)
    status, headers, _ = call(server, "GET", "/v1/models")
    assert status == 200 and not any(h.startswith("access-control-") for h in headers)


def test_a_simple_cross_site_post_cannot_reach_the_model(server):
    # a web page may POST text/plain without a preflight: refused before any work
    status, _, body = call(server, "POST", "/v1/chat/completions", headers={"Content-Type": "text/plain"},
                           raw=json.dumps({"model": "mixed", "messages": [{"role": "user", "content": "hi"}]}).encode())
    assert status == 415 and is_error(body, "unsupported_media_type")


def test_an_allowed_origin_gets_cors_and_no_other(settings):
    with serving(settings, allow_origins=["http://localhost:3000"]) as server:
        status, headers, _ = call(server, "OPTIONS", "/v1/chat/completions", headers={
            "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type"})
        assert status == 200 and headers["access-control-allow-origin"] == "http://localhost:3000"
        status, headers, _ = call(server, "GET", "/v1/models", headers={"Origin": "http://localhost:3000"})
        assert status == 200 and headers["access-control-allow-origin"] == "http://localhost:3000"
        status, headers, _ = call(server, "GET", "/v1/models", headers={"Origin": "http://localhost:3001"})
        assert status == 403 and "access-control-allow-origin" not in headers


def test_with_a_token_a_request_needs_it(settings):
    with serving(settings, token="s3cret-token") as server:
        for auth in (None, "Bearer wrong-token", "s3cret-token", "Basic s3cret-token"):
            status, headers, body = call(server, "GET", "/v1/models", headers={"Authorization": auth})
            assert status == 401 and is_error(body, "invalid_api_key") and headers["www-authenticate"] == "Bearer"
        status, _, body = call(server, "GET", "/v1/models", headers={"Authorization": "Bearer s3cret-token"})
        assert status == 200 and body["data"]
        assert call(server, "GET", "/health")[0] == 200  # says nothing about the documents


def test_a_non_loopback_bind_without_a_token_refuses_to_start(settings, tmp_path):
    env = {"K2DESK_HOME": str(settings.home), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "k2desk", "serve", "--host", "0.0.0.0", "--port", "0"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "needs a token" in proc.stderr


def test_search_returns_passages_without_the_model(server):
    status, _, body = call(server, "POST", "/v1/search", {"model": "mixed", "query": "lighthouse keeper", "top_k": 3})
    assert status == 200 and 1 <= len(body["data"]) <= 3
    assert body["data"][0]["document"].endswith("lighthouse.txt") and body["data"][0]["index"] == 1
    status, _, body = call(server, "GET", "/v1/documents")
    assert status == 200 and any(d["id"].endswith("minutes.docx") and d["status"] == "done" for d in body["data"])


def test_indexing_from_a_request_is_off_unless_allowed(server, settings, tmp_path):
    status, _, body = call(server, "POST", "/v1/documents", {"model": "mixed", "paths": [str(tmp_path)]})
    assert status == 403 and is_error(body, "indexing_not_allowed")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "note.txt").write_text("The boathouse key hangs behind the blue door of the Kestrel Rowing Club.")
    with serving(settings, allow_index=[allowed]) as s:
        status, _, body = call(s, "POST", "/v1/documents", {"model": "mixed", "paths": [str(settings.home)]})
        assert status == 403 and is_error(body, "path_not_allowed")
        status, _, body = call(s, "POST", "/v1/documents", {"model": "mixed", "paths": [str(allowed / ".." / "..")]})
        assert status == 403 and is_error(body, "path_not_allowed")
        status, _, body = call(s, "POST", "/v1/documents", {"model": "mixed", "paths": [str(allowed)]})
        assert status == 200 and body["added"] == [str((allowed / "note.txt").resolve())]


# ≥ 50 malformed requests: (method, path, headers, raw body, the status expected)
CHAT = "/v1/chat/completions"
JSON = {"Content-Type": "application/json"}
MALFORMED = [
    ("POST", CHAT, JSON, b"", 400), ("POST", CHAT, JSON, b"{", 400), ("POST", CHAT, JSON, b"null", 400),
    ("POST", CHAT, JSON, b"[]", 400), ("POST", CHAT, JSON, b"42", 400), ("POST", CHAT, JSON, b'"text"', 400),
    ("POST", CHAT, JSON, b"\xff\xfe\x00", 400), ("POST", CHAT, JSON, b"{}", 400),
    ("POST", CHAT, JSON, b'{"model": "mixed"}', 400), ("POST", CHAT, JSON, b'{"model": "mixed", "messages": []}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": "hi"}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [1, 2]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"content": "hi"}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "wizard", "content": "hi"}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "user", "content": 7}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "user", "content": {"a": 1}}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "user", "content": ""}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "user", "content": "   "}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "assistant", "content": "hi"}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "system", "content": "be brief"}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "mixed", "messages": [{"role": "user", "content": "hi"}], "stream": "yes"}', 400),
    ("POST", CHAT, JSON, json.dumps({"model": "mixed", "messages": [{"role": "user", "content": "x" * 5000}]}).encode(), 400),
    ("POST", CHAT, JSON, json.dumps({"model": "mixed", "messages": [{"role": "user", "content": "hi"}] * 65}).encode(), 400),
    ("POST", CHAT, JSON, json.dumps({"model": "mixed", "messages": [{"role": "user", "content": "x" * 40000}]}).encode(), 400),
    ("POST", CHAT, JSON, b'{"model": "nope", "messages": [{"role": "user", "content": "hi"}]}', 404),
    ("POST", CHAT, JSON, b'{"model": "mixed/no-such-method", "messages": [{"role": "user", "content": "hi"}]}', 404),
    ("POST", CHAT, JSON, b'{"model": 5, "messages": [{"role": "user", "content": "hi"}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "", "messages": [{"role": "user", "content": "hi"}]}', 400),
    ("POST", CHAT, JSON, b'{"model": "../../etc/passwd", "messages": [{"role": "user", "content": "hi"}]}', 404),
    ("POST", CHAT, JSON, b"{" + b'"a": [' * 2000 + b"]" * 2000 + b"}", 400),
    ("POST", CHAT, JSON, b" " * (1 << 20) + b"{}", 413),
    ("POST", CHAT, {**JSON, "Content-Length": "99999999"}, b"{}", 413),
    ("POST", CHAT, {"Content-Type": "text/plain"}, b"{}", 415), ("POST", CHAT, {"Content-Type": None}, b"{}", 415),
    ("POST", CHAT, {"Content-Type": "application/x-www-form-urlencoded"}, b"a=b", 415),
    ("POST", CHAT, {"Content-Type": "multipart/form-data; boundary=x"}, b"--x--", 415),
    ("GET", CHAT, {}, None, 405), ("PUT", CHAT, JSON, b"{}", 405), ("DELETE", "/v1/models", {}, None, 405),
    ("GET", "/v1/nothing", {}, None, 404), ("GET", "/", {}, None, 404), ("GET", "/v1/models/nope", {}, None, 404),
    ("GET", "/v1/documents?model=nope", {}, None, 404), ("GET", "/../../etc/passwd", {}, None, 404),
    ("POST", "/v1/search", JSON, b'{"model": "mixed"}', 400),
    ("POST", "/v1/search", JSON, b'{"model": "mixed", "query": ""}', 400),
    ("POST", "/v1/search", JSON, b'{"model": "mixed", "query": "x", "top_k": 0}', 400),
    ("POST", "/v1/search", JSON, b'{"model": "mixed", "query": "x", "top_k": 1000}', 400),
    ("POST", "/v1/search", JSON, b'{"model": "mixed", "query": "x", "top_k": "5"}', 400),
    ("POST", "/v1/search", JSON, b'{"model": "mixed", "query": "x", "top_k": true}', 400),
    ("POST", "/v1/search", JSON, b'{"model": "mixed", "query": ["x"]}', 400),
    ("POST", "/v1/search", JSON, json.dumps({"model": "mixed", "query": "x" * 5000}).encode(), 400),
    ("POST", "/v1/documents", JSON, b'{"model": "mixed", "paths": ["/etc"]}', 403),
    ("POST", "/v1/search", {**JSON, "Authorization": "Bearer x"}, b"{", 400),
]


def test_malformed_requests_get_openai_errors_and_the_server_stays_up(server):
    assert len(MALFORMED) >= 50
    for n, (method, path, headers, raw, expected) in enumerate(MALFORMED):
        status, _, body = call(server, method, path, headers=headers, raw=raw)
        assert (status, is_error(body)) == (expected, True), (n, method, path, raw[:80] if raw else raw, status, body)
    assert call(server, "GET", "/health")[0] == 200


@pytest.mark.parametrize("garbage", [
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,  # a TLS hello
    b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET /v1/models HTTP/1.1\r\nHost: a\r\n" + b"X: " + b"y" * 70000 + b"\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n",
])
def test_broken_http_does_not_stop_the_server(server, garbage):
    with socket.create_connection(("127.0.0.1", server.options.port), timeout=10) as sock:
        sock.sendall(garbage)
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        try:
            while chunk := sock.recv(65536):
                reply += chunk
        except ConnectionResetError:  # refused before all of it was read: the kernel resets the connection
            pass
    assert reply == b"" or reply.startswith(b"HTTP/1.1 4")
    assert call(server, "GET", "/health")[0] == 200
