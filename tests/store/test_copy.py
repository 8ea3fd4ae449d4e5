"""Copying a collection between a SQLite file and a real PostgreSQL server, both ways
(``k2desk.store.copy``, ``k2desk collection copy``): every table equal after a round trip, ids
kept, a destination that holds something refused unless replaced, a copy that differs rolled back
with one line naming what differs, NUL characters stored as U+FFFD on the server."""

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.errors import StoreError
from k2desk.store.address import open_database, shown_address
from k2desk.store.copy import TABLES, _columns, _meta, copy_collection, counts
from k2desk.store.db import Database
from k2desk.store.history import HistoryStore
from k2desk.store.sparse import SOURCES, SparseIndex
from k2desk.store.vectors import KINDS, VectorIndex
from k2desk.types import Answer, Source
from tests.store.backends import with_collection

pytest.importorskip("psycopg", reason="scripts/setup.sh installs k2desk[postgres]")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, models_dir) -> Path:
    """A SQLite collection of the mixed fixture folder with everything a collection holds: the
    passages, the summaries, the graph and its hypernodes (default profile, no LLM at indexing), two
    questions of history."""
    tmp = tmp_path_factory.mktemp("indexed")
    shutil.copytree(FIXTURES / "mixed", tmp / "docs")
    settings = Settings(home=tmp / "home", models_dir=models_dir, threads=2, summarizer="extractive", graph_extractor="fast")
    with Engine(settings, "source") as engine:
        engine.index([tmp / "docs"])
        engine.set_watched_folders([str(tmp / "docs")])
        done = next(d for d in engine.documents() if d.status == "done")
        chunk = engine.docs.chunks_of(done.id, "text", "vec")[0]
        for question in ("Who keeps the lighthouse?", "How many members?"):
            engine.history.add(Answer(question, "hybrid", "Nobody knows.", [chunk.as_source(0.5)], {}, {"total": 1.5}))
        thread = engine.threads.create("Who keeps it?", "hybrid")  # a conversation of one turn
        engine.history.add(Answer("Who keeps the lighthouse?", "hybrid", "Nobody knows.", [chunk.as_source(0.5)], {},
                                  {"total": 1.0}), thread_id=thread, message="Who keeps it?")
        path = engine.address
    return path


class Server:
    def __init__(self, uri: str) -> None:
        self.uri, self.prefix = uri, "t" + uuid.uuid4().hex[:10]

    def name(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def __call__(self, name: str) -> str:
        return with_collection(self.uri, self.name(name))


@pytest.fixture
def server(postgres_server):
    """Collection addresses on the session's server for this test; the collections are dropped after it."""
    import psycopg

    server = Server(postgres_server)
    prefix = server.prefix
    yield server
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        for (schema,) in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (prefix + "\\_%",)):
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def dump(db) -> dict:
    """Everything a collection holds, comparable across backends (rows in a fixed order)."""
    out: dict = {}
    for table, _ in TABLES:
        columns = sorted(_columns(db, table))
        out[table] = sorted((tuple(r) for r in db.all(f"SELECT {', '.join(columns)} FROM {table}")), key=repr)
    for kind in KINDS:
        index = VectorIndex(db, kind)
        if index.ready:
            out[index.table] = sorted((int(i), s, bytes(v)) for i, s, v in db.all(f"SELECT id, source, embedding FROM {index.table}"))
    for source in SOURCES:
        sparse = SparseIndex(db, source)
        stats = sparse.statistics()
        out[f"sparse_{source}"] = (sorted(int(r[0]) for r in db.all(f"SELECT {db.dialect.sparse_id} FROM sparse_{source}")),
                                   stats.n, stats.df)
    out["meta"] = _meta(db)
    return out


def opened(*addresses):
    return [open_database(a) for a in addresses]


