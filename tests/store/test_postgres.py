"""What is particular to a collection on a PostgreSQL server: its address, its migrations (twins of
the SQLite file's), its tables against the file's, one schema per collection, and the errors a
person meets. The behaviour both backends share is tested on both (the ``backend`` fixture)."""

import pytest

from k2desk.errors import StoreError
from k2desk.store.address import is_server_address, open_database
from k2desk.store.db import Database, migrations
from k2desk.store.sparse import SparseIndex
from tests.store.backends import make_backend, with_collection

pytest.importorskip("psycopg", reason="scripts/setup.sh installs k2desk[postgres]")

from k2desk.store.postgres import split_address  # noqa: E402


@pytest.fixture
def pg(request, tmp_path):
    """Collections of this test on the session's server."""
    yield from make_backend(request, "postgresql", tmp_path)


def test_every_sqlite_migration_has_its_postgresql_twin():
    sqlite, pg = migrations(), migrations("schema/pg")
    assert [(v, name) for v, name, _ in pg] == [(v, name) for v, name, _ in sqlite]
    assert all(f"../{name}" in sql for _, name, sql in pg)  # each names the one it is the twin of


def columns_sqlite(db: Database) -> dict[str, list[str]]:
    virtual = [r[0] for r in db.all("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL%'")]
    tables = [r[0] for r in db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
                                   "AND name NOT LIKE 'sqlite_%'") if not any(r[0].startswith(v + "_") for v in virtual)]
    return {t: [c[1] for c in db.all(f"PRAGMA table_info({t})")] for t in tables}


def test_the_server_holds_the_files_tables_with_their_columns(tmp_path, postgres_server):
    db = open_database(with_collection(postgres_server, "columns"))
    try:
        rows = db.all("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                      "ORDER BY table_name, ordinal_position")
        pg: dict[str, list[str]] = {}
        for table, column in rows:
            pg.setdefault(table, []).append(column)
        assert pg.pop("sparse_text") == pg.pop("sparse_summary") == ["id", "terms"]  # FTS5 tables in the file
        sqlite = Database(tmp_path / "c.k2db")
        assert pg == columns_sqlite(sqlite)
        sqlite.close()
    finally:
        db.execute("DROP SCHEMA columns CASCADE")
        db.close()


def test_an_address_names_the_server_and_the_collection():
    assert split_address("postgresql://ann@db.example/team?collection=work&sslmode=require") == \
        ("postgresql://ann@db.example/team?sslmode=require", "work")
    assert split_address("postgresql:///team?host=/run/pg") == ("postgresql:///team?host=/run/pg", "default")
    for bad in ("Work", "1st", "a-b", "x" * 64, "", "ünï"):
        with pytest.raises(StoreError, match="lower-case letters"):
            split_address(f"postgresql:///team?collection={bad}")
    assert is_server_address("postgres://h/d") and is_server_address("postgresql://h/d")
    assert not is_server_address("/home/ann/work.k2db")


def test_a_path_opens_a_file(tmp_path):
    db = open_database(tmp_path / "c.k2db")
    assert isinstance(db, Database) and db.dialect.name == "sqlite"
    db.close()


def test_collections_on_one_server_are_apart(pg):
    work, home = pg.open("work"), pg.open("home")
    work.set_meta("owner", "ann")
    assert home.get_meta("owner") is None and work.uid != home.uid and work.location != home.location
    SparseIndex(work, "text").add([1], ["lighthouse keeper"])
    assert SparseIndex(home, "text").size() == 0 and SparseIndex(work, "text").size() == 1


def test_read_only(pg):
    import psycopg

    with pytest.raises(StoreError, match="no collection"):
        pg.open("missing", readonly=True)
    pg.open("made").set_meta("a", "1")
    reader = pg.open("made", readonly=True)
    assert reader.get_meta("a") == "1" and reader.schema_version == migrations()[-1][0]
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        reader.set_meta("a", "2")


def test_a_server_that_is_not_there_is_one_line(tmp_path):
    with pytest.raises(StoreError) as caught:
        open_database(f"postgresql:///postgres?host={tmp_path}&connect_timeout=2&collection=work")
    message = str(caught.value)
    assert message.startswith(f"cannot reach the collection's server {tmp_path}/postgres: ") and "\n" not in message


def test_terms_are_the_index_tokenizers_and_fit_the_tsvector(pg):
    sparse = SparseIndex(pg.open(), "text")
    long_word = "x" * 3000  # longer than a tsvector word may be: left out, the rest indexed
    sparse.add([1, 2], ["The keeper's lamps, the keeper's LOG", f"{long_word} harbour"])
    terms = dict(sparse.db.all("SELECT id, CAST(terms AS text) FROM sparse_text"))
    assert terms[1] == "'keeper':2,6 'lamp':4 'log':8 's':3,7 'the':1,5"  # FTS5's terms, at their positions
    assert terms[2] == "'harbour':2"
    assert [i for i, _ in sparse.bm25("harbour")] == [2] and sparse.statistics().df["keeper"] == 1


def test_a_nul_character_is_stored_as_the_replacement_character(pg):
    db = pg.open()  # PostgreSQL's text refuses NUL; a SQLite file keeps it
    db.set_meta("title\x00", "light\x00house")
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [("a\x00", "b\x00\x00c"), ("plain", "text")])
    assert db.get_meta("title\x00") == db.get_meta("title\ufffd") == "light\ufffdhouse"  # one character for one
    assert db.get_meta("a\ufffd") == "b\ufffd\ufffdc" and db.get_meta("plain") == "text"
