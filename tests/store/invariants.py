"""What must hold in a collection at any moment, even right after a SIGKILL, and a dump of its
content that two runs can be compared by (ids and timestamps left out), on either backend: a
collection file (a path) or a collection on a PostgreSQL server (its address).

Used by the crash test (tests/test_crash_resume.py), the concurrent indexers' test and the
hostile-input test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Union

import apsw
import numpy as np
import sqlite_vec

from k2desk.store.address import is_server_address, open_database

VEC_TABLES = {"vec_chunks": "chunks", "vec_entities": "entities", "vec_relations": "relations", "vec_nodes": "hypernodes"}
SPARSE = {"text": "sparse_text", "summary": "sparse_summary"}
Address = Union[str, Path]


# (what is wrong, a query counting the rows where it is): graph items mentioned somewhere,
# mentions of their own chunk's document, a hypernode per relation, a summary per summary stage
COUNT_CHECKS = [
    ("entities without a mention or relation",
     "SELECT count(*) FROM entities e WHERE NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id) "
     "AND NOT EXISTS (SELECT 1 FROM relations r WHERE e.id IN (r.src_id, r.dst_id))"),
    ("relations without a mention",
     "SELECT count(*) FROM relations r WHERE NOT EXISTS (SELECT 1 FROM relation_mentions m WHERE m.relation_id = r.id)"),
    *[(f"{m} naming another document than their chunk's",
       f"SELECT count(*) FROM {m} m JOIN chunks c ON c.id = m.chunk_id WHERE c.document_id != m.document_id")
      for m in ("entity_mentions", "relation_mentions")],
    ("relations without their hypernode",
     "SELECT count(*) FROM relations r LEFT JOIN hypernodes h ON h.id = r.id WHERE h.id IS NULL"),
    ("documents with a summary stage and no summary",
     "SELECT count(*) FROM document_stages s JOIN documents d ON d.id = s.document_id "
     "WHERE s.stage = 'summary' AND coalesce(d.summary, '') = ''"),
    ("stages built from another content than the document's",
     "SELECT count(*) FROM document_stages s JOIN documents d ON d.id = s.document_id WHERE s.content_hash != d.content_hash"),
]


def open_readonly(path: Path) -> apsw.Connection:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    return conn


class _Reader:
    """Read-only queries on a collection of either backend (``?`` placeholders, as the store's)."""

    def __init__(self, address: Address) -> None:
        self.server = is_server_address(address)
        self.db = open_database(address if self.server else Path(address), readonly=True)

    def __call__(self, sql: str) -> list[tuple]:
        return self.db.all(sql)

    def has(self, table: str) -> bool:
        return self.db.table_exists(table)

    def sparse_ids(self, table: str) -> str:
        return f"SELECT {'id' if self.server else 'rowid'} FROM {table}"

    def vocabulary(self, table: str) -> str:
        """Each term with the number of chunks it is in and its occurrences."""
        if self.server:
            return f"SELECT word, ndoc, nentry FROM ts_stat('SELECT terms FROM {table}') ORDER BY word"
        return f"SELECT term, doc, cnt FROM {table}_vocab ORDER BY term"

    def close(self) -> None:
        self.db.close()


def _floats(value) -> tuple[float, ...]:
    array = np.frombuffer(value, dtype=np.float32) if isinstance(value, (bytes, memoryview)) else np.asarray(value, float)
    return tuple(round(float(x), 4) for x in array)


def problems(address: Address) -> list[str]:
    """Every broken invariant of the collection, as readable lines (empty: consistent)."""
    q = _Reader(address)
    out: list[str] = []
    try:
        if not q.server:  # a server checks its pages and foreign keys on every write
            if (ic := q("PRAGMA integrity_check")) != [("ok",)]:
                out.append(f"integrity_check: {ic[:3]}")
            if fk := q("PRAGMA foreign_key_check"):
                out.append(f"foreign keys: {fk[:3]}")
        # chunks: one row per (document, source, profile, seq), each stage all or nothing
        if dup := q("SELECT document_id, source, profile, seq, count(*) FROM chunks GROUP BY 1, 2, 3, 4 HAVING count(*) > 1"):
            out.append(f"duplicate chunks: {dup[:3]}")
        stage_of = {("text", "vec"): "text", ("summary", "vec"): "summary_index", ("text", "graph"): "graph_text",
                    ("summary", "graph"): "graph_summary"}
        for (source, profile), stage in stage_of.items():
            if bad := q(f"""SELECT DISTINCT c.document_id FROM chunks c WHERE c.source = '{source}' AND c.profile = '{profile}'
                          AND NOT EXISTS (SELECT 1 FROM document_stages s WHERE s.document_id = c.document_id
                                          AND s.stage = '{stage}')"""):
                out.append(f"{source}/{profile} chunks without their stage '{stage}' (partial write): documents {bad[:5]}")
        # dense and sparse rows: exactly the vec-profile chunks of their source
        if q.has("vec_chunks"):
            vec = {(i, s) for i, s in q("SELECT id, source FROM vec_chunks")}
            want = {(i, s) for i, s in q("SELECT id, source FROM chunks WHERE profile = 'vec'")}
            if vec != want:
                out.append(f"vec_chunks differs from the chunks: {len(vec - want)} orphan, {len(want - vec)} missing")
        for source, table in SPARSE.items():
            fts = {r[0] for r in q(q.sparse_ids(table))}
            want = {r[0] for r in q(f"SELECT id FROM chunks WHERE profile = 'vec' AND source = '{source}'")}
            if fts != want:
                out.append(f"{table} differs from the chunks: {len(fts - want)} orphan, {len(want - fts)} missing")
        for table, items in VEC_TABLES.items():
            if table != "vec_chunks" and q.has(table):
                if bad := q(f"SELECT count(*) FROM {table} WHERE id NOT IN (SELECT id FROM {items})")[0][0]:
                    out.append(f"{bad} orphan rows in {table}")
        for message, sql in COUNT_CHECKS:
            if bad := q(sql)[0][0]:
                out.append(f"{bad} {message}")
    finally:
        q.close()
    return out


def stages(address: Address) -> dict[tuple[str, str], float]:
    """(document key, stage) -> when it was built."""
    q = _Reader(address)
    try:
        return {(k, s): t for k, s, t in q("SELECT d.key, s.stage, s.done_at FROM document_stages s "
                                           "JOIN documents d ON d.id = s.document_id")}
    finally:
        q.close()


def dump(address: Address, root: str = "") -> dict[str, list]:
    """The collection's content without ids, times or machine paths (``root`` is cut from keys)."""
    reader = _Reader(address)
    q = lambda sql: [tuple(x.replace(root, "") if isinstance(x, str) else x for x in r) for r in reader(sql)]  # noqa: E731
    try:
        out = {
            "documents": q("SELECT key, content_hash, status, coalesce(error, ''), coalesce(summary, '') FROM documents ORDER BY key"),
            "stages": q("SELECT d.key, s.stage, s.content_hash "
                        "FROM document_stages s JOIN documents d ON d.id = s.document_id ORDER BY 1, 2"),
            "chunks": q("SELECT d.key, c.source, c.profile, c.seq, c.text "
                        "FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY 1, 2, 3, 4"),
            "entities": q("SELECT source, name, display, type, description, coalesce(vector_key, '') FROM entities ORDER BY 1, 2"),
            "relations": q("SELECT r.source, a.name, b.name, r.description, r.keywords, r.strength FROM relations r "
                           "JOIN entities a ON a.id = r.src_id JOIN entities b ON b.id = r.dst_id ORDER BY 1, 2, 3"),
            "entity_mentions": q("SELECT e.name, d.key, c.seq, m.type, "
                                 "m.description FROM entity_mentions m JOIN entities e ON e.id = m.entity_id "
                                 "JOIN chunks c ON c.id = m.chunk_id JOIN documents d ON d.id = m.document_id ORDER BY 1, 2, 3"),
            "relation_mentions": q("SELECT a.name, b.name, d.key, c.seq, m.description FROM relation_mentions m "
                                   "JOIN relations r ON r.id = m.relation_id JOIN entities a ON a.id = r.src_id "
                                   "JOIN entities b ON b.id = r.dst_id JOIN chunks c ON c.id = m.chunk_id "
                                   "JOIN documents d ON d.id = m.document_id ORDER BY 1, 2, 3, 4"),
            "hypernodes": q("SELECT source, label, vector_key FROM hypernodes ORDER BY 1, 2"),
        }
        if reader.has("vec_chunks"):  # vectors by the chunk they embed, rounded (same model, same text)
            out["vectors"] = [(k, s, p, seq, _floats(v))
                              for k, s, p, seq, v in q("SELECT d.key, c.source, c.profile, c.seq, v.embedding FROM vec_chunks v "
                                                       "JOIN chunks c ON c.id = v.id JOIN documents d ON d.id = c.document_id "
                                                       "ORDER BY 1, 2, 3, 4")]
        for table in SPARSE.values():  # the sparse rows: which chunks each term is in
            out[table] = q(reader.vocabulary(table))
        return out
    finally:
        reader.close()
