"""Dense vectors in sqlite-vec ``vec0`` tables (cosine distance), one table per kind of item.

Tables are created on first use with the embedder's dimension, recorded in ``meta`` so that a
collection built with one embedder is never queried with another. A ``source`` metadata column
('text' | 'summary') keeps the naive baselines' and K²RAG's vectors apart in one table (no
partition key: each partition reserves 1,024 slots).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from k2desk.errors import StoreError
from k2desk.store.db import Database

KINDS = ("chunks", "entities", "relations", "nodes")


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


class VectorIndex:
    def __init__(self, db: Database, kind: str = "chunks") -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown vector kind {kind!r}")
        self.db = db
        self.table = f"vec_{kind}"

    def ensure(self, dim: int, embedder: str) -> None:
        """Create the table for ``dim``-d vectors, or check it matches the recorded embedder."""
        have_dim, have_name = self.db.get_meta("embed_dim"), self.db.get_meta("embedder")
        if have_dim is not None and (int(have_dim) != dim or have_name != embedder):
            raise StoreError(
                f"this collection was built with embedder {have_name} ({have_dim}-d), not {embedder} ({dim}-d); "
                "use the same embedder or index into a new collection"
            )
        if have_dim is None:
            self.db.set_meta("embed_dim", str(dim))
            self.db.set_meta("embedder", embedder)
        if not self.db.table_exists(self.table):
            self.db.execute(
                f"CREATE VIRTUAL TABLE {self.table} USING vec0("
                f"id INTEGER PRIMARY KEY, source TEXT, embedding float[{dim}] distance_metric=cosine)"
            )

    @property
    def ready(self) -> bool:
        return self.db.table_exists(self.table)

    def add(self, ids: Sequence[int], vectors: np.ndarray, source: str) -> None:
        if len(ids) != len(vectors):
            raise ValueError("ids and vectors differ in length")
        self.db.executemany(f"INSERT INTO {self.table}(id, source, embedding) VALUES (?, ?, ?)",
                            [(int(i), source, _blob(v)) for i, v in zip(ids, vectors)])

    def remove(self, ids: Iterable[int]) -> None:
        if self.ready:
            self.db.executemany(f"DELETE FROM {self.table} WHERE id = ?", [(int(i),) for i in ids])

    def search(self, query: np.ndarray, k: int, source: str) -> list[tuple[int, float]]:
        """Top ``k`` (id, cosine similarity) among vectors of ``source``."""
        if not self.ready or k <= 0:
            return []
        rows = self.db.all(
            f"SELECT id, distance FROM {self.table} WHERE embedding MATCH ? AND k = ? AND source = ? ORDER BY distance",
            (_blob(query), int(k), source),
        )
        return [(int(i), 1.0 - float(d)) for i, d in rows]

    def similarities(self, query: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine similarity of ``query`` to each of ``ids`` (those that have a vector)."""
        if not self.ready or not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.all(f"SELECT id, vec_distance_cosine(embedding, ?) FROM {self.table} WHERE id IN ({marks})",
                           [_blob(query), *map(int, ids)])
        return {int(i): 1.0 - float(d) for i, d in rows}

    def count(self, source: str | None = None) -> int:
        if not self.ready:
            return 0
        if source is None:
            return int(self.db.one(f"SELECT count(*) FROM {self.table}")[0])
        return int(self.db.one(f"SELECT count(*) FROM {self.table} WHERE source = ?", (source,))[0])
