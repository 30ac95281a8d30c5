-- Substring search on resource names for browse `query`: an FTS5 index with the trigram tokenizer
-- (case-insensitive substring matching, shipped with Bun's SQLite), external content = resources,
-- keyed by resources.seq (an INTEGER PRIMARY KEY, so VACUUM never renumbers it), kept in step by triggers.
CREATE VIRTUAL TABLE `resources_fts` USING fts5(name, content='resources', content_rowid='seq', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `resources_fts_insert` AFTER INSERT ON `resources` BEGIN
  INSERT INTO resources_fts(rowid, name) VALUES (new.seq, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `resources_fts_delete` AFTER DELETE ON `resources` BEGIN
  INSERT INTO resources_fts(resources_fts, rowid, name) VALUES ('delete', old.seq, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `resources_fts_update` AFTER UPDATE OF name ON `resources` BEGIN
  INSERT INTO resources_fts(resources_fts, rowid, name) VALUES ('delete', old.seq, old.name);
  INSERT INTO resources_fts(rowid, name) VALUES (new.seq, new.name);
END;
