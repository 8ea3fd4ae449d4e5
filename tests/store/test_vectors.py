import numpy as np
import pytest

from k2desk.errors import StoreError
from k2desk.store.vectors import VectorIndex


def unit(*xs):
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_search_filters_by_source_and_ranks_by_cosine(backend):
    db = backend.open()
    vi = VectorIndex(db, "chunks")
    vi.ensure(3, "toy")
    vi.add([1, 2, 3], np.stack([unit(1, 0, 0), unit(1, 1, 0), unit(0, 0, 1)]), "text")
    vi.add([4], np.stack([unit(1, 0, 0)]), "summary")
    hits = vi.search(unit(1, 0.1, 0), 2, "text")
    assert [i for i, _ in hits] == [1, 2]
    assert hits[0][1] == pytest.approx(float(unit(1, 0.1, 0) @ unit(1, 0, 0)), abs=1e-5)
    assert [i for i, _ in vi.search(unit(1, 0, 0), 5, "summary")] == [4]
    sims = vi.similarities(unit(0, 0, 1), [1, 3])
    assert sims[3] == pytest.approx(1.0, abs=1e-6) and sims[1] == pytest.approx(0.0, abs=1e-6)
    vi.remove([1])
    assert vi.count("text") == 2


def test_a_collection_refuses_another_embedder(backend):
    db = backend.open()
    VectorIndex(db, "chunks").ensure(3, "toy")
    with pytest.raises(StoreError, match="built with embedder toy"):
        VectorIndex(db, "entities").ensure(4, "other")


def random_units(rng, n, dim=16):
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_the_in_memory_search_agrees_with_the_stores_own_scan(backend):
    rng = np.random.default_rng(0)
    db = backend.open()
    vi = VectorIndex(db, "chunks")
    vi.ensure(16, "toy")
    with db.transaction():
        vi.add(list(range(1, 1201)), random_units(rng, 1200), "text")
        vi.add(list(range(1201, 1301)), random_units(rng, 100), "summary")
    for q in random_units(rng, 20):
        mine, theirs = vi.search(q, 10, "text"), vi.search_in_store(q, 10, "text")
        assert [i for i, _ in mine] == [i for i, _ in theirs]
        assert [s for _, s in mine] == pytest.approx([s for _, s in theirs], abs=1e-5)
        assert {i for i, _ in vi.search(q, 10, "summary")} <= set(range(1201, 1301))
    assert vi.has("summary") and not VectorIndex(db, "entities").has("text")
    queries, ks = random_units(rng, 5), [10, 0, 3, 2000, 1]  # one product for all
    many = vi.search_many(queries, ks, "text")
    with db.transaction():  # inside a write transaction each goes to sqlite-vec (pgvector)
        in_store = vi.search_many(list(queries), ks, "text")
    assert len(many) == len(in_store) == 5
    for mine, theirs, k in zip(many, in_store, ks):
        assert [i for i, _ in mine] == [i for i, _ in theirs] and len(mine) == min(k, 1200)
        assert [s for _, s in mine] == pytest.approx([s for _, s in theirs], abs=1e-5)
    assert vi.search_many([], [], "text") == [] and vi.search_many(queries[:2], [0, 0], "text") == [[], []]
    with pytest.raises(ValueError):
        vi.search_many(queries, [10], "text")


def test_the_copy_follows_what_another_connection_commits(backend):
    rng = np.random.default_rng(1)
    reader, writer = VectorIndex(backend.open(), "entities"), VectorIndex(backend.open(), "entities")
    writer.ensure(16, "toy")
    vectors = random_units(rng, 50)
    writer.add(list(range(1, 51)), vectors, "text")
    q = vectors[7]
    assert reader.search(q, 1, "text")[0][0] == 8
    writer.remove([8])  # deleted: gone from the copy
    assert reader.search(q, 1, "text")[0][0] != 8
    writer.add([8], np.stack([-q]), "text")  # re-embedded under the same id (a merged entity)
    assert reader.search(-q, 1, "text") == [(8, pytest.approx(1.0, abs=1e-5))]
    assert reader.similarities(q, [8])[8] == pytest.approx(-1.0, abs=1e-5)
    writer.add([99], np.stack([q]), "summary")  # another source's vector stays out
    assert [i for i, _ in reader.search(q, 60, "text")] == [i for i, _ in reader.search_in_store(q, 60, "text")]


def test_a_search_inside_a_write_transaction_leaves_the_copy_alone(backend):
    rng = np.random.default_rng(2)
    db = backend.open()
    vi = VectorIndex(db, "chunks")
    vi.ensure(16, "toy")
    vectors = random_units(rng, 30)
    vi.add(list(range(1, 31)), vectors, "text")
    assert vi.search(vectors[0], 1, "text")[0][0] == 1
    with pytest.raises(RuntimeError), db.transaction():
        vi.add([100], np.stack([vectors[0]]), "text")
        assert {i for i, _ in vi.search(vectors[0], 2, "text")} == {1, 100}  # its own uncommitted write
        raise RuntimeError("rolled back")
    assert vi.search(vectors[0], 1, "text")[0][0] == 1
    assert 100 not in {i for i, _ in vi.search(vectors[0], 30, "text")}


