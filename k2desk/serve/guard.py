"""What every request passes before a route sees it (an ASGI middleware): its ``Host`` names the
address it was served on (no DNS rebinding), a browser's ``Origin`` is one the person allowed, the
token when there is one, a JSON body for a POST (a foreign web page cannot send one without the
CORS preflight that is refused), and the body's declared size. Each refusal is an OpenAI-style
error object."""

from __future__ import annotations

import hmac
import json
from typing import Any, Awaitable, Callable

from k2desk.serve.options import ServeOptions, is_loopback
from k2desk.serve.wire import error_body

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]
OPEN_PATHS = {"/health"}  # answered without the token (it says nothing about the documents)


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


def _host_name(host: str) -> tuple[str, str]:
    """"127.0.0.1:8484" -> ("127.0.0.1", "8484"); "[::1]:80" -> ("::1", "80")."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name, rest.lstrip(":")
    name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    return (name, port) if name else (host, "")


class Guard:
    def __init__(self, app: ASGIApp, options: ServeOptions) -> None:
        self.app = app
        self.options = options

    def host_allowed(self, host: str, scope: Scope) -> bool:
        """``Host`` names this server: the address the connection reached (loopback: "localhost"
        too) or a name given with --allow-host, and the port it listens on."""
        if not host:
            return False
        name, port = _host_name(host)
        server = scope.get("server") or (self.options.host, self.options.port)
        local, listening = str(server[0]).lower(), str(server[1])
        if port and port != listening:
            return False
        if not port and listening != "80":
            return False
        names = {local, self.options.host.lower().strip("[]"), *(h.lower() for h in self.options.allow_hosts)}
        if is_loopback(local):
            names |= {"localhost", "127.0.0.1", "::1"}
        names.discard("0.0.0.0")
        names.discard("::")
        return name in names

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            status, message, code, headers = refusal
            await _send_error(send, status, message, code, headers)
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> tuple[int, str, str, dict[str, str]] | None:
        host = _header(scope, b"host")
        if not self.host_allowed(host, scope):
            return 403, f"this server does not answer for host {host!r}", "host_not_allowed", {}
        origin = _header(scope, b"origin")
        if origin and origin not in self.options.allow_origins:
            return 403, f"origin {origin!r} is not allowed (start the server with --allow-origin {origin})", \
                "origin_not_allowed", {}
        if scope["method"] == "OPTIONS":  # a preflight from an allowed origin: the CORS middleware answers it
            return None
        if self.options.token and scope["path"] not in OPEN_PATHS:
            auth = _header(scope, b"authorization")
            scheme, _, given = auth.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.options.token.encode()):
                return 401, "a valid token is needed (Authorization: Bearer TOKEN)", "invalid_api_key", \
                    {"WWW-Authenticate": "Bearer"}
        if scope["method"] == "POST":
            kind = _header(scope, b"content-type").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, "the body must be JSON (Content-Type: application/json)", "unsupported_media_type", {}
            length = _header(scope, b"content-length")
            if length and (not length.isdigit() or int(length) > self.options.body_max):
                return 413, f"the body is larger than {self.options.body_max:,} bytes", "request_too_large", {}
        return None


async def _send_error(send: Callable, status: int, message: str, code: str, headers: dict[str, str]) -> None:
    body = json.dumps(error_body(status, message, code)).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
