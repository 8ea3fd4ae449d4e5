"""Copying a collection from one database to another: a SQLite file and a PostgreSQL server, either
way (a person's file becomes the team's index, and back), or file to file, server to server.

Every row keeps its id, so the chunks' vectors and sparse rows, the graph's mentions and the
hypernodes point where they pointed. Copied: the documents with their stages and chunks, the
vectors of every kind, the sparse rows, the graph (entities, relations, their mentions), the
hypernodes and their links, the history, and ``meta`` but for the collection's identity (``uid``)
and what only describes this database's own state (the sparse indexes' generations, the vector
log's floor). The ``vector_log`` is not copied: the destination logs the vectors it is given.

The sparse rows cannot be read back as text from either backend (FTS5's tables keep no content,
the server holds each chunk's stemmed terms), so they are made again on the destination from their
chunks, as the chunk stage makes them: the document's header line, then the chunk's text. Both
backends tokenize with FTS5's own tokenizer, so the terms are the same.

The source is read in one snapshot; the destination is written in one transaction, which ends with
every table's count (vectors per source, sparse rows, meta) compared with the source's: a copy that
differs rolls back and leaves the destination as it was. A destination holding anything is refused
unless ``replace``, which empties it in the same transaction.

PostgreSQL's text cannot hold U+0000 (NUL): written to a server, a NUL is stored as U+FFFD
(``k2desk.store.postgres``); the report counts the values that held one.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from k2desk.errors import StoreError, UsageError
from k2desk.progress import CancelToken, Progress, progress_or_noop
from k2desk.store.sparse import SOURCES, SparseIndex
from k2desk.store.vectors import FETCH_BATCH, KINDS, VectorIndex
from k2desk.text.headers import chunk_header

# the tables copied row by row, parents first, with their primary keys
TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("documents", ("id",)),
    ("document_stages", ("document_id", "stage")),
    ("chunks", ("id",)),
    ("entities", ("id",)),
    ("relations", ("id",)),
    ("entity_mentions", ("entity_id", "chunk_id")),
    ("relation_mentions", ("relation_id", "chunk_id")),
    ("hypernodes", ("id",)),
    ("hypernode_links", ("hypernode_id", "entity_id")),
    ("threads", ("id",)),
    ("history", ("id",)),
)
IDENTITIES = ("documents", "chunks", "entities", "relations", "threads", "history")  # ids a new row takes from a sequence
NOT_COPIED_META = ("uid",)
NOT_COPIED_META_PREFIXES = ("generation:", "vector_log_floor:")
PAGE = 1000  # rows read per statement
NUL = "\x00"


@dataclass
class CopyReport:
    counts: dict[str, int] = field(default_factory=dict)  # what the destination holds, as checked
    nul_values: int = 0  # texts that held a NUL character (stored as U+FFFD on a server)
    replaced: dict[str, int] = field(default_factory=dict)  # what the destination held before (replace)
    seconds: float = 0.0

    def summary(self) -> str:
        c = self.counts
        vectors = sum(n for k, n in c.items() if k.startswith("vec_"))
        sparse = sum(n for k, n in c.items() if k.startswith("sparse_"))
        line = (f"{c.get('documents', 0)} documents, {c.get('chunks', 0)} chunks, {vectors} vectors, {sparse} sparse rows, "
                f"{c.get('entities', 0)} entities, {c.get('relations', 0)} relations, {c.get('hypernodes', 0)} hypernodes, "
                f"{c.get('history', 0)} questions of history in {self.seconds:.1f} s")
        if self.nul_values:
            line += (f"; {self.nul_values} text{'s' if self.nul_values != 1 else ''} held NUL characters, "
                     "stored as U+FFFD (PostgreSQL's text cannot hold NUL)")
        return line


def _kept_meta(key: str) -> bool:
    return key not in NOT_COPIED_META and not key.startswith(NOT_COPIED_META_PREFIXES)


def _columns(db, table: str) -> list[str]:
    return [r[0] for r in db.all(db.dialect.columns, (table,))]


def _pages(db, table: str, columns: list[str], key: tuple[str, ...], page: int = PAGE):
    """The table's rows in the order of its primary key, ``page`` at a time (keyset pagination:
    each statement starts after the last row of the one before)."""
    select = f"SELECT {', '.join(columns)} FROM {table}"
    order = f" ORDER BY {', '.join(key)} LIMIT ?"
    at = [columns.index(k) for k in key]
    last: Optional[list] = None
    while True:
        if last is None:
            rows = db.all(select + order, (page,))
        else:
            after = f"({', '.join(key)}) > ({', '.join('?' * len(key))})" if len(key) > 1 else f"{key[0]} > ?"
            rows = db.all(f"{select} WHERE {after}{order}", (*last, page))
        if not rows:
            return
        yield rows
        last = [rows[-1][i] for i in at]


def counts(db) -> dict[str, int]:
    """What a collection holds, as a copy is checked: rows per table, vectors per table and
    source, sparse rows per source, and one entry per ``meta`` key copied (its value's hash)."""
    out: dict[str, int] = {}
    for table, _ in TABLES:
        out[table] = int(db.one(f"SELECT count(*) FROM {table}")[0])
    for kind in KINDS:
        index = VectorIndex(db, kind)
        if index.ready:
            for source, n in db.all(f"SELECT source, count(*) FROM {index.table} GROUP BY source"):
                out[f"{index.table}/{source}"] = int(n)
    for source in SOURCES:
        out[f"sparse_{source}"] = int(db.one(f"SELECT count(*) FROM sparse_{source}")[0])
    return out


def _meta(db) -> dict[str, str]:
    return {k: v for k, v in db.all("SELECT key, value FROM meta") if _kept_meta(k)}


def copy_collection(src, dst, replace: bool = False, progress: Optional[Progress] = None,
                    cancel: Optional[CancelToken] = None) -> CopyReport:
    """Copy the collection open as ``src`` into ``dst`` (both ``Database`` or ``PostgresDatabase``)."""
    if src.location == dst.location and src.uid == dst.uid:
        raise UsageError("the source and the destination are the same collection")
    progress = progress_or_noop(progress)
    cancel = cancel or CancelToken()
    report, started = CopyReport(), time.monotonic()
    if src.schema_version != dst.schema_version:
        raise StoreError(f"the source has schema {src.schema_version} and the destination {dst.schema_version}: "
                         "open the older one with this k2desk first")
    for table, _ in TABLES:
        if sorted(_columns(src, table)) != sorted(_columns(dst, table)):
            raise StoreError(f"table {table} has other columns in the source than in the destination")
    with src.transaction():
        if src.dialect.snapshot:
            src.execute(src.dialect.snapshot)
        expected, meta = counts(src), _meta(src)
        with dst.transaction():
            held = {k: n for k, n in counts(dst).items() if n}
            if held:
                if not replace:
                    what = ", ".join(f"{n} {k}" for k, n in held.items())
                    raise StoreError(f"the destination already holds {what}; add --replace to overwrite it")
                report.replaced = held
                _empty(dst)
            for key, value in meta.items():
                dst.set_meta(key, value)
            for table, key in TABLES:
                nul = _copy_rows(src, dst, table, key, expected[table], progress, cancel)
                report.nul_values += nul if dst.dialect.name == "postgresql" else 0
            _copy_vectors(src, dst, meta, expected, progress, cancel)
            for source in SOURCES:
                _copy_sparse(src, dst, source, expected[f"sparse_{source}"], progress, cancel)
            got = counts(dst)
            differ = [f"{k} {got.get(k, 0)} against {n}" for k, n in expected.items() if got.get(k, 0) != n]
            differ += [f"{k} {n} (the source has none)" for k, n in got.items() if k not in expected and n]
            got_meta = _meta(dst)
            differ += [f"meta {k}" for k in sorted(set(meta) | set(got_meta)) if _meta_differs(dst, meta.get(k), got_meta.get(k))]
            if differ:
                raise StoreError(f"the copy differs from its source ({'; '.join(differ)}); nothing was written")
    for sql in dst.dialect.after_bulk_write():
        dst.execute(sql)
    report.counts = got
    report.seconds = time.monotonic() - started
    return report


def _meta_differs(dst, want: Optional[str], got: Optional[str]) -> bool:
    if want is not None and dst.dialect.name == "postgresql":
        want = want.replace(NUL, "\ufffd")
    return want != got


def _empty(db) -> None:
    """Delete what the collection holds (within the caller's transaction), its meta but for what
    describes the database itself."""
    for kind in KINDS:
        index = VectorIndex(db, kind)
        if index.ready:
            index.remove([r[0] for r in db.all(f"SELECT id FROM {index.table}")])  # logged, for in-process copies
            db.execute(f"DROP TABLE {index.table}")
    for source in SOURCES:
        SparseIndex(db, source).remove([r[0] for r in db.all(f"SELECT {db.dialect.sparse_id} FROM sparse_{source}")])
    for table, _ in reversed(TABLES):
        db.execute(f"DELETE FROM {table}")
    for (key,) in db.all("SELECT key FROM meta"):
        if _kept_meta(key):
            db.execute("DELETE FROM meta WHERE key = ?", (key,))


def _copy_rows(src, dst, table: str, key: tuple[str, ...], total: int, progress: Progress, cancel: CancelToken) -> int:
    columns = _columns(src, table)
    insert = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    done = nul = 0
    progress(table, 0, total)
    for rows in _pages(src, table, columns, key):
        cancel.check()
        nul += sum(1 for row in rows for v in row if isinstance(v, str) and NUL in v)
        dst.executemany(insert, rows)
        done += len(rows)
        progress(table, done, total)
    if table in IDENTITIES:
        for statement in dst.dialect.after_explicit_ids(table):
            dst.execute(statement)
    return nul


def _copy_vectors(src, dst, meta: dict[str, str], expected: dict[str, int], progress: Progress,
                  cancel: CancelToken) -> None:
    for kind in KINDS:
        source_index, target = VectorIndex(src, kind), VectorIndex(dst, kind)
        if not source_index.ready:
            continue
        if meta.get("embed_dim") is None:
            raise StoreError(f"the source's {source_index.table} has no recorded dimension (meta embed_dim)")
        target.ensure(int(meta["embed_dim"]), meta.get("embedder", ""))
        total = sum(n for k, n in expected.items() if k.startswith(source_index.table + "/"))
        rows = src.all(f"SELECT id, source FROM {source_index.table} ORDER BY id")
        by_source: dict[str, list[int]] = {}
        for i, source in rows:
            by_source.setdefault(source, []).append(int(i))
        done = 0
        progress(source_index.table, 0, total)
        for source, ids in by_source.items():
            for start in range(0, len(ids), FETCH_BATCH):
                cancel.check()
                batch = ids[start:start + FETCH_BATCH]
                got = dict(src.all(f"SELECT id, embedding FROM {source_index.table} WHERE id IN "
                                   f"({','.join('?' * len(batch))})", batch))
                vectors = np.stack([np.frombuffer(bytes(got[i]), dtype=np.float32) for i in batch])
                target.add(batch, vectors, source)
                done += len(batch)
                progress(source_index.table, done, total)


def indexed_text(title: str, meta: Any, text: str) -> str:
    """A chunk's text as its sparse row indexes it: the document's header line, then the text (as
    the chunk stage writes it, ``k2desk.indexing.chunks``)."""
    try:
        parsed = json.loads(meta or "{}")
    except ValueError:
        parsed = {}
    header = chunk_header(title, parsed if isinstance(parsed, dict) else {})
    return f"{header}\n{text}" if header else text


def _copy_sparse(src, dst, source: str, total: int, progress: Progress, cancel: CancelToken) -> None:
    table = f"sparse_{source}"
    ids = [int(r[0]) for r in src.all(f"SELECT {src.dialect.sparse_id} FROM {table} ORDER BY 1")]
    target, done = SparseIndex(dst, source), 0
    progress(table, 0, total)
    for start in range(0, len(ids), PAGE):
        cancel.check()
        batch = ids[start:start + PAGE]
        rows = src.all(f"SELECT c.id, d.title, d.meta, c.text FROM chunks c JOIN documents d ON d.id = c.document_id "
                       f"WHERE c.id IN ({','.join('?' * len(batch))})", batch)
        texts = {int(i): indexed_text(title, meta, text) for i, title, meta, text in rows}
        found = [i for i in batch if i in texts]  # a row without its chunk cannot be made again: the counts say so
        if found:
            target.add(found, [texts[i] for i in found])
        done += len(batch)
        progress(table, done, total)