def test_a_file_to_a_server_and_back_keeps_every_table_and_every_id(indexed, server, tmp_path, models_dir, embedder):
    src, team, back = opened(indexed, server("team"), tmp_path / "back.k2db")
    try:
        there = copy_collection(src, team)
        again = copy_collection(team, back)
        original = dump(src)
        assert all(original[t] for t, _ in TABLES) and original["vec_nodes"] and original["sparse_summary"][0]
        assert dump(team) == original == dump(back)  # rows, ids, vectors' bytes, sparse terms and statistics, meta
        assert there.counts == again.counts == counts(src) and there.nul_values == 0
        assert team.uid != src.uid and back.uid not in (src.uid, team.uid)  # each keeps its own identity
    finally:
        for db in (src, team, back):
            db.close()
    # the server's copy finds what the file finds, and takes new documents after the copied ids
    from k2desk.methods.retrieval import Retriever

    question = "How far is the lighthouse lamp visible at sea?"
    file_db = open_database(indexed)
    hits = [(h.chunk.id, round(h.score, 5)) for h in Retriever(file_db, embedder, "text").search(question, k=5, lam=1.0)]
    file_db.close()
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, threads=2, summarizer="extractive",
                        graph_extractor="fast", store=server.uri)
    with Engine(settings, server.name("team")) as team_engine:
        assert [(h.chunk.id, round(h.score, 5)) for h in Retriever(team_engine.db, embedder, "text").search(question, k=5, lam=1.0)] == hits
        before = team_engine.db.one("SELECT max(id) FROM documents")[0]
        (tmp_path / "new").mkdir()
        (tmp_path / "new" / "ferry.txt").write_text("The ferry to Rookhaven leaves at noon from pier four.", encoding="utf-8")
        report = team_engine.index([tmp_path / "new"])
        assert len(report.added) == 1 and not report.failed
        assert team_engine.db.one("SELECT id FROM documents WHERE key LIKE '%ferry.txt'")[0] > before


def test_a_destination_that_holds_something_is_refused_unless_replaced(indexed, server, tmp_path):
    src, other, team = opened(indexed, tmp_path / "other.k2db", server("team"))
    try:
        HistoryStore(other).add(Answer("Only this?", "semantic", "Yes.", [Source("/x.txt", 1, 0.1, "x")]))
        copy_collection(other, team)
        uid = team.uid
        with pytest.raises(StoreError) as refused:
            copy_collection(src, team)
        assert str(refused.value) == "the destination already holds 1 history; add --replace to overwrite it"
        assert len(dump(team)["history"]) == 1  # untouched
        report = copy_collection(src, team, replace=True)
        assert report.replaced == {"history": 1}
        assert dump(team) == dump(src) and team.get_meta("uid") == uid
        # a replaced server collection replaced again into a file that holds another collection
        file_copy = open_database(tmp_path / "file.k2db")
        copy_collection(other, file_copy)
        copy_collection(team, file_copy, replace=True)
        assert dump(file_copy) == dump(src)
        file_copy.close()
    finally:
        for db in (src, other, team):
            db.close()


def test_a_copy_that_differs_from_its_source_names_it_and_writes_nothing(indexed, server, tmp_path):
    src, local, team = opened(indexed, tmp_path / "local.k2db", server("team"))
    try:
        copy_collection(src, local)
        n = SparseIndex(local, "text").size()
        SparseIndex(local, "text").add([10**6], ["a sparse row whose chunk is gone"])  # an orphan: it cannot be made again
        with pytest.raises(StoreError) as differs:
            copy_collection(local, team)
        assert str(differs.value) == f"the copy differs from its source (sparse_text {n} against {n + 1}); nothing was written"
        assert not any(counts(team).values()) and team.get_meta("embed_dim") is None
    finally:
        for db in (src, local, team):
            db.close()


