"""A collection's address: a file path (SQLite) or ``postgresql://…?collection=NAME`` (a server)."""

from __future__ import annotations

from pathlib import Path
from typing import Union
from urllib.parse import urlsplit

from k2desk.errors import StoreError
from k2desk.store.db import Database

SCHEMES = ("postgresql://", "postgres://")


def is_server_address(address: object) -> bool:
    """Whether ``address`` names a collection on a PostgreSQL server (not a file)."""
    return isinstance(address, str) and address.startswith(SCHEMES)


def shown_address(address: Union[str, Path]) -> str:
    """An address as it may be shown or printed: a server's without its password."""
    if not is_server_address(address):
        return str(address)
    parts = urlsplit(str(address))
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = user.partition(":")[0] + "@" + host
    query = "&".join(p for p in parts.query.split("&") if p and p.partition("=")[0] != "password")
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def open_database(address: Union[str, Path], readonly: bool = False):
    """The collection at ``address``: a ``Database`` for a file, a ``PostgresDatabase`` for a
    server (the optional dependencies of ``k2desk[postgres]``)."""
    if not is_server_address(address):
        return Database(address, readonly)
    try:
        from k2desk.store.postgres import PostgresDatabase
    except ImportError as exc:
        raise StoreError(f"a collection on a PostgreSQL server needs psycopg and pgvector ({exc.name} is missing): "
                         "pip install 'k2desk[postgres]'") from exc
    return PostgresDatabase(str(address), readonly)
