"""The statements that differ between a collection in a SQLite file and one on a PostgreSQL server.

The store classes write one SQL for both backends wherever the two agree (``?`` placeholders:
the PostgreSQL connection turns them into its own) and take the rest from ``db.dialect``:

* upserts SQLite writes as ``INSERT OR REPLACE``;
* JSON access (``json_extract`` against ``->>``);
* vectors: sqlite-vec's ``vec0`` tables against pgvector's ``vector(dim)`` columns, cosine
  distance ``vec_distance_cosine`` against ``<=>``, the exact scan of each;
* keyword search: FTS5 (BM25, its ``fts5vocab`` table for the statistics) against a ``tsvector``
  column with a GIN index (``ts_stat`` for the statistics; ranking below);
* the entities' names searched by word: an FTS5 table against a GIN index on
  ``to_tsvector('simple', name)``;
* the graph's walk: SQLite's recursive query names the walk twice, PostgreSQL allows it once.

Both backends index the same terms: the text is tokenized by FTS5's own porter tokenizer (through
apsw) on either, and PostgreSQL stores those terms as the ``tsvector`` (no second stemmer), so the
sparse cosine's term space and statistics are the same on both.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

MAX_LEXEME_BYTES = 2046  # PostgreSQL refuses a tsvector word longer than this
MAX_POSITION = 16383  # the highest position a tsvector records
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


class SqliteDialect:
    name = "sqlite"
    mark_stage = "INSERT OR REPLACE INTO document_stages(document_id, stage, content_hash, done_at) VALUES (?, ?, ?, ?)"
    outlets = ("SELECT DISTINCT json_extract(meta, '$.source') FROM documents "
               "WHERE json_valid(meta) AND json_type(meta, '$.source') = 'text' ORDER BY 1")
    # vectors: ``distance`` is the cosine distance of ``embedding`` to one parameter
    distance = "vec_distance_cosine(embedding, ?)"
    # sparse: the row id's column, a row's insert, the statistics (term, documents holding it)
    sparse_id = "rowid"
    sparse_insert = "INSERT INTO {table}(rowid, text) VALUES (?, ?)"
    sparse_vocabulary = "SELECT term, doc FROM {table}_vocab"
    sparse_postings: str | None = None  # FTS5 keeps its own
    stems_match_terms = True  # FTS5 stems each phrase of a MATCH again (SparseIndex.match_terms)
    # the entities' names by word: the FROM clause (entities as ``e``) and the condition on one parameter
    names_from = "entity_names n JOIN entities e ON e.id = n.rowid"
    names_match = "entity_names MATCH ?"
    # a table's columns in order (one parameter: the table's name)
    columns = "SELECT name FROM pragma_table_info(?) ORDER BY cid"
    # the first statement of a read transaction that sees one snapshot (SQLite's always does)
    snapshot: str | None = None

    @staticmethod
    def after_explicit_ids(table: str) -> list[str]:
        """What makes the next row's id follow rows written with their own ids (a copy)."""
        return []

    @staticmethod
    def after_bulk_write() -> list[str]:
        """What a collection needs after a bulk write (a copy), outside any transaction."""
        return []

    @staticmethod
    def vector(vec: np.ndarray) -> Any:
        """A vector as a statement's parameter."""
        return _blob(vec)

    @staticmethod
    def create_vectors(table: str, dim: int) -> list[str]:
        return [f"CREATE VIRTUAL TABLE {table} USING vec0("
                f"id INTEGER PRIMARY KEY, source TEXT, embedding float[{dim}] distance_metric=cosine)"]

    def nearest(self, table: str, query: np.ndarray, k: int, source: str) -> tuple[str, list]:
        """(id, cosine distance) of the ``k`` vectors of ``source`` closest to ``query``, exact."""
        return (f"SELECT id, distance FROM {table} WHERE embedding MATCH ? AND k = ? AND source = ? ORDER BY distance",
                [self.vector(query), int(k), source])

    @staticmethod
    def sparse_row(text: str, terms: Callable[[str], list[str]]) -> Any:
        """What a chunk's row in the sparse index holds (FTS5 tokenizes the text itself)."""
        return text

    @staticmethod
    def sparse_match(table: str, terms: Sequence[str], idfs: Sequence[float], limit: int,
                     within: Sequence[int] | None, avgdl: float = 0.0) -> tuple[str, list]:
        """(id, rank) of the chunks holding any of ``terms``, best (lowest rank) first: FTS5's
        BM25, whose rank is the negated score."""
        import json

        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in sorted(terms))
        sql, params = f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ?", [match]
        if within is not None:
            sql += " AND rowid IN (SELECT value FROM json_each(?))"
            params.append(json.dumps([int(i) for i in within]))
        return sql + " ORDER BY rank LIMIT ?", [*params, int(limit)]

    @staticmethod
    def name_query(key: str, prefix: bool = False) -> str:
        """The FTS5 query for a normalized name's words in this order (each a word's start with
        ``prefix``); a key's words are letters and digits only, so quoting them is safe."""
        if prefix:
            return " + ".join(f'"{word}"*' for word in key.split())
        return f'"{key}"'

    @staticmethod
    def neighbours(ids: Sequence[int], hops: int) -> tuple[str, list]:
        seeds = " UNION ALL ".join("SELECT ?, 0" for _ in ids)
        return (f"""WITH RECURSIVE walk(id, depth) AS (
                  {seeds}
                  UNION
                  SELECT r.dst_id, w.depth + 1 FROM walk w JOIN relations r ON r.src_id = w.id WHERE w.depth < ?
                  UNION
                  SELECT r.src_id, w.depth + 1 FROM walk w JOIN relations r ON r.dst_id = w.id WHERE w.depth < ?
                )
                SELECT id, min(depth) FROM walk GROUP BY id""", [*ids, int(hops), int(hops)])


