"""A collection's address: a file path (SQLite) or ``postgresql://…?collection=NAME`` (a server)."""

from __future__ import annotations

import re
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


def _postgres():
    """``k2desk.store.postgres``, or a one-line error naming the optional dependency that is missing."""
    try:
        from k2desk.store import postgres
    except ImportError as exc:
        raise StoreError(f"a collection on a PostgreSQL server needs psycopg and pgvector ({exc.name} is missing): "
                         "pip install 'k2desk[postgres]'") from exc
    return postgres


def open_database(address: Union[str, Path], readonly: bool = False):
    """The collection at ``address``: a ``Database`` for a file, a ``PostgresDatabase`` for a
    server (the optional dependencies of ``k2desk[postgres]``)."""
    if not is_server_address(address):
        return Database(address, readonly)
    return _postgres().PostgresDatabase(str(address), readonly)


def check_server_address(address: str) -> None:
    """A one-line ``StoreError`` when libpq cannot read ``address`` (or its collection's name is not
    one a server can hold), without contacting the server: a settings dialog must not wait on the
    network. The password is masked in the message (libpq quotes the part it cannot read)."""
    postgres = _postgres()
    conninfo, _ = postgres.split_address(address)
    try:
        postgres.psycopg.conninfo.conninfo_to_dict(conninfo)
    except postgres.psycopg.ProgrammingError as exc:
        userinfo = re.match(r"^[a-z]+://([^@/?]*)@", address)
        password = userinfo.group(1).partition(":")[2] if userinfo else ""
        line = postgres._line(exc)
        raise StoreError("not a PostgreSQL server's address: " + (line.replace(password, "***") if password else line)) from exc


def server_collections(store: str) -> list[str]:
    """The collections on the server ``store`` names (its schemas holding k2desk's tables: another
    program's ``schema_version`` alone is not one), for the app's list; the one-line error of
    opening one when the server cannot be reached."""
    postgres = _postgres()
    conninfo, _ = postgres.split_address(store)
    try:
        with postgres.psycopg.connect(conninfo, connect_timeout=10, application_name="k2desk") as conn:
            rows = conn.execute("SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                                "WHERE c.relname IN ('schema_version', 'meta', 'documents') AND c.relkind = 'r' "
                                "GROUP BY n.nspname HAVING count(*) = 3 ORDER BY 1").fetchall()
    except postgres.psycopg.Error as exc:
        raise StoreError(f"cannot reach the collection's server {postgres._shown(conninfo)}: {postgres._line(exc)}") from exc
    return [name for (name,) in rows]
