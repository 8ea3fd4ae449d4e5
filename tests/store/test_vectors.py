import numpy as np
import pytest

from k2desk.errors import StoreError
from k2desk.store.db import Database
from k2desk.store.vectors import VectorIndex


def unit(*xs):
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_search_filters_by_source_and_ranks_by_cosine(tmp_path):
    db = Database(tmp_path / "c.k2db")
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


def test_a_collection_refuses_another_embedder(tmp_path):
    db = Database(tmp_path / "c.k2db")
    VectorIndex(db, "chunks").ensure(3, "toy")
    with pytest.raises(StoreError, match="built with embedder toy"):
        VectorIndex(db, "entities").ensure(4, "other")
