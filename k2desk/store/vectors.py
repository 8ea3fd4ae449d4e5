"""Dense vectors in sqlite-vec ``vec0`` tables (cosine distance), one table per kind of item (on
a PostgreSQL server: a table with a pgvector ``vector(dim)`` column each, ``k2desk.store.dialect``).

Tables are created on first use with the embedder's dimension, recorded in ``meta`` so that a
collection built with one embedder is never queried with another. A ``source`` metadata column
('text' | 'summary') keeps the naive baselines' and K²RAG's vectors apart in one table (no
partition key: each partition reserves 1,024 slots).

The vectors live in the collection file; searches read them from an in-process copy (one
unit-normalized float32 matrix per table and source, an exact cosine by one BLAS product).
Measured at 100,000 384-d vectors on 2 cores: sqlite-vec's own scan takes ~45-80 ms per query,
the product ~8-14 ms (benchmarks/bench_scale.py), for 150 MB of RAM. Every write appends the
ids it touched to ``vector_log``; a search first brings its copy up to date by re-reading just
those ids, so a copy follows what any connection, thread or process committed. A search inside a
write transaction (whose changes may still roll back) asks sqlite-vec (pgvector) instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from itertools import islice
from typing import Iterable, Iterator, Optional, Sequence

import numpy as np

from k2desk.errors import StoreError
from k2desk.store.db import Database

KINDS = ("chunks", "entities", "relations", "nodes")
FETCH_BATCH = 500  # ids per "IN (...)" when reading changed vectors
KEEP_MATRICES = 8  # in-process copies kept (least recently used dropped)
LOG_KEEP = 200_000  # vector_log entries kept per table; a copy further behind reads its table again


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
            for statement in self.db.dialect.create_vectors(self.table, dim):
                self.db.execute(statement)

    @property
    def ready(self) -> bool:
        return self.db.table_exists(self.table)

    def add(self, ids: Sequence[int], vectors: np.ndarray, source: str) -> None:
        if len(ids) != len(vectors):
            raise ValueError("ids and vectors differ in length")
        self.db.executemany(f"INSERT INTO {self.table}(id, source, embedding) VALUES (?, ?, ?)",
                            [(int(i), source, self.db.dialect.vector(v)) for i, v in zip(ids, vectors)])
        self._log(ids)

    def remove(self, ids: Iterable[int]) -> None:
        ids = [int(i) for i in ids]
        if self.ready and ids:
            self.db.executemany(f"DELETE FROM {self.table} WHERE id = ?", [(i,) for i in ids])
            self._log(ids)

    def _log(self, ids: Sequence[int]) -> None:
        self.db.write_lock()  # log numbers in commit order (another writer's wait until this one commits)
        self.db.executemany("INSERT INTO vector_log(tbl, id) VALUES (?, ?)", [(self.table, int(i)) for i in ids])
        first, last = self.db.one("SELECT min(seq), max(seq) FROM vector_log WHERE tbl = ?", (self.table,))
        if last is not None and last - first > LOG_KEEP:
            floor = last - LOG_KEEP // 2
            self.db.execute("DELETE FROM vector_log WHERE tbl = ? AND seq < ?", (self.table, floor))
            self.db.set_meta(f"vector_log_floor:{self.table}", str(floor))

    def search(self, query: np.ndarray, k: int, source: str) -> list[tuple[int, float]]:
        """Top ``k`` (id, cosine similarity) among vectors of ``source``: exact."""
        return self.search_many([query], [k], source)[0]

    def search_many(self, queries: Sequence[np.ndarray], ks: Sequence[int], source: str) -> list[list[tuple[int, float]]]:
        """``search`` for each query with its own ``k``, by one pass over the vectors (a
        product reads every vector from memory: at 36k entity vectors ~4 ms, once for a
        question and its eight keywords instead of nine times)."""
        if len(ks) != len(queries):
            raise ValueError(f"{len(queries)} queries but {len(ks)} k's")
        if not self.ready or len(queries) == 0 or max(ks) <= 0:
            return [[] for _ in ks]
        if self.db.in_transaction:  # uncommitted writes must not reach the shared copy
            return [self.search_in_store(q, k, source) for q, k in zip(queries, ks)]
        return self._matrix(source).top_many(queries, ks)

    def search_in_store(self, query: np.ndarray, k: int, source: str) -> list[tuple[int, float]]:
        """The same search by sqlite-vec's (pgvector's) own exact scan (what ``search`` is checked
        against)."""
        if not self.ready or k <= 0:
            return []
        rows = self.db.all(*self.db.dialect.nearest(self.table, query, k, source))
        return [(int(i), 1.0 - float(d)) for i, d in rows]

    def similarities(self, query: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine similarity of ``query`` to each of ``ids`` (those that have a vector)."""
        if not self.ready or not ids:
            return {}
        out: dict[int, float] = {}
        if not self.db.in_transaction:
            seq = self._seq()
            for matrix in _loaded(self.db, self.table):
                if matrix.seq == seq:  # up to date: its rows are the stored vectors
                    out.update(matrix.similarities(query, [i for i in ids if i not in out]))
        rest = [int(i) for i in ids if i not in out]
        if rest:
            marks = ",".join("?" * len(rest))
            rows = self.db.all(f"SELECT id, {self.db.dialect.distance} FROM {self.table} WHERE id IN ({marks})",
                               [self.db.dialect.vector(query), *rest])
            out.update({int(i): 1.0 - float(d) for i, d in rows})
        return out

    def _seq(self) -> int:
        return int(self.db.one("SELECT coalesce(max(seq), 0) FROM vector_log WHERE tbl = ?", (self.table,))[0])

    def _matrix(self, source: str) -> "Matrix":
        key = (self.db.location, self.db.uid, self.table, source)
        with _lock:
            matrix = _matrices.pop(key, None) or Matrix()
            _matrices[key] = matrix  # most recently used last
            while len(_matrices) > KEEP_MATRICES:
                _matrices.popitem(last=False)
        floor = int(self.db.get_meta(f"vector_log_floor:{self.table}") or 0)
        matrix.refresh(self.db, self.table, source, self._seq(), floor)
        return matrix

    def load(self, source: str) -> bool:
        """Bring the in-process copy of ``source``'s vectors up to date now, as the next search
        would (the first search of a process reads them all: ~2 s at 100,000 chunks); False when
        there is none to read, or inside a write transaction (whose vectors may roll back)."""
        if not self.has(source) or self.db.in_transaction:
            return False
        self._matrix(source)
        return True

    def has(self, source: str) -> bool:
        """Whether any vector of ``source`` is stored (without counting them all)."""
        return self.ready and self.db.one(f"SELECT 1 FROM {self.table} WHERE source = ? LIMIT 1", (source,)) is not None

    def count(self, source: str | None = None) -> int:
        if not self.ready:
            return 0
        if source is None:
            return int(self.db.one(f"SELECT count(*) FROM {self.table}")[0])
        return int(self.db.one(f"SELECT count(*) FROM {self.table} WHERE source = ?", (source,))[0])


