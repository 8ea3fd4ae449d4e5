"""Two writers on one collection: two real `k2desk index FOLDER` processes started together on the
same folder and the same collection, in a SQLite file and on a PostgreSQL server, with a `k2desk
ask` while they run. Afterwards the collection must equal one run's (every document once, every
stage once, the same chunks, vectors and sparse rows; on SQLite the crash invariants hold), both
processes must succeed, and no document's stage may have been built by both (the reports'
``built`` counts add up to one per document-stage). Profile "naive" (the text index only: read,
chunk, embed), one thread each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.store.invariants import problems

DOCS = 40
TOPICS = ["lighthouse", "orchard", "railway", "bakery", "observatory", "harbour", "library", "vineyard",
          "brewery", "glasshouse", "ferry", "quarry", "museum", "sawmill", "theatre", "windmill"]
COUNTED = ("documents", "document_stages", "chunks", "vec_chunks", "sparse_text")


def _write_corpus(folder: Path) -> None:
    folder.mkdir()
    for i in range(DOCS):
        topic = TOPICS[i % len(TOPICS)]
        sentences = [f"The {topic} number {i} was opened in {1850 + 3 * i} by the council of district {i % 7}.",
                     f"Its keeper, person {i * 13 % 97}, reports {100 + 17 * i} visitors in an ordinary week.",
                     f"The {topic} is repaired every {2 + i % 5} years and its roof was replaced in {1990 + i % 30}."]
        body = " ".join(sentences[(j + i) % 3] + f" Paragraph {j} of the {topic} story." for j in range(20 + 9 * (i % 4)))
        (folder / f"doc{i:02d}.txt").write_text(f"The {topic} {i}\n\n{body}\n", encoding="utf-8")


def _home(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"build_profile": "naive", "llm": "smollm2-135m", "threads": 1}))
    return home


def _argv(home: Path, models_dir: Path, store: str, *command: str):
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    return [sys.executable, "-m", "k2desk", *(["--store", store] if store else []), *command], env


def _index(home, models_dir, folder, collection, store=""):
    argv, env = _argv(home, models_dir, store, "index", str(folder), "-c", collection, "--json")
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _reports(procs) -> list[dict]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"an indexer failed (exit {proc.returncode}): {stderr[-2000:]}"
        out.append(json.loads(stdout))
    return out


def _run_together(tmp_path, models_dir, folder, collection, count, store=""):
    """Two indexers started at once and one question asked while they run; (their reports, the
    counts after, seconds, the ask's exit status and error)."""
    home = _home(tmp_path, "together")
    t0 = time.perf_counter()
    procs = [_index(home, models_dir, folder, collection, store) for _ in range(2)]
    # the question: once the first documents are searchable, while both still index
    while count(home, "document_stages") < 3 and all(p.poll() is None for p in procs):
        time.sleep(0.05)
    argv, env = _argv(home, models_dir, store, "ask", "When was the lighthouse number 0 opened?", "-c", collection,
                      "--method", "semantic", "--json")
    ask = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    reports = _reports(procs)
    seconds = time.perf_counter() - t0
    return reports, {t: count(home, t) for t in COUNTED}, seconds, ask


def _check(reports, counts, reference, ask, seconds, backend):
    built = [r.get("built", {}).get("text", 0) for r in reports]
    redone = sum(built) - DOCS
    print(json.dumps({"backend": backend, "documents": DOCS, "built_by_each": built, "redone": redone,
                      "seconds": round(seconds, 1), "counts": counts}))
    assert ask.returncode == 0, f"k2desk ask failed while two indexers ran: {ask.stderr[-2000:]}"
    assert json.loads(ask.stdout)["sources"], "the question found nothing"
    assert counts == reference, f"the collection differs from one run's: {counts} against {reference}"
    assert redone == 0, f"{redone} of {DOCS} document-stages were built by both indexers ({built})"


def _sqlite_count(home: Path, table: str) -> int:
    from tests.store.invariants import open_readonly

    db = home / "collections" / "shared.k2db"
    if not db.exists():
        return 0
    try:
        conn = open_readonly(db)
        try:
            return next(conn.execute(f"SELECT count(*) FROM {table}"))[0]
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - being created or migrated
        return 0


def test_two_indexers_and_a_question_on_one_sqlite_collection(tmp_path, models_dir, tiny_llm_path):
    folder = tmp_path / "docs"
    _write_corpus(folder)
    ref = _home(tmp_path, "ref")
    _reports([_index(ref, models_dir, folder, "shared")])
    reference = {t: _sqlite_count(ref, t) for t in COUNTED}
    assert reference["documents"] == DOCS and reference["document_stages"] == DOCS

    reports, counts, seconds, ask = _run_together(tmp_path, models_dir, folder, "shared", _sqlite_count)
    db = tmp_path / "together" / "collections" / "shared.k2db"
    assert problems(db) == []
    _check(reports, counts, reference, ask, seconds, "sqlite")


def test_two_indexers_and_a_question_on_one_server_collection(tmp_path, models_dir, tiny_llm_path, postgres_server,
                                                                prefix):
    pytest.importorskip("psycopg", reason="scripts/setup.sh installs k2desk[postgres]")
    import psycopg

    from tests.store.backends import with_collection

    folder = tmp_path / "docs"
    _write_corpus(folder)

    def counter(schema: str):
        def count(home: Path, table: str) -> int:
            with psycopg.connect(postgres_server, autocommit=True) as conn:
                if conn.execute("SELECT to_regclass(%s)", (f'"{schema}".{table}',)).fetchone()[0] is None:
                    return 0
                return conn.execute(f'SELECT count(*) FROM "{schema}".{table}').fetchone()[0]
        return count

    ref = _home(tmp_path, "ref")
    _reports([_index(ref, models_dir, folder, f"{prefix}_ref", postgres_server)])
    reference = {t: counter(f"{prefix}_ref")(ref, t) for t in COUNTED}
    assert reference["documents"] == DOCS and reference["document_stages"] == DOCS
    reports, counts, seconds, ask = _run_together(tmp_path, models_dir, folder, f"{prefix}_shared",
                                                  counter(f"{prefix}_shared"), postgres_server)
    _check(reports, counts, reference, ask, seconds, "postgresql")
    assert problems(with_collection(postgres_server, f"{prefix}_shared")) == []


CLAIMER = """
import sys, time
from k2desk.store.address import open_database
db = open_database(sys.argv[1])
assert all(db.try_claim("text", i) for i in range(1, 6))
print("claimed", flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_claim_dies_with_its_process(store, tmp_path, models_dir, request):
    """A process holding the claims of five documents' text stage is killed with SIGKILL while an
    indexer runs: the indexer builds the 35 others, waits for the five, then builds them itself
    once the claimer is gone (nothing lost, nothing built twice)."""
    folder = tmp_path / "docs"
    _write_corpus(folder)
    home = _home(tmp_path, "home")
    if store == "sqlite":
        server, collection, address = "", "shared", str(home / "collections" / "shared.k2db")
        count = _sqlite_count
    else:
        import psycopg

        from tests.store.backends import with_collection

        server, collection = request.getfixturevalue("postgres_server"), request.getfixturevalue("prefix") + "_claims"
        address = with_collection(server, collection)

        def count(home: Path, table: str) -> int:
            with psycopg.connect(server, autocommit=True) as conn:
                return conn.execute(f'SELECT count(*) FROM "{collection}".{table}').fetchone()[0]
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    claimer = subprocess.Popen([sys.executable, "-c", CLAIMER, address], env=env, stdout=subprocess.PIPE, text=True)
    indexer = None
    try:
        assert claimer.stdout.readline().strip() == "claimed"
        indexer = _index(home, models_dir, folder, collection, server)
        deadline = time.monotonic() + 300
        while count(home, "document_stages") < DOCS - 5 and indexer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        assert indexer.poll() is None and count(home, "document_stages") == DOCS - 5, "the claims were not respected"
        claimer.kill()
        claimer.wait(10)
        report = _reports([indexer])[0]
        counts = {t: count(home, t) for t in COUNTED}
        print(json.dumps({"backend": store, "built": report["built"], "counts": counts}))
        assert report["built"] == {"text": DOCS}
        assert counts["documents"] == counts["document_stages"] == DOCS
        assert counts["chunks"] == counts["vec_chunks"] == counts["sparse_text"] > 0
        assert problems(Path(address) if store == "sqlite" else address) == []
    finally:
        for proc in (claimer, indexer):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
