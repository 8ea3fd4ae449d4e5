-- k2desk collection store, version 4: the questions asked of this collection and their answers,
-- kept for the app's History and exported as Markdown. A copy (answer, sources with their passages),
-- so an entry stays readable after its documents change or are removed.
CREATE TABLE history (
  id        INTEGER PRIMARY KEY,
  asked_at  REAL NOT NULL,
  question  TEXT NOT NULL,
  method    TEXT NOT NULL,
  answer    TEXT NOT NULL,
  sources   TEXT NOT NULL DEFAULT '[]',  -- JSON: [{document, title, chunk_id, score, text, page}]
  seconds   REAL NOT NULL DEFAULT 0,
  llm       TEXT NOT NULL DEFAULT '{}',  -- JSON: {calls, prompt_tokens, completion_tokens}
  note      TEXT NOT NULL DEFAULT ''     -- what the method could not read yet (indexing still running)
);
CREATE INDEX history_asked_at ON history(asked_at);
