"""The collection database: one SQLite file (apsw + sqlite-vec + FTS5), numbered migrations, WAL.

Each thread opens its own ``Database``; apsw connections must not be shared across threads.
Several processes may write one file: a write transaction takes the file's write lock when it
begins (``BEGIN IMMEDIATE``, waiting up to the busy timeout), so one that reads before it writes
never fails on another process's commit, and the migrations of a new file run once. A process
claims a document's stage while it builds it (``try_claim``): an exclusive lock on one byte of the
side file ``NAME.k2db-claims``, which the system releases when the process ends, killed or not
(POSIX locks are per process: two connections of one process do not exclude each other, which the
indexer covers by re-checking the stage under the write lock). A
collection on a PostgreSQL server (``k2desk.store.postgres``) has the same methods; the
statements that differ between the two are in ``k2desk.store.dialect``.
"""

from __future__ import annotations

import os
import re
import time
import uuid
import zlib
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


OPEN_WAIT = 30.0  # seconds opening waits for another process creating or migrating the same file


class Database:
    dialect = SQLITE

    def __init__(self, path: Path | str, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._claims: Optional[int] = None  # the claims side file, opened by the first claim
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
        deadline = time.monotonic() + OPEN_WAIT
        while True:
            try:
                self._open(flags)
                break
            except apsw.BusyError as exc:
                # another process is creating or migrating the file: some of the lock changes of
                # opening (the switch to WAL) answer "locked" at once instead of waiting for it
                self.close()
                if time.monotonic() > deadline:
                    raise StoreError(f"cannot open collection {self.path}: {exc}") from exc
                time.sleep(0.05)
            except apsw.Error as exc:
                raise StoreError(f"cannot open collection {self.path}: {exc}") from exc

    def _open(self, flags: int) -> None:
        self.conn = apsw.Connection(str(self.path), flags=flags)
        self.conn.set_busy_timeout(10_000)
        self.conn.enable_load_extension(True)
        sqlite_vec.load(self.conn)
        self.conn.enable_load_extension(False)
        if not self.readonly:
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        if not self.readonly:
            self._migrate()
        self.uid = self.get_meta("uid") or ""

    # -- migrations --------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.transaction():  # under the write lock: a second process opening a new file waits, then finds it made
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
        """All writes inside commit together or not at all (nests as savepoints). The outermost one
        takes the file's write lock at once (another process's writes wait, up to the busy
        timeout), so what it reads stays true until it commits."""
        if self.readonly or not self.conn.getautocommit():
            with self.conn:
                yield self.conn
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            with self.conn:
                yield self.conn
        except BaseException:
            if not self.conn.getautocommit():
                self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def write_lock(self) -> None:
        """Inside a transaction: wait for the collection's other writers (here the transaction
        already holds the file's write lock)."""

    def try_claim(self, name: str, doc_id: int) -> bool:
        """Claim (``name``, ``doc_id``) for this process, or False when another process holds it.
        The claim lasts until ``release`` or the process's end; a rare collision of two claims'
        bytes only makes one wait for the other."""
        if self.readonly:
            return True
        if self._claims is None:
            self._claims = os.open(f"{self.path}-claims", os.O_RDWR | os.O_CREAT, 0o644)
        return _lock_byte(self._claims, _claim_offset(name, doc_id), True)

    def release(self, name: str, doc_id: int) -> None:
        if self._claims is not None:
            _lock_byte(self._claims, _claim_offset(name, doc_id), False)

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
            if getattr(self, "conn", None) is not None:
                self.conn.close()
        except apsw.Error:
            pass
        if self._claims is not None:
            os.close(self._claims)  # releases this process's claims on the file
            self._claims = None


def _claim_offset(name: str, doc_id: int) -> int:
    return zlib.crc32(f"{name}:{doc_id}".encode()) & 0x7FFF_FFFF


def _lock_byte(fd: int, offset: int, lock: bool) -> bool:
    """Lock (without waiting) or unlock one byte of an open file; False when another process holds it."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        os.lseek(fd, offset, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK if lock else msvcrt.LK_UNLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.lockf(fd, (fcntl.LOCK_EX | fcntl.LOCK_NB) if lock else fcntl.LOCK_UN, 1, offset, os.SEEK_SET)
    except OSError:
        return False
    return True
