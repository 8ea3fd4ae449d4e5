-- k2desk collection store on PostgreSQL, version 8: the twin of ../008_history_scope.sql.
ALTER TABLE history ADD COLUMN scope TEXT NOT NULL DEFAULT '[]';
