-- k2desk collection store, version 11: each answer's verdict (answered, cautioned or declined, the
-- reason and the signals: k2desk.verdict.Verdict.to_json) kept with it in the history. '{}': an
-- answer kept before it was recorded (read as answered).
ALTER TABLE history ADD COLUMN verdict TEXT NOT NULL DEFAULT '{}';
