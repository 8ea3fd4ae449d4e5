-- k2desk collection store, version 9: nothing changes in a file. FTS5 keeps its own postings and
-- ranks by BM25 itself; the PostgreSQL twin (pg/009_sparse_postings.sql) adds the postings table
-- that lets a server rank by the same BM25. The version number keeps both backends in step.
SELECT 1;
