-- k2desk collection store on PostgreSQL, version 3: the twin of ../003_hypernodes.sql.
CREATE TABLE hypernodes (
  id         BIGINT PRIMARY KEY REFERENCES relations(id) ON DELETE CASCADE,
  source     TEXT NOT NULL CHECK (source IN ('text', 'summary')),
  label      TEXT NOT NULL,
  vector_key TEXT NOT NULL
);

CREATE TABLE hypernode_links (
  hypernode_id BIGINT NOT NULL REFERENCES hypernodes(id) ON DELETE CASCADE,
  entity_id    BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  role         TEXT NOT NULL CHECK (role IN ('subject', 'object', 'qualifier')),
  label        TEXT NOT NULL,
  PRIMARY KEY (hypernode_id, entity_id)
);
CREATE INDEX hypernode_links_entity ON hypernode_links(entity_id);