def test_nul_characters_are_stored_as_the_replacement_character_on_a_server(indexed, server, tmp_path):
    src, local, team, back = opened(indexed, tmp_path / "local.k2db", server("team"), tmp_path / "back.k2db")
    try:
        copy_collection(src, local)
        local.execute("UPDATE documents SET title = ? WHERE id = (SELECT min(id) FROM documents)", ("Light\x00house",))
        local.execute("UPDATE history SET answer = ? WHERE id = (SELECT min(id) FROM history)", ("No\x00body",))
        assert local.one("SELECT count(*) FROM documents WHERE instr(title, char(0)) > 0")[0] == 1  # SQLite keeps it
        report = copy_collection(local, team)
        assert report.nul_values == 2 and "2 texts held NUL characters, stored as U+FFFD" in report.summary()
        assert team.one("SELECT count(*) FROM documents WHERE title = 'Light\ufffdhouse'")[0] == 1
        assert team.one("SELECT count(*) FROM history WHERE answer = 'No\ufffdbody'")[0] == 1
        assert copy_collection(team, back).nul_values == 0
        expected = dump(local)
        expected["documents"] = sorted((tuple(v.replace("\x00", "\ufffd") if isinstance(v, str) else v for v in row)
                                        for row in expected["documents"]), key=repr)
        expected["history"] = [tuple(v.replace("\x00", "\ufffd") if isinstance(v, str) else v for v in row)
                               for row in expected["history"]]
        got = dump(back)
        assert got["documents"] == expected["documents"] and got["history"] == sorted(expected["history"], key=repr)
        assert got["sparse_text"] == expected["sparse_text"]  # the title's header line indexes the same terms
    finally:
        for db in (src, local, team, back):
            db.close()


def test_every_table_of_a_collection_is_copied(tmp_path):
    db = Database(tmp_path / "c.k2db")
    names = {r[0] for r in db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")}
    virtual = {r[0] for r in db.all("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL%'")}
    db.close()
    shadow = {n for n in names if any(n.startswith(v + "_") for v in virtual) or n.startswith("sqlite_")}
    assert names - shadow - {"meta", "schema_version", "vector_log"} == {t for t, _ in TABLES}
    assert virtual == {"sparse_text", "sparse_text_vocab", "sparse_summary", "sparse_summary_vocab", "entity_names"}


# -- the command ------------------------------------------------------------------------------------
def test_collection_copy_on_the_command_line(indexed, server, tmp_path, models_dir):
    home = tmp_path / "home"
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "k2desk", "collection", "copy", *map(str, args)], env=env,
                              capture_output=True, text=True, timeout=300)

    (home / "collections").mkdir(parents=True)
    src, mine = opened(indexed, home / "collections" / "mine.k2db")
    copy_collection(src, mine)
    n = counts(src)
    src.close()
    mine.close()
    team = server("team")
    up = cli("mine", team)
    assert up.returncode == 0, up.stderr
    assert up.stdout.startswith(f"copied {home / 'collections' / 'mine.k2db'} -> {shown_address(team)}: {n['documents']} documents, "
                                f"{n['chunks']} chunks, ")
    assert "chunks" in up.stderr and "vec_chunks" in up.stderr  # progress, one line per table at least
    down = cli(team, tmp_path / "back.k2db")
    assert down.returncode == 0, down.stderr
    back = open_database(tmp_path / "back.k2db")
    assert counts(back) == n
    back.close()
    for proc, code, words in ((cli(team, tmp_path / "back.k2db"), 1, f"already holds {n['documents']} documents"),
                              (cli(tmp_path / "nothing.k2db", team), 1, f"no collection {tmp_path / 'nothing.k2db'}"),
                              (cli("mine", "mine"), 2, "the same collection"),
                              (cli("mine", server.uri + "&collection=Bad"), 1, "lower-case letters")):
        assert proc.returncode == code, proc.stderr
        line = proc.stderr.strip().splitlines()
        assert len(line) == 1 and words in line[0], proc.stderr
    assert not (tmp_path / "nothing.k2db").exists()
    replaced = cli(team, tmp_path / "back.k2db", "--replace")
    assert replaced.returncode == 0, replaced.stderr


def test_rows_are_read_page_by_page_after_the_last_key(indexed, server):
    from k2desk.store.copy import _pages

    src, team = opened(indexed, server("team"))
    try:
        copy_collection(src, team)
        for db in (src, team):
            for table, key in TABLES:
                columns = _columns(db, table)
                pages = list(_pages(db, table, columns, key, page=3))
                rows = [tuple(r) for p in pages for r in p]
                assert len(pages) == -(-len(rows) // 3) and all(len(p) == 3 for p in pages[:-1])
                assert sorted(rows, key=repr) == sorted((tuple(r) for r in db.all(f"SELECT {', '.join(columns)} FROM {table}")),
                                                        key=repr), table
                assert len(set(rows)) == len(rows)
    finally:
        src.close()
        team.close()
