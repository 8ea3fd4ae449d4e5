-- k2desk collection store on PostgreSQL, version 2: the twin of ../002_graph.sql.
CREATE INDEX relations_src ON relations(src_id);
CREATE INDEX entity_mentions_chunk ON entity_mentions(chunk_id);
CREATE INDEX relation_mentions_chunk ON relation_mentions(chunk_id);
ALTER TABLE entities ADD COLUMN vector_key TEXT;
ALTER TABLE relations ADD COLUMN vector_key TEXT;
