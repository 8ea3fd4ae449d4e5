-- k2desk collection store, version 2: what the knowledge graph's incremental updates need.

-- Relations are walked in both directions (k-hop neighbourhoods) and cascade from either end.
CREATE INDEX relations_src ON relations(src_id);

-- Deleting a document's chunks cascades to the mentions; without these it scans every mention.
CREATE INDEX entity_mentions_chunk ON entity_mentions(chunk_id);
CREATE INDEX relation_mentions_chunk ON relation_mentions(chunk_id);

-- sha1 of the text the item's vector (vec_entities / vec_relations) was embedded from; NULL when
-- it has none. A merged description that changes the text makes the vector stale: re-embedded.
ALTER TABLE entities ADD COLUMN vector_key TEXT;
ALTER TABLE relations ADD COLUMN vector_key TEXT;
