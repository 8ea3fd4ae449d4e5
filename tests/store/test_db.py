import re

import apsw
import pytest

from k2desk.store.db import Database, migrations


def test_migrations_apply_once_and_record_their_version(tmp_path):
    path = tmp_path / "c.k2db"
    db = Database(path)
    versions = [v for v, _, _ in migrations()]
    assert versions == sorted(versions) and versions[0] == 1
    assert db.schema_version == versions[-1]
    assert db.one("PRAGMA journal_mode")[0] == "wal"
    assert db.one("PRAGMA foreign_keys")[0] == 1
    db.close()
    again = Database(path)  # reopening does not re-run migrations
    assert again.one("SELECT count(*) FROM schema_version")[0] == len(versions)
    for table in ("documents", "chunks", "document_stages", "entities", "relations", "entity_mentions",
                  "relation_mentions", "sparse_text", "sparse_summary", "meta"):
        assert again.table_exists(table), table
    assert again.one("SELECT vec_version()")[0].startswith("v")


def test_transaction_rolls_back_every_write(backend):
    db = backend.open()
    assert not db.in_transaction
    with pytest.raises(RuntimeError):
        with db.transaction():
            db.set_meta("a", "1")
            assert db.in_transaction
            raise RuntimeError("boom")
    assert db.get_meta("a") is None and not db.in_transaction
    with db.transaction():
        db.set_meta("a", "2")
    assert db.get_meta("a") == "2"


def test_a_nested_transaction_is_a_savepoint(backend):
    db, other = backend.open(), backend.open()
    with db.transaction():
        db.set_meta("outer", "1")
        with pytest.raises(RuntimeError), db.transaction():
            db.set_meta("inner", "1")
            raise RuntimeError("inner only")
        assert db.get_meta("inner") is None and db.get_meta("outer") == "1"
        assert other.get_meta("outer") is None  # not committed yet: another connection does not see it
    assert other.get_meta("outer") == "1" and other.get_meta("inner") is None


def test_the_database_surface(backend):
    db = backend.open()
    assert db.schema_version == migrations()[-1][0] and len(db.uid) == 32
    assert db.table_exists("documents") and db.table_exists("sparse_text") and not db.table_exists("nothing_here")
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [("k1", "50%"), ("k2", "a_b")])
    assert db.all("SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key", ("k%",)) == [("k1", "50%"), ("k2", "a_b")]
    assert db.one("SELECT value FROM meta WHERE key = ?", ("nothing",)) is None
    assert next(iter(db.execute("SELECT count(*) FROM meta WHERE value LIKE '%!%' ESCAPE '!'")))[0] == 1  # a literal %
    db.execute("DELETE FROM meta WHERE key IN (?, ?)", ("k1", "k2"))
    assert db.changes() == 2
    db.set_meta("k1", "x")
    db.set_meta("k1", "y")
    assert db.get_meta("k1") == "y"
    again = backend.open()
    assert again.uid == db.uid and again.location == db.location
    assert again.one("SELECT count(*) FROM schema_version")[0] == len(migrations())  # migrations ran once


def test_status_is_checked(backend):
    db = backend.open()
    if backend.is_sqlite:
        refused = apsw.ConstraintError
    else:
        import psycopg

        refused = psycopg.errors.CheckViolation
    with pytest.raises(refused):
        db.execute("INSERT INTO documents(key, kind, content_hash, status, created_at, updated_at) VALUES ('k', 'txt', 'h', 'bogus', 0, 0)")


def store_strings() -> dict[str, list[str]]:
    """Every string literal in each k2desk/store/*.py module (adjacent literals join into one,
    f-strings whole)."""
    import ast
    from pathlib import Path

    import k2desk.store

    out = {}
    for path in Path(k2desk.store.__file__).parent.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        out[path.name] = [ast.get_source_segment(source, node) or "" for node in ast.walk(ast.parse(source))
                          if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))]
    return out


def test_every_column_is_named_where_its_table_is(tmp_path):
    """A column that no store module naming its table ever names is dead weight every backend
    would have to carry (entities.profile and relations.profile were created and never used)."""
    modules = store_strings()
    db = Database(tmp_path / "c.k2db")
    virtual = [r[0] for r in db.all("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL%'")]
    tables = [r[0] for r in db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
                                   "AND name NOT LIKE 'sqlite_%'")
              if not any(r[0].startswith(v + "_") for v in virtual)]  # a virtual table's own shadow tables
    assert {"documents", "chunks", "entities", "relations", "hypernodes", "history"} <= set(tables)
    unused = []
    for table in tables:
        strings = [s for found in modules.values() if any(re.search(rf"\b{table}\b", s) for s in found) for s in found]
        unused += [f"{table}.{col[1]}" for col in db.all(f"PRAGMA table_info({table})")
                   if not any(re.search(rf"\b{col[1]}\b", s) for s in strings)]
    assert unused == []


def test_a_version_4_collection_loses_the_unused_columns_and_nothing_else(tmp_path, monkeypatch):
    import k2desk.store.db as dbmod

    path = tmp_path / "old.k2db"
    every = migrations()
    monkeypatch.setattr(dbmod, "migrations", lambda: [m for m in every if m[0] <= 4])
    old = Database(path)
    old.execute("INSERT INTO entities(source, name, display, type, description, profile) VALUES ('text', 'a', 'A', 'org', 'd', 'p')")
    old.close()
    monkeypatch.setattr(dbmod, "migrations", lambda: every)
    db = Database(path)
    assert db.schema_version == every[-1][0] >= 5
    assert db.all("SELECT name, display, type, description FROM entities") == [("a", "A", "org", "d")]
    assert "profile" not in {c[1] for c in db.all("PRAGMA table_info(entities)")}
    assert "profile" not in {c[1] for c in db.all("PRAGMA table_info(relations)")}


def test_a_version_6_collection_gets_its_entity_names_indexed(tmp_path, monkeypatch):
    import k2desk.store.db as dbmod
    from k2desk.store.graph import GraphStore

    path = tmp_path / "old.k2db"
    every = migrations()
    monkeypatch.setattr(dbmod, "migrations", lambda: [m for m in every if m[0] <= 6])
    old = Database(path)
    old.execute("INSERT INTO entities(source, name, display) VALUES ('text', 'harwick point lighthouse', 'Harwick Point Lighthouse')")
    old.close()
    monkeypatch.setattr(dbmod, "migrations", lambda: every)
    db = Database(path)
    assert db.schema_version == every[-1][0] >= 7
    assert [e.display for e in GraphStore(db).containing("text", "point lighthouse")] == ["Harwick Point Lighthouse"]