class Matrix:
    """Every vector of one table and source as unit-normalized float32 rows, with their ids, as
    of ``seq`` (the last vector_log entry applied)."""

    def __init__(self) -> None:
        self.seq: Optional[int] = None
        self.ids = np.empty(0, dtype=np.int64)
        self.rows = np.empty((0, 0), dtype=np.float32)
        self._by_id = np.empty(0, dtype=np.int64)  # row numbers in the order of their ids
        self.lock = threading.Lock()

    def refresh(self, db: Database, table: str, source: str, seq: int, floor: int) -> None:
        with self.lock:
            if seq == self.seq:
                return
            if self.seq is None or self.seq < floor:  # new, or behind what the log still holds
                count = int(db.one(f"SELECT count(*) FROM {table} WHERE source = ?", (source,))[0])
                self.ids, self.rows = _read_into(_blocks(db, f"SELECT id, embedding FROM {table} WHERE source = ?", [source]),
                                                 count)
            else:
                touched = np.array([r[0] for r in db.all("SELECT DISTINCT id FROM vector_log WHERE tbl = ? AND seq > ?",
                                                         (table, self.seq))], dtype=np.int64)
                keep = ~np.isin(self.ids, touched)
                ids, rows = [self.ids[keep]], [self.rows[keep]] if len(self.rows) else []
                for start in range(0, len(touched), FETCH_BATCH):
                    batch = [int(i) for i in touched[start:start + FETCH_BATCH]]
                    for got_ids, got_rows in _blocks(db, f"SELECT id, embedding FROM {table} WHERE source = ? AND id IN "
                                                         f"({','.join('?' * len(batch))})", [source, *batch]):
                        ids.append(got_ids)
                        rows.append(got_rows)
                self.ids = np.concatenate(ids)
                rows = [r for r in rows if len(r)]
                self.rows = np.ascontiguousarray(np.concatenate(rows)) if rows else np.empty((0, 0), dtype=np.float32)
            self._by_id = np.argsort(self.ids, kind="stable")
            self.seq = seq

    def top_many(self, queries: Sequence[np.ndarray], ks: Sequence[int]) -> list[list[tuple[int, float]]]:
        """The best ``k`` (id, similarity) of each query, best first (ties: lower id first)."""
        with self.lock:
            if not len(self.ids):
                return [[] for _ in queries]
            all_sims = self.rows @ _unit(np.asarray(np.stack(queries), dtype=np.float32)).T
            out = []
            for column, k in enumerate(ks):
                sims, k = all_sims[:, column], min(k, len(self.ids))
                if k <= 0:
                    out.append([])
                    continue
                best = np.argpartition(-sims, k - 1)[:k]
                best = best[np.lexsort((self.ids[best], -sims[best]))]
                out.append([(int(self.ids[j]), float(sims[j])) for j in best])
            return out

    def similarities(self, query: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        with self.lock:
            wanted = np.unique(np.asarray(list(ids), dtype=np.int64))
            if not len(wanted) or not len(self.ids):
                return {}
            at = np.minimum(np.searchsorted(self.ids, wanted, sorter=self._by_id), len(self.ids) - 1)
            found = self.ids[self._by_id[at]] == wanted
            rows = self._by_id[at[found]]
            sims = self.rows[rows] @ _unit(np.asarray(query, dtype=np.float32))
            return {int(i): float(s) for i, s in zip(wanted[found], sims)}


def _blocks(db: Database, sql: str, params: list, block: int = 8192) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(ids, unit rows) of a query's (id, embedding) rows, ``block`` rows at a time (never every
    row's bytes and floats at once)."""
    cursor = iter(db.execute(sql, params))
    while found := list(islice(cursor, block)):
        yield (np.array([r[0] for r in found], dtype=np.int64),
               _unit(np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32).reshape(len(found), -1)))


