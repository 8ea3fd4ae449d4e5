"""Running `k2desk serve` on uvicorn: from the command line (Ctrl-C or SIGTERM: the answers in
flight get a few seconds to finish, then are cancelled, each request told so), or from the app (a
thread)."""

from __future__ import annotations

import asyncio
import errno
import socket
import sys
import threading
from typing import Optional, TextIO

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from k2desk.config import Settings
from k2desk.errors import UsageError
from k2desk.serve.app import Service, make_app
from k2desk.serve.options import ServeOptions

DRAIN_SECONDS = 10  # on Ctrl-C / SIGTERM, answers in flight finish within this or are cancelled
BACKSTOP_SECONDS = 5  # then uvicorn cancels what still runs
CONNECTIONS_MAX = 64  # open connections at once (beyond: 503 from uvicorn)
HEADERS_MAX = 16 * 1024  # bytes of a request's line and headers


def bind(options: ServeOptions) -> socket.socket:
    """The listening socket (``options.port`` 0: a free port, written back); one line on failure."""
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((options.host.strip("[]"), options.port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"port {options.port} on {options.host} is in use: choose another with --port") from None
        raise UsageError(f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}") from None
    sock.listen(128)
    options.port = sock.getsockname()[1]
    return sock


class _Uvicorn(uvicorn.Server):
    """uvicorn, whose shutdown cancels the jobs still running after DRAIN_SECONDS: each request
    then ends with its own error ("the server is stopping") instead of being cut."""

    service: Service

    async def shutdown(self, sockets: Optional[list[socket.socket]] = None) -> None:
        loop = asyncio.get_running_loop()
        later = loop.call_later(DRAIN_SECONDS, lambda: loop.run_in_executor(None, self.service.jobs.close))
        for stop in self.service.stopping:  # an MCP client's open event stream would hold the drain to its end
            await stop()
        try:
            await super().shutdown(sockets)
        finally:
            later.cancel()


class Server:
    """A k2desk server: the app on uvicorn, on its own bound socket."""

    def __init__(self, settings: Settings, options: ServeOptions) -> None:
        self.options = options.check()
        self.sock = bind(self.options)
        self.service = Service(settings, self.options)
        config = uvicorn.Config(make_app(self.service), http=H11Protocol, ws="none", loop="asyncio", lifespan="on",
                                log_level="warning", access_log=False, server_header=False,
                                timeout_keep_alive=5, limit_concurrency=CONNECTIONS_MAX,
                                h11_max_incomplete_event_size=HEADERS_MAX,
                                timeout_graceful_shutdown=DRAIN_SECONDS + BACKSTOP_SECONDS)
        self.uvicorn = _Uvicorn(config)
        self.uvicorn.service = self.service
        self._thread: Optional[threading.Thread] = None

    @property
    def served(self) -> int:
        """Requests answered (health checks aside)."""
        return self.service.served

    def run(self) -> None:
        """Serve until Ctrl-C / SIGTERM (on the main thread) or ``stop()``."""
        try:
            self.uvicorn.run(sockets=[self.sock])
        finally:
            self.service.close()
            self.sock.close()

    def start(self) -> None:
        """Serve on a thread (the app's switch)."""
        self._thread = threading.Thread(target=self.run, name="k2desk-serve", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = DRAIN_SECONDS + BACKSTOP_SECONDS + 5) -> None:
        self.uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def started(self) -> bool:
        return bool(self.uvicorn.started)


def describe(options: ServeOptions, out: TextIO = sys.stdout) -> None:
    """The lines `k2desk serve` starts with: where, what, how to connect."""
    print(f"k2desk serves {', '.join(options.collections)} at {options.base_url}", file=out)
    print(f"  models: {', '.join(options.collections)} (and COLLECTION/METHOD, e.g. {options.collections[0]}/hybrid)",
          file=out)
    print(f"  MCP (Streamable HTTP): {options.mcp_url}", file=out)
    print("  token: " + ("required (Authorization: Bearer …)" if options.token else "none (this computer only)"), file=out)
    if options.allow_origins:
        print(f"  browsers from: {', '.join(options.allow_origins)}", file=out)
    if options.allow_index:
        print(f"  may index under: {', '.join(map(str, options.allow_index))}", file=out)
    print("  Ctrl-C stops it.", file=out, flush=True)
