"""The collection database: one SQLite file (apsw + sqlite-vec + FTS5), numbered migrations, WAL.

Each thread opens its own ``Database``; apsw connections must not be shared across threads. A
collection on a PostgreSQL server (``k2desk.store.postgres``) has the same methods; the
statements that differ between the two are in ``k2desk.store.dialect``.
"""

from __future__ import annotations

import re
import time
import uuid
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import apsw
import sqlite_vec

from k2desk.errors import StoreError
from k2desk.store.dialect import SQLITE

_MIGRATION = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def migrations(folder: str = "schema") -> list[tuple[int, str, str]]:
    """(version, file name, sql) for every numbered migration, in order (``schema/pg``: the
    PostgreSQL twins)."""
    found, where = [], resources.files("k2desk.store")
    for part in folder.split("/"):
        where = where.joinpath(part)
    for entry in where.iterdir():
        m = _MIGRATION.match(entry.name)
        if m:
            found.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


class Database:
    dialect = SQLITE

    def __init__(self, path: Path | str, readonly: bool = False) -> None:
        self.path = Path(path)
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
        try:
            self.conn = apsw.Connection(str(self.path), flags=flags)
            self.conn.set_busy_timeout(10_000)
            self.conn.enable_load_extension(True)
            sqlite_vec.load(self.conn)
            self.conn.enable_load_extension(False)
            if not readonly:
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            if not readonly:
                self._migrate()
            self.uid = self.get_meta("uid") or ""
        except apsw.Error as exc:
            raise StoreError(f"cannot open collection {self.path}: {exc}") from exc

    # -- migrations --------------------------------------------------------------------
    def _migrate(self) -> None:
        self.conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                          "name TEXT NOT NULL, applied_at REAL NOT NULL)")
        done = {row[0] for row in self.conn.execute("SELECT version FROM schema_version")}
        for version, name, sql in migrations():
            if version in done:
                continue
            with self.conn:
                self.conn.execute(sql)
                self.conn.execute("INSERT INTO schema_version VALUES (?, ?, ?)", (version, name, time.time()))
        if self.get_meta("uid") is None:  # this collection's identity: in-process caches key on it, not on the path alone
            with self.conn:
                self.set_meta("uid", uuid.uuid4().hex)

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT max(version) FROM schema_version")
        return int(row[0] or 0)

    @property
    def location(self) -> str:
        """Where the collection is (with ``uid``, what in-process caches of it are keyed by)."""
        return str(self.path.resolve())

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (its writes may still roll back)."""
        return not self.conn.getautocommit()

    def changes(self) -> int:
        """Rows the last INSERT, UPDATE or DELETE changed."""
        return self.conn.changes()

    # -- helpers -----------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[apsw.Connection]:
        """All writes inside commit together or not at all (nests as savepoints)."""
        with self.conn:
            yield self.conn

    def execute(self, sql: str, params: Sequence[Any] | dict = ()) -> apsw.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    def all(self, sql: str, params: Sequence[Any] | dict = ()) -> list[tuple]:
        return list(self.conn.execute(sql, params))

    def one(self, sql: str, params: Sequence[Any] | dict = ()) -> Optional[tuple]:
        for row in self.conn.execute(sql, params):
            return row
        return None

    def get_meta(self, key: str) -> Optional[str]:
        row = self.one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def table_exists(self, name: str) -> bool:
        return self.one("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)) is not None

    def close(self) -> None:
        try:
            self.conn.close()
        except apsw.Error:
            pass
