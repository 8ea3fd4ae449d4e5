"""What the person allowed a server to do, checked before it starts (safe by default)."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

from k2desk.errors import UsageError

DEFAULT_PORT = 8484
TOKEN_ENV = "K2DESK_SERVE_TOKEN"  # the token from the environment (it does not show in `ps`)
BODY_MAX = 1 << 20  # bytes of a request's body
MESSAGES_MAX = 64  # messages in one chat request
QUEUE_MAX = 4  # requests waiting for the model behind the one it answers (beyond: 429)
TOP_K_MAX = 50  # passages one search returns at most


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or "localhost") can only be reached from this computer."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def index_folders(folders: list[Path]) -> list[Path]:
    """The folders given to --allow-index, resolved; one line for one that is not a folder."""
    resolved = []
    for folder in folders:
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise UsageError(f"--allow-index {folder}: not a folder")
        resolved.append(path)
    return resolved


def may_index(path: str, folders: list[Path]) -> bool:
    """Whether ``path`` lies under one of ``folders`` (resolved: no way out through .. or a link)."""
    target = Path(path).expanduser().resolve()
    return any(target == f or f in target.parents for f in folders)


@dataclass
class ServeOptions:
    collections: list[str]
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str = ""
    allow_origins: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)  # names a client may use for this computer (its DNS name)
    allow_index: list[Path] = field(default_factory=list)  # folders a request may index (none: no request indexes)
    queue: int = QUEUE_MAX
    body_max: int = BODY_MAX
    messages_max: int = MESSAGES_MAX
    method: str = "k2rag"

    def check(self) -> "ServeOptions":
        """Refuse, in one line, what would open the documents to more than the person meant."""
        self.token = self.token or os.environ.get(TOKEN_ENV, "")
        if not self.collections:
            raise UsageError("no collection to serve: index a folder first (`k2desk index PATH`), or name one with --collection")
        if not is_loopback(self.host) and not self.token:
            raise UsageError(f"--host {self.host} can be reached from other computers; serving there needs a token "
                             f"(--token T, or {TOKEN_ENV}), which every request must then carry")
        if self.token and (len(self.token) < 8 or any(c.isspace() for c in self.token)):
            raise UsageError("the token must be at least 8 characters, without spaces")
        if not 0 <= self.port <= 65535:
            raise UsageError(f"--port {self.port} is not a port (0-65535)")
        for origin in self.allow_origins:
            if origin == "*" or "://" not in origin:
                raise UsageError(f"--allow-origin {origin!r}: name an origin as a browser sends it, "
                                 "e.g. http://localhost:3000 (no wildcard)")
        self.allow_index = index_folders(self.allow_index)
        return self

    def may_index(self, path: str) -> bool:
        """Whether a request may index ``path``: it lies under a folder given to --allow-index."""
        return may_index(path, self.allow_index)

    @property
    def root_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def mcp_url(self) -> str:
        """The Model Context Protocol's Streamable HTTP address."""
        return f"{self.root_url}/mcp"
