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


def test_transaction_rolls_back_every_write(tmp_path):
    db = Database(tmp_path / "c.k2db")
    with pytest.raises(RuntimeError):
        with db.transaction():
            db.set_meta("a", "1")
            raise RuntimeError("boom")
    assert db.get_meta("a") is None
    with db.transaction():
        db.set_meta("a", "2")
    assert db.get_meta("a") == "2"


def test_status_is_checked(tmp_path):
    db = Database(tmp_path / "c.k2db")
    with pytest.raises(apsw.ConstraintError):
        db.execute("INSERT INTO documents(key, kind, content_hash, status, created_at, updated_at) VALUES ('k', 'txt', 'h', 'bogus', 0, 0)")
