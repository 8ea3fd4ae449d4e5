-- k2desk collection store on PostgreSQL, version 7: the twin of ../007_entity_names.sql. The
-- entities' names indexed by word: a GIN index on their 'simple' tsvector (lower-case words, no
-- stemming, no stop words; the names are normalized keys), which follows every write by itself.
CREATE INDEX entity_names ON entities USING gin (to_tsvector('simple', name));
