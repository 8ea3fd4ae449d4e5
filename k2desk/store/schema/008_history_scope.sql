-- k2desk collection store, version 8: the documents a question was asked about ("Ask about these
-- documents"), kept with its answer in the history. JSON list of document keys; '[]': the whole
-- collection.
ALTER TABLE history ADD COLUMN scope TEXT NOT NULL DEFAULT '[]';
