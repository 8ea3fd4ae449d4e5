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
        # and their postings (FTS5 keeps its own inside its tables)
        assert pg.pop("sparse_text_postings") == pg.pop("sparse_summary_postings") == ["term", "id", "tf", "dl"]
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


PARITY_TEXTS = [
    "The harbour council met on Monday to discuss the ferry's new timetable and its fares.",
    "Ferry fares rose twice this year; the council blamed the price of diesel.",
    "A lighthouse keeper kept the harbour light burning through the storm of 1953.",
    "The observatory opened in 1959 and its telescope still shows Saturn's rings to visitors.",
    "Council members asked the keeper of the observatory about the telescope's repairs.",
    "Diesel, diesel and more diesel: the ferry burns it on every crossing of the river.",
    "Visitors to the harbour can take the ferry, climb the lighthouse or visit the observatory.",
]


def test_the_servers_bm25_is_fts5s_own(tmp_path, postgres_server, prefix):
    """Keyword ranking on the server (the postings, migration 9) against FTS5's bm25() on the same
    chunks: the same chunks in the same order, the same scores."""
    file_db = Database(tmp_path / "f.k2db")
    server_db = open_database(with_collection(postgres_server, f"{prefix}_bm25"))
    try:
        ids = list(range(1, len(PARITY_TEXTS) + 1))
        ranked = {}
        for name, db in (("file", file_db), ("server", server_db)):
            index = SparseIndex(db, "text")
            with db.transaction():
                index.add(ids, PARITY_TEXTS)
            ranked[name] = [index.bm25(q, 10, budget=None) for q in
                            ("ferry fares diesel", "harbour lighthouse keeper", "observatory telescope visitors", "council")]
        for on_file, on_server in zip(ranked["file"], ranked["server"], strict=True):
            assert on_file and [i for i, _ in on_file] == [i for i, _ in on_server]
            assert [s for _, s in on_file] == pytest.approx([s for _, s in on_server], rel=1e-4)
    finally:
        file_db.close()
        server_db.close()


def test_a_collection_made_before_the_postings_gets_them_from_its_tsvectors(postgres_server, prefix):
    """Migration 9 on a server collection written at version 8: the postings are read from the
    tsvectors, and keyword search finds what it found."""
    import psycopg

    schema = f"{prefix}_old"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path TO "{schema}", public')
        conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                     "applied_at DOUBLE PRECISION NOT NULL)")
        for version, name, sql in migrations("schema/pg"):
            if version < 9:
                conn.execute(sql)
                conn.execute("INSERT INTO schema_version VALUES (%s, %s, 0)", (version, name))
        tsvector = "'ferri':2,7 'fare':3 'harbour':1"  # "harbour ferry fares ... ferry"
        conn.execute("INSERT INTO sparse_text(id, terms) VALUES (1, %s::tsvector), (2, 'harbour:1'::tsvector)", (tsvector,))
    db = open_database(with_collection(postgres_server, schema))
    try:
        assert db.schema_version >= 9
        rows = sorted(db.all("SELECT term, id, tf, dl FROM sparse_text_postings"))
        assert rows == [("fare", 1, 1, 4), ("ferri", 1, 2, 4), ("harbour", 1, 1, 4), ("harbour", 2, 1, 1)]
        assert [i for i, _ in SparseIndex(db, "text").bm25("ferry", 5, budget=None)] == [1]
    finally:
        db.close()
