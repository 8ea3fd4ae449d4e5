-- k2desk collection store on PostgreSQL, version 9: the twin of ../009_sparse_postings.sql.
-- Keyword search by FTS5's BM25 (k1 1.2, b 0.75): one row per term and chunk with the term's
-- count in the chunk (tf) and the chunk's length in terms (dl). A question's terms are looked up
-- by the primary key and their scores summed per chunk, instead of ts_rank once per term and
-- matched row (120 ms for 29 terms over 3,400 chunks; docs/postgres.md). Filled from the
-- tsvectors of a collection made before (a term's positions: its count).
CREATE TABLE sparse_text_postings (
  term TEXT   NOT NULL,
  id   BIGINT NOT NULL REFERENCES sparse_text(id) ON DELETE CASCADE,
  tf   INTEGER NOT NULL,
  dl   INTEGER NOT NULL,
  PRIMARY KEY (term, id) INCLUDE (tf, dl)  -- a question's postings read from the index alone
);
CREATE INDEX sparse_text_postings_id ON sparse_text_postings (id);
CREATE TABLE sparse_summary_postings (
  term TEXT   NOT NULL,
  id   BIGINT NOT NULL REFERENCES sparse_summary(id) ON DELETE CASCADE,
  tf   INTEGER NOT NULL,
  dl   INTEGER NOT NULL,
  PRIMARY KEY (term, id) INCLUDE (tf, dl)  -- a question's postings read from the index alone
);
CREATE INDEX sparse_summary_postings_id ON sparse_summary_postings (id);
INSERT INTO sparse_text_postings (term, id, tf, dl)
SELECT u.lexeme, s.id, coalesce(array_length(u.positions, 1), 1), d.dl
FROM sparse_text s
CROSS JOIN LATERAL (SELECT coalesce(sum(coalesce(array_length(v.positions, 1), 1)), 0)::int AS dl FROM unnest(s.terms) v) d
CROSS JOIN LATERAL unnest(s.terms) u;
INSERT INTO sparse_summary_postings (term, id, tf, dl)
SELECT u.lexeme, s.id, coalesce(array_length(u.positions, 1), 1), d.dl
FROM sparse_summary s
CROSS JOIN LATERAL (SELECT coalesce(sum(coalesce(array_length(v.positions, 1), 1)), 0)::int AS dl FROM unnest(s.terms) v) d
CROSS JOIN LATERAL unnest(s.terms) u;
