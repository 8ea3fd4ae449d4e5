-- k2desk collection store, version 10: conversations. A thread keeps its title, the method and the
-- documents it asks about; its turns are history rows (thread_id), each with the person's own
-- words (message) beside the standalone question the method answered (question). A question
-- asked alone is a history row with no thread.
CREATE TABLE threads (
  id          INTEGER PRIMARY KEY,
  title       TEXT NOT NULL,
  created_at  REAL NOT NULL,
  updated_at  REAL NOT NULL,
  method      TEXT NOT NULL DEFAULT 'k2rag',
  scope       TEXT NOT NULL DEFAULT '[]'  -- JSON list of document keys; '[]': the whole collection
);
CREATE INDEX threads_updated_at ON threads(updated_at);
ALTER TABLE history ADD COLUMN thread_id INTEGER REFERENCES threads(id) ON DELETE CASCADE;
ALTER TABLE history ADD COLUMN message TEXT NOT NULL DEFAULT '';
CREATE INDEX history_thread ON history(thread_id);
