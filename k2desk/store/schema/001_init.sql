-- k2desk collection store, version 1: one SQLite file holds every index of a collection.
-- Vector tables (sqlite-vec vec0) are created by VectorIndex.ensure() once the embedder's
-- dimension is known; their dimension and embedder name are recorded in `meta`.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE documents (
  id           INTEGER PRIMARY KEY,
  key          TEXT NOT NULL UNIQUE,           -- absolute path, or "<corpus path>#<url>" for corpus records
  title        TEXT NOT NULL DEFAULT '',
  kind         TEXT NOT NULL,                  -- txt, md, pdf, docx, html, epub, jsonl
  meta         TEXT NOT NULL DEFAULT '{}',     -- JSON: source, published_at, url, pages, ...
  content_hash TEXT NOT NULL,
  text         TEXT,                           -- extracted text (NULL when reading failed)
  summary      TEXT,                           -- K²RAG corpus summary (cached by summary_key)
  summary_key  TEXT,                           -- content_hash + summarizer that made `summary`
  status       TEXT NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'processing', 'done', 'failed')),
  error        TEXT,
  created_at   REAL NOT NULL,
  updated_at   REAL NOT NULL
);
CREATE INDEX documents_status ON documents(status);

-- Which derived stores of a document are built (resume after a crash; skip finished work).
-- stage: 'text' (raw chunks + vectors + FTS), 'summary', 'summary_index', 'graph_text', 'graph_summary'
CREATE TABLE document_stages (
  document_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  stage        TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  done_at      REAL NOT NULL,
  PRIMARY KEY (document_id, stage)
);

-- Token windows (equation (1)); profile: 'vec' (256/20, dense+sparse) or 'graph' (300/100);
-- source: 'text' (raw document, naive baselines) or 'summary' (K²RAG).
CREATE TABLE chunks (
  id          INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  source      TEXT NOT NULL CHECK (source IN ('text', 'summary')),
  profile     TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  start_char  INTEGER NOT NULL,
  end_char    INTEGER NOT NULL,
  n_tokens    INTEGER NOT NULL,
  text        TEXT NOT NULL,
  UNIQUE (document_id, source, profile, seq)
);
CREATE INDEX chunks_lookup ON chunks(source, profile);

-- Sparse stores (BM25 candidates + TF-IDF statistics for the paper's sparse cosine), one per source.
CREATE VIRTUAL TABLE sparse_text USING fts5(
  text, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE sparse_text_vocab USING fts5vocab(sparse_text, row);
CREATE VIRTUAL TABLE sparse_summary USING fts5(
  text, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE sparse_summary_vocab USING fts5vocab(sparse_summary, row);

-- Knowledge graph, one per source; names are normalized keys, merged across chunks.
CREATE TABLE entities (
  id          INTEGER PRIMARY KEY,
  source      TEXT NOT NULL CHECK (source IN ('text', 'summary')),
  name        TEXT NOT NULL,                   -- normalized key
  display     TEXT NOT NULL,                   -- as first written
  type        TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',        -- merged descriptions
  profile     TEXT,                            -- never used: dropped by 005
  UNIQUE (source, name)
);

CREATE TABLE relations (
  id          INTEGER PRIMARY KEY,
  source      TEXT NOT NULL CHECK (source IN ('text', 'summary')),
  src_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  dst_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  description TEXT NOT NULL DEFAULT '',
  keywords    TEXT NOT NULL DEFAULT '',
  strength    REAL NOT NULL DEFAULT 1.0,
  profile     TEXT,
  UNIQUE (source, src_id, dst_id)
);
CREATE INDEX relations_dst ON relations(dst_id);

-- Provenance: which chunk said what, so a document's removal updates the graph without a rebuild.
CREATE TABLE entity_mentions (
  entity_id   INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  chunk_id    INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  type        TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (entity_id, chunk_id)
);
CREATE INDEX entity_mentions_doc ON entity_mentions(document_id);

CREATE TABLE relation_mentions (
  relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
  chunk_id    INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  description TEXT NOT NULL DEFAULT '',
  keywords    TEXT NOT NULL DEFAULT '',
  strength    REAL NOT NULL DEFAULT 1.0,
  PRIMARY KEY (relation_id, chunk_id)
);
CREATE INDEX relation_mentions_doc ON relation_mentions(document_id);
