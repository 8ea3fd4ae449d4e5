-- k2desk collection store, version 5: the entities' and relations' `profile` columns were created
-- for LightRAG's key -> value paragraphs and never used (the profiles are built when asked,
-- k2desk.graph.profiles); dropped so that no backend has to carry them.
ALTER TABLE entities DROP COLUMN profile;
ALTER TABLE relations DROP COLUMN profile;
