-- k2desk collection store on PostgreSQL, version 11: the twin of ../011_history_verdict.sql.
ALTER TABLE history ADD COLUMN verdict TEXT NOT NULL DEFAULT '{}';
