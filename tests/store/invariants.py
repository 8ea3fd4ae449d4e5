"""What must hold in a collection file at any moment, even right after a SIGKILL, and a dump of
its content that two runs can be compared by (ids and timestamps left out).

Used by the crash test (tests/test_crash_resume.py) and the hostile-input test.
"""

from __future__ import annotations

from pathlib import Path

import apsw
import sqlite_vec

VEC_TABLES = {"vec_chunks": "chunks", "vec_entities": "entities", "vec_relations": "relations", "vec_nodes": "hypernodes"}
SPARSE = {"text": "sparse_text", "summary": "sparse_summary"}


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


def _rows(conn: apsw.Connection, sql: str) -> list[tuple]:
    return list(conn.execute(sql))


def _has(conn: apsw.Connection, table: str) -> bool:
    return bool(_rows(conn, f"SELECT 1 FROM sqlite_master WHERE name = '{table}'"))


def problems(path: Path) -> list[str]:
    """Every broken invariant of the file, as readable lines (empty: consistent)."""
    conn = open_readonly(path)
    out: list[str] = []
    q = lambda sql: _rows(conn, sql)  # noqa: E731
    try:
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
        if _has(conn, "vec_chunks"):
            vec = {(i, s) for i, s in q("SELECT id, source FROM vec_chunks")}
            want = {(i, s) for i, s in q("SELECT id, source FROM chunks WHERE profile = 'vec'")}
            if vec != want:
                out.append(f"vec_chunks differs from the chunks: {len(vec - want)} orphan, {len(want - vec)} missing")
        for source, table in SPARSE.items():
            fts = {r[0] for r in q(f"SELECT rowid FROM {table}")}
            want = {r[0] for r in q(f"SELECT id FROM chunks WHERE profile = 'vec' AND source = '{source}'")}
            if fts != want:
                out.append(f"{table} differs from the chunks: {len(fts - want)} orphan, {len(want - fts)} missing")
        for table, items in VEC_TABLES.items():
            if table != "vec_chunks" and _has(conn, table):
                if bad := q(f"SELECT count(*) FROM {table} WHERE id NOT IN (SELECT id FROM {items})")[0][0]:
                    out.append(f"{bad} orphan rows in {table}")
        for message, sql in COUNT_CHECKS:
            if bad := q(sql)[0][0]:
                out.append(f"{bad} {message}")
    finally:
        conn.close()
    return out


def stages(path: Path) -> dict[tuple[str, str], float]:
    """(document key, stage) -> when it was built."""
    conn = open_readonly(path)
    try:
        return {(k, s): t for k, s, t in _rows(conn, "SELECT d.key, s.stage, s.done_at FROM document_stages s "
                                                       "JOIN documents d ON d.id = s.document_id")}
    finally:
        conn.close()


def dump(path: Path, root: str = "") -> dict[str, list]:
    """The collection's content without ids, times or machine paths (``root`` is cut from keys)."""
    conn = open_readonly(path)
    q = lambda sql: [tuple(x.replace(root, "") if isinstance(x, str) else x for x in r) for r in _rows(conn, sql)]  # noqa: E731
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
        if _has(conn, "vec_chunks"):  # vectors by the chunk they embed, rounded (same model, same text)
            out["vectors"] = [(k, s, p, seq, tuple(round(float(x), 4) for x in memoryview(v).cast("f")))
                              for k, s, p, seq, v in q("SELECT d.key, c.source, c.profile, c.seq, v.embedding FROM vec_chunks v "
                                                       "JOIN chunks c ON c.id = v.id JOIN documents d ON d.id = c.document_id "
                                                       "ORDER BY 1, 2, 3, 4")]
        for table in SPARSE.values():  # the FTS rows: which chunks each term is in
            out[table] = q(f"SELECT term, doc, cnt FROM {table}_vocab ORDER BY term")
        return out
    finally:
        conn.close()
