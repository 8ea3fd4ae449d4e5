-- k2desk collection store, version 7: the entities' names indexed by word (FTS5 over the
-- `entities` table itself, kept in step by triggers), so that finding the entities whose name
-- holds a phrase ("harwick point" -> "harwick point lighthouse") or starts with what was typed
-- in the Graph tab is an index lookup rather than a LIKE scan of every entity: at 100,000 chunks
-- a collection holds hundreds of thousands of them. The names are normalized keys (lower case,
-- words separated by single spaces), so unicode61's tokens are exactly their words.
CREATE VIRTUAL TABLE entity_names USING fts5(
  name, content = 'entities', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO entity_names (entity_names) VALUES ('rebuild');

CREATE TRIGGER entity_names_insert AFTER INSERT ON entities BEGIN
  INSERT INTO entity_names (rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER entity_names_delete AFTER DELETE ON entities BEGIN
  INSERT INTO entity_names (entity_names, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER entity_names_update AFTER UPDATE OF name ON entities BEGIN
  INSERT INTO entity_names (entity_names, rowid, name) VALUES ('delete', old.id, old.name);
  INSERT INTO entity_names (rowid, name) VALUES (new.id, new.name);
END;
