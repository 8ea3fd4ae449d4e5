-- k2desk collection store, version 3: Chain of Explorations' triple hypernodes (KG-RAG paper §4.1).
-- One hypernode per relation (same id): a node labelled with the full triple "A -[keywords]-> B",
-- linked to its parts (subject, object) and to the entities its statement is qualified by
-- (a date or place its description names: ((A)-[created]->(B))-[in]->(1999)). Derived from the
-- merged graph, so it follows the graph's incremental updates; relations cascade to it.
CREATE TABLE hypernodes (
  id         INTEGER PRIMARY KEY REFERENCES relations(id) ON DELETE CASCADE,
  source     TEXT NOT NULL CHECK (source IN ('text', 'summary')),
  label      TEXT NOT NULL,
  vector_key TEXT NOT NULL  -- hash of label + links: a change re-derives and re-embeds
);

CREATE TABLE hypernode_links (
  hypernode_id INTEGER NOT NULL REFERENCES hypernodes(id) ON DELETE CASCADE,
  entity_id    INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  role         TEXT NOT NULL CHECK (role IN ('subject', 'object', 'qualifier')),
  label        TEXT NOT NULL,  -- the link's relation name, shown when exploring
  PRIMARY KEY (hypernode_id, entity_id)
);
CREATE INDEX hypernode_links_entity ON hypernode_links(entity_id);
