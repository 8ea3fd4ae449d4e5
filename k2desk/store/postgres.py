"""A collection on a PostgreSQL server with pgvector: the same methods as ``Database`` (the SQLite
file), for a team's shared index.

The address is a libpq URI with the collection's name as one more parameter,
``postgresql://user@host/dbname?collection=work`` (default ``default``): each collection is one
schema of that database, with the numbered migrations of ``schema/pg`` (the twins of the SQLite
file's, version for version) and its own ``schema_version`` and ``meta``. pgvector's type lives
in the schema the extension was created in, which is on the connection's search path after the
collection's.

Statements are written with ``?`` placeholders, as for SQLite, and run with ``%s`` (so a
statement must hold no literal ``?``; a ``%`` is sent as it is). The connection runs in
autocommit mode, as apsw does outside ``transaction()``; ``transaction()`` nests as savepoints.
Results come in binary form; a ``vector`` column reads as the float32 bytes sqlite-vec stores, so
the vector code reads both backends' rows alike. Needs PostgreSQL 16 or later
(``pg_input_is_valid``) and pgvector. One connection per thread, as with SQLite.

PostgreSQL's ``text`` cannot hold the character U+0000 (NUL), which a SQLite file keeps: a NUL in
any text written (or looked up) is stored as U+FFFD, the replacement character, one character for
one so that the chunks' offsets into their document's text still hold. The readers already drop
control characters from documents' text; the rule keeps a title, a corpus record's fields, a
model's output or a copied file's rows from failing a write.

Several processes may write one collection. A process claims a document's stage while it builds
it (``try_claim``: a session advisory lock, which the server releases when the session ends, a
killed process's included). Every transaction that logs vectors first takes the collection's
write lock (``write_lock``: a transaction advisory lock, held until it commits), so the
``vector_log`` numbers are drawn in the order their transactions commit and an in-memory copy
that has read up to one number has seen every vector logged below it.
"""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator, Optional, Sequence
from urllib.parse import unquote

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql as pgsql
from psycopg.adapt import Loader
from psycopg.pq import Format, TransactionStatus

from k2desk.errors import StoreError
from k2desk.store.db import migrations
from k2desk.store.dialect import POSTGRES

DEFAULT_COLLECTION = "default"  # as the command line's default collection
OPEN_LOCK = 0x6B32_6465_736B  # pg_advisory_xact_lock key while a collection is created or migrated
MAX_NAME = 63  # PostgreSQL's longest identifier


def split_address(address: str) -> tuple[str, str]:
    """(libpq connection URI, collection name) of a collection's address."""
    base, _, query = address.partition("?")
    keep, names = [], []
    for pair in (p for p in query.split("&") if p):
        key, _, value = pair.partition("=")
        (names.append(unquote(value)) if unquote(key) == "collection" else keep.append(pair))
    name = names[-1] if names else DEFAULT_COLLECTION
    if not name or len(name) > MAX_NAME or not (name[0].isalpha() or name[0] == "_") \
            or not all(c.isalnum() or c == "_" for c in name) or not name.isascii() or name != name.lower():
        raise StoreError(f"a collection's name on a server is lower-case letters, digits and _ (at most {MAX_NAME}), "
                         f"not {name!r}")
    return base + ("?" + "&".join(keep) if keep else ""), name