def _read_into(blocks: Iterable[tuple[np.ndarray, np.ndarray]], count: int) -> tuple[np.ndarray, np.ndarray]:
    """The blocks' ids and rows as two arrays allocated once for ``count`` rows (filling them never
    holds a second copy of the table; rows committed between the count and the read are added)."""
    ids, rows, filled, extra = np.empty(count, dtype=np.int64), None, 0, []
    for got_ids, got_rows in blocks:
        if rows is None:
            rows = np.empty((count, got_rows.shape[1]), dtype=np.float32)
        take = min(len(got_ids), count - filled)
        ids[filled:filled + take], rows[filled:filled + take] = got_ids[:take], got_rows[:take]
        filled += take
        if take < len(got_ids):
            extra.append((got_ids[take:], got_rows[take:]))
    if rows is None:
        return np.empty(0, dtype=np.int64), np.empty((0, 0), dtype=np.float32)
    ids, rows = ids[:filled], rows[:filled]
    if extra:
        ids = np.concatenate([ids, *(i for i, _ in extra)])
        rows = np.concatenate([rows, *(r for _, r in extra)])
    return ids, rows


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.where(norms > 0, norms, 1.0)).astype(np.float32)


_lock = threading.Lock()
_matrices: "OrderedDict[tuple[str, str, str, str], Matrix]" = OrderedDict()


def _loaded(db: Database, table: str) -> list[Matrix]:
    """The in-process copies of ``table`` of the collection ``db`` (any source)."""
    where = (db.location, db.uid)
    with _lock:
        return [m for (p, u, t, _), m in _matrices.items() if (p, u) == where and t == table]