def test_a_copy_behind_the_trimmed_log_reads_its_table_again(backend, monkeypatch):
    import k2desk.store.vectors as vectors_module

    monkeypatch.setattr(vectors_module, "LOG_KEEP", 10)
    rng = np.random.default_rng(3)
    reader, writer = VectorIndex(backend.open(), "chunks"), VectorIndex(backend.open(), "chunks")
    writer.ensure(16, "toy")
    writer.add([1, 2], random_units(rng, 2), "text")
    assert len(reader.search(random_units(rng, 1)[0], 10, "text")) == 2
    for i in range(3, 40):
        writer.add([i], random_units(rng, 1), "text")
    writer.remove([1])
    assert writer.db.one("SELECT count(*) FROM vector_log")[0] <= 11
    found = reader.search(random_units(rng, 1)[0], 100, "text")
    assert sorted(i for i, _ in found) == list(range(2, 40))


def test_a_collection_made_again_at_the_same_path_is_not_served_the_old_vectors(backend):
    rng = np.random.default_rng(4)
    old = VectorIndex(backend.open(), "chunks")
    old.ensure(16, "toy")
    old.add([1, 2, 3], random_units(rng, 3), "text")
    assert len(old.search(random_units(rng, 1)[0], 10, "text")) == 3
    old.db.close()
    backend.drop()
    new = VectorIndex(backend.open(), "chunks")  # the same name, a new collection: the same log position
    new.ensure(16, "toy")
    vectors = random_units(rng, 3)
    new.add([1, 2, 3], vectors, "text")
    assert new.search(vectors[2], 1, "text") == [(3, pytest.approx(1.0, abs=1e-5))]


def test_similarities_from_the_copy_agree_with_the_store_after_changes(backend):
    """The copy answers similarities by id (ids out of order after an incremental refresh,
    unknown ids and the other source's ids left out), as sqlite-vec (pgvector) computes them."""
    rng = np.random.default_rng(2)
    db = backend.open()
    vi = VectorIndex(db, "chunks")
    vi.ensure(16, "toy")
    vi.add(list(range(500, 800)), random_units(rng, 300), "text")
    vi.add(list(range(1, 50)), random_units(rng, 49), "summary")
    q = random_units(rng, 1)[0]
    vi.search(q, 3, "text")  # the copy is made
    vi.remove(range(600, 650))
    vi.add(list(range(100, 150)), random_units(rng, 50), "text")  # lower ids, appended to the copy
    vi.search(q, 3, "text")  # and brought up to date
    wanted = [799, 120, 5, 610, 9999, 500, 149, 120]
    got = vi.similarities(q, wanted)
    assert set(got) == {799, 120, 500, 149, 5}
    stored = {int(i): 1.0 - d for i, d in db.all(f"SELECT id, {db.dialect.distance} FROM vec_chunks "
                                                 "WHERE id IN (799, 120, 500, 149, 5)", (db.dialect.vector(q),))}
    assert got == pytest.approx(stored, abs=1e-5)


@pytest.mark.parametrize("count", [0, 5, 12, 30])
def test_a_table_read_into_arrays_sized_by_its_count_keeps_every_row(count):
    """Rows committed or removed between the count and the read change nothing read."""
    from k2desk.store.vectors import _read_into

    rng = np.random.default_rng(3)
    blocks = [(np.arange(n, n + 4, dtype=np.int64), random_units(rng, 4)) for n in range(0, 12, 4)]
    ids, rows = _read_into(iter(blocks), count)
    assert ids.tolist() == list(range(12))
    assert np.array_equal(rows, np.concatenate([r for _, r in blocks]))
    assert _read_into(iter([]), count)[0].shape == (0,)


def test_the_copy_misses_no_vector_committed_late_by_another_writer(backend):
    """Writer A logs vector 2 and commits late; writer B logs vector 3 and commits meanwhile (on a
    server B waits for A's commit). A reader that caught up between B's commit and A's must still
    get vector 2 at its next search: the log's numbers follow the commits."""
    import threading
    import time

    a, b, reader = (VectorIndex(backend.open(), "chunks") for _ in range(3))
    a.ensure(4, "toy")
    a.add([1], np.stack([unit(1, 0, 0, 0)]), "text")
    assert [i for i, _ in reader.search(unit(1, 0, 0, 0), 5, "text")] == [1]
    logged, commit_a = threading.Event(), threading.Event()

    def write_a():
        with a.db.transaction():
            a.add([2], np.stack([unit(0, 1, 0, 0)]), "text")
            logged.set()
            commit_a.wait(10)

    def write_b():
        with b.db.transaction():
            b.add([3], np.stack([unit(0, 0, 1, 0)]), "text")

    threads = [threading.Thread(target=write_a)]
    threads[0].start()
    assert logged.wait(10)
    threads.append(threading.Thread(target=write_b))
    threads[1].start()
    time.sleep(0.5)  # B has committed, or waits for A
    seen = {i for i, _ in reader.search(unit(1, 1, 1, 0), 5, "text")}
    assert 2 not in seen
    commit_a.set()
    for t in threads:
        t.join(15)
    assert {i for i, _ in reader.search(unit(1, 1, 1, 0), 5, "text")} == {1, 2, 3} == \
        {i for i, _ in reader.search_in_store(unit(1, 1, 1, 0), 5, "text")}
