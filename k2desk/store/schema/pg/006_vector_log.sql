-- k2desk collection store on PostgreSQL, version 6: the twin of ../006_vector_log.sql. An identity
-- is never reused, as AUTOINCREMENT. (Its numbers are taken in the order rows are written, not the
-- order their transactions commit: concurrent writers are for a later version.)
CREATE TABLE vector_log (
  seq  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tbl  TEXT NOT NULL,
  id   BIGINT NOT NULL
);
CREATE INDEX vector_log_tbl ON vector_log(tbl, seq);