def _quoted(word: str) -> str:
    """A word as a tsvector / tsquery literal's lexeme."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def _fits(word: str) -> bool:
    return 0 < len(word.encode("utf-8")) <= MAX_LEXEME_BYTES


class PostgresDialect:
    name = "postgresql"
    mark_stage = ("INSERT INTO document_stages(document_id, stage, content_hash, done_at) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (document_id, stage) DO UPDATE SET content_hash = excluded.content_hash, done_at = excluded.done_at")
    # meta is kept as the text written (as in the SQLite file): only valid JSON is read
    outlets = ("SELECT DISTINCT s FROM (SELECT CASE WHEN pg_input_is_valid(meta, 'json') THEN "
               "CASE WHEN json_typeof(meta::json -> 'source') = 'string' THEN meta::json ->> 'source' END END AS s "
               "FROM documents) m WHERE s IS NOT NULL ORDER BY 1")
    distance = "embedding <=> ?"
    sparse_id = "id"
    sparse_insert = "INSERT INTO {table}(id, terms) VALUES (?, CAST(? AS tsvector))"
    # the postings (migration 9): a term's chunks with its count there and the chunk's length
    sparse_postings = "INSERT INTO {table}_postings(term, id, tf, dl) VALUES (?, ?, ?, ?)"
    sparse_term_fits = staticmethod(_fits)
    sparse_vocabulary = "SELECT term, count(*), sum(tf) FROM {table}_postings GROUP BY term"
    stems_match_terms = False  # a tsquery literal's lexemes are looked up as written
    names_from = "entities e"
    names_match = "to_tsvector('simple', e.name) @@ CAST(? AS tsquery)"
    columns = ("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
               "AND table_name = ? ORDER BY ordinal_position")
    snapshot = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"

    @staticmethod
    def after_bulk_write() -> list[str]:
        """Statistics for the planner and the visibility map for index-only scans of the postings
        (a question's postings are read from the primary key's index alone once the table is
        vacuumed: BM25 10 ms against 41 ms, 29 terms over 3,400 chunks). Autovacuum does the same
        for an indexer's writes, later."""
        return [f"VACUUM (ANALYZE) sparse_{source}_postings" for source in ("text", "summary")]

    @staticmethod
    def after_explicit_ids(table: str) -> list[str]:
        """An identity column's sequence moved past the highest id written (rows written with their
        own ids leave it where it was)."""
        return [f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), coalesce(max(id), 0) + 1, false) FROM {table}"]

    @staticmethod
    def vector(vec: np.ndarray) -> Any:
        return np.ascontiguousarray(vec, dtype=np.float32)  # pgvector's adapter sends it as a vector

    @staticmethod
    def create_vectors(table: str, dim: int) -> list[str]:
        return [f"CREATE TABLE {table} (id BIGINT PRIMARY KEY, source TEXT NOT NULL, embedding vector({dim}) NOT NULL)",
                f"CREATE INDEX {table}_source ON {table}(source)"]

    def nearest(self, table: str, query: np.ndarray, k: int, source: str) -> tuple[str, list]:
        return (f"SELECT id, embedding <=> ? AS distance FROM {table} WHERE source = ? ORDER BY distance, id LIMIT ?",
                [self.vector(query), source, int(k)])

    @staticmethod
    def sparse_row(text: str, terms: Callable[[str], list[str]]) -> Any:
        """The text's terms (FTS5's tokenizer) as a tsvector literal with their positions."""
        positions: dict[str, list[int]] = {}
        for n, term in enumerate(terms(text), 1):
            if _fits(term):
                positions.setdefault(term, []).append(min(n, MAX_POSITION))
        return " ".join(f"{_quoted(t)}:{','.join(map(str, dict.fromkeys(p)))}" for t, p in positions.items())

    @staticmethod
    def sparse_match(table: str, terms: Sequence[str], idfs: Sequence[float], limit: int,
                     within: Sequence[int] | None, avgdl: float = 0.0) -> tuple[str, list]:
        """(id, rank) of the chunks holding any of ``terms``, best (lowest rank) first; the rank
        is the negated score, as FTS5's. The score is FTS5's BM25 (k1 1.2, b 0.75) from the
        postings (migration 9): each term's chunks by the primary key, ``idf × tf × 2.2 / (tf +
        1.2 × (0.25 + 0.75 × dl / avgdl))`` summed per chunk. Ties: the lower id first."""
        pairs = [(t, float(idf)) for t, idf in zip(terms, idfs, strict=True) if _fits(t)]
        if not pairs:
            return f"SELECT id, 0.0 FROM {table} WHERE false", []
        sql = (f"SELECT p.id, -sum(q.idf * p.tf * {BM25_K1 + 1}::float8 / (p.tf + {BM25_K1}::float8 * "
               f"({1 - BM25_B}::float8 + {BM25_B}::float8 * p.dl / CAST(? AS double precision)))) "
               f"AS rank FROM {table}_postings p JOIN unnest(CAST(? AS text[]), CAST(? AS double precision[])) AS q(term, idf) "
               f"ON q.term = p.term WHERE p.term = ANY(CAST(? AS text[]))")  # the condition: the primary key's index
        terms_ = [t for t, _ in pairs]
        params: list = [max(float(avgdl), 1e-9), terms_, [idf for _, idf in pairs], terms_]
        if within is not None:
            sql += " AND p.id = ANY(CAST(? AS bigint[]))"
            params.append([int(i) for i in within])
        return sql + " GROUP BY p.id ORDER BY rank, p.id LIMIT ?", [*params, int(limit)]

    @staticmethod
    def name_query(key: str, prefix: bool = False) -> str:
        """The tsquery for a normalized name's words next to each other in this order (each a
        word's start with ``prefix``)."""
        return " <-> ".join(_quoted(word) + (":*" if prefix else "") for word in key.split() if _fits(word))

    @staticmethod
    def neighbours(ids: Sequence[int], hops: int) -> tuple[str, list]:
        return ("""WITH RECURSIVE walk(id, depth) AS (
                  SELECT unnest(CAST(? AS bigint[])), 0
                  UNION
                  SELECT n.id, w.depth + 1 FROM walk w CROSS JOIN LATERAL (
                    SELECT r.dst_id AS id FROM relations r WHERE r.src_id = w.id
                    UNION ALL
                    SELECT r.src_id FROM relations r WHERE r.dst_id = w.id) n
                  WHERE w.depth < ?
                )
                SELECT id, min(depth) FROM walk GROUP BY id""", [[int(i) for i in ids], int(hops)])


SQLITE = SqliteDialect()
POSTGRES = PostgresDialect()
