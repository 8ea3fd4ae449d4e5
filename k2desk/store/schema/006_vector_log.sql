-- k2desk collection store, version 6: which vectors changed, in order, so that a process's
-- in-memory copy of a vector table (k2desk.store.vectors.Matrix) catches up by reading only the
-- vectors written or deleted since it was made (an entity re-embedded keeps its id). Old entries
-- are trimmed; a copy older than the trimmed part reads its table again.
CREATE TABLE vector_log (
  seq  INTEGER PRIMARY KEY AUTOINCREMENT,
  tbl  TEXT NOT NULL,     -- vec_chunks, vec_entities, vec_relations, vec_nodes
  id   INTEGER NOT NULL   -- the vector's id: written (again) or deleted
);
CREATE INDEX vector_log_tbl ON vector_log(tbl, seq);