def _shown(conninfo: str) -> str:
    """Where a connection goes, without its password (for messages)."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return "the server"
    return f"{info.get('host') or 'localhost'}/{info.get('dbname') or info.get('user') or ''}"


def _line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


NUL, REPLACEMENT = "\x00", "\ufffd"


def without_nul(value: Any) -> Any:
    """A text with each NUL replaced by U+FFFD (PostgreSQL's text refuses NUL); any other value as it is."""
    return value.replace(NUL, REPLACEMENT) if isinstance(value, str) and NUL in value else value


def _params(params: Sequence[Any]) -> Sequence[Any]:
    if any(isinstance(p, str) and NUL in p for p in params):
        return [without_nul(p) for p in params]
    return params


@lru_cache(maxsize=4096)
def _statement(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class _VectorBytes(Loader):
    """A vector read as sqlite-vec stores one: its float32 values' bytes."""

    format = Format.TEXT

    def load(self, data: Any) -> bytes:
        text = bytes(data).decode("ascii").strip("[]")
        return np.array(text.split(",") if text else [], dtype=np.float32).tobytes()


class _VectorBytesBinary(Loader):
    format = Format.BINARY

    def load(self, data: Any) -> bytes:  # int16 dimension, int16 unused, big-endian float32 values
        return np.frombuffer(bytes(data), dtype=">f4", offset=4).astype(np.float32).tobytes()


class PostgresDatabase:
    dialect = POSTGRES

    def __init__(self, address: str, readonly: bool = False) -> None:
        self.address = address
        conninfo, self.schema = split_address(address)
        where = _shown(conninfo)
        self._last: Optional[psycopg.Cursor] = None
        try:
            self.conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=10, application_name="k2desk")
        except psycopg.Error as exc:
            raise StoreError(f"cannot reach the collection's server {where}: {_line(exc)}") from exc
        try:
            self._open(where, readonly)
        except psycopg.Error as exc:
            self.close()
            raise StoreError(f"cannot open collection {self.schema} on {where}: {_line(exc)}") from exc
        except StoreError:
            self.close()
            raise

    def _open(self, where: str, readonly: bool) -> None:
        if readonly:
            if self._raw("SELECT 1 FROM pg_namespace WHERE nspname = %s", (self.schema,)) is None:
                raise StoreError(f"no collection {self.schema} on {where}")
            self._search_path(where)
            self.conn.execute("SET default_transaction_read_only = on")
        else:
            with self.conn.transaction():
                self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (OPEN_LOCK,))
                if self._raw("SELECT 1 FROM pg_extension WHERE extname = 'vector'") is None:
                    try:
                        with self.conn.transaction():
                            self.conn.execute("CREATE EXTENSION vector")
                    except psycopg.Error as exc:
                        raise StoreError(f"the server {where} has no pgvector ({_line(exc)}): install the extension "
                                         "there, or ask its administrator to run CREATE EXTENSION vector") from exc
                self.conn.execute(pgsql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(pgsql.Identifier(self.schema)))
                self._search_path(where)
                self._migrate()
        self.conn.adapters.register_loader(self._vector_oid, _VectorBytes)
        self.conn.adapters.register_loader(self._vector_oid, _VectorBytesBinary)
        self.uid = self.get_meta("uid") or ""

    def _search_path(self, where: str) -> None:
        row = self._raw("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                        "WHERE e.extname = 'vector'")
        if row is None:
            raise StoreError(f"the server {where} has no pgvector: ask its administrator to run CREATE EXTENSION vector")
        self.conn.execute(pgsql.SQL("SET search_path TO {}, {}").format(pgsql.Identifier(self.schema), pgsql.Identifier(row[0])))
        register_vector(self.conn)
        self._vector_oid = psycopg.types.TypeInfo.fetch(self.conn, "vector").oid

    def _raw(self, sql: str, params: Sequence[Any] = ()) -> Optional[tuple]:
        return self.conn.execute(sql, params).fetchone()

    # -- migrations --------------------------------------------------------------------
    def _migrate(self) -> None:
        self.conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                          "name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)")
        done = {row[0] for row in self.conn.execute("SELECT version FROM schema_version")}
        for version, name, sql in migrations("schema/pg"):
            if version in done:
                continue
            with self.conn.transaction():
                self.conn.execute(sql)  # no parameters: several statements in one
                self.conn.execute("INSERT INTO schema_version VALUES (%s, %s, %s)", (version, name, time.time()))
        if self.get_meta("uid") is None:
            self.set_meta("uid", uuid.uuid4().hex)

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT max(version) FROM schema_version")
        return int(row[0] or 0)

    @property
    def location(self) -> str:
        info = self.conn.info
        return f"postgresql://{info.host}:{info.port}/{info.dbname}?collection={self.schema}"

    @property
    def in_transaction(self) -> bool:
        return self.conn.info.transaction_status != TransactionStatus.IDLE

    def changes(self) -> int:
        return max(self._last.rowcount, 0) if self._last is not None else 0

    # -- helpers -----------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """All writes inside commit together or not at all (nests as savepoints)."""
        with self.conn.transaction():
            yield self.conn

    def write_lock(self) -> None:
        """Inside a transaction: wait for the collection's other writers' transactions to end, and
        keep them waiting until this one does."""
        self.execute("SELECT pg_advisory_xact_lock(hashtext(?), 0)", (f"{self.schema}:write",))

    def try_claim(self, name: str, doc_id: int) -> bool:
        """Claim (``name``, ``doc_id``) for this session, or False when another session holds it. The
        claim lasts until ``release`` or the session's end; a rare collision of two claims' keys
        only makes one wait for the other."""
        return bool(self.one("SELECT pg_try_advisory_lock(hashtext(?), ?::int)", (f"{self.schema}:{name}", int(doc_id)))[0])

    def release(self, name: str, doc_id: int) -> None:
        self.one("SELECT pg_advisory_unlock(hashtext(?), ?::int)", (f"{self.schema}:{name}", int(doc_id)))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor:
        cursor = self.conn.cursor(binary=True)
        cursor.execute(_statement(sql), _params(params))
        self._last = cursor
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            cursor = self.conn.cursor(binary=True)
            cursor.executemany(_statement(sql), [_params(row) for row in rows])
            self._last = cursor

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.execute(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[Any] = ()) -> Optional[tuple]:
        return self.execute(sql, params).fetchone()

    def get_meta(self, key: str) -> Optional[str]:
        row = self.one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def table_exists(self, name: str) -> bool:
        """Whether the collection's schema holds a table (or an index) of that name."""
        return self.one("SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "WHERE n.nspname = current_schema() AND c.relname = ?", (name,)) is not None

    def close(self) -> None:
        try:
            self.conn.close()
        except psycopg.Error:
            pass
