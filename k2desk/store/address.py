"""A collection's address: a file path (SQLite) or ``postgresql://…?collection=NAME`` (a server)."""

from __future__ import annotations

from pathlib import Path
from typing import Union

from k2desk.errors import StoreError
from k2desk.store.db import Database

SCHEMES = ("postgresql://", "postgres://")


def is_server_address(address: object) -> bool:
    """Whether ``address`` names a collection on a PostgreSQL server (not a file)."""
    return isinstance(address, str) and address.startswith(SCHEMES)


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
