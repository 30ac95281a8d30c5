/**
 * The migration that makes ownership explicit (`resources.owner_kind`): rows made before it keep their
 * owner, and the app's own rows (`_app` and statics: an `app:<id>` owner and a slug, which only a deploy
 * sets) become app-owned, while a resource a user created stays user-owned even when the user's
 * subject is literally `app:<id>`. Applied here to rows written under the schema before it.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { migrationJournal, migrationSql } from "../../src/server/db/migrations.gen.ts";

function apply(db: Database, sql: string): void {
  for (const statement of sql.split("--> statement-breakpoint")) if (statement.trim()) db.run(statement);
}

test("rows made before owner_kind existed: the app's _app and statics become app-owned, a user named app:main keeps owning", () => {
  const index = migrationJournal.entries.findIndex((entry) => entry.tag.endsWith("resource_owner_kind"));
  expect(index).toBeGreaterThan(0);
  const db = new Database(":memory:");
  for (const sql of migrationSql.slice(0, index)) apply(db, sql);
  const insert = db.query(
    `INSERT INTO resources (id, app_id, type, name, name_fold, visibility, discoverable, owner_id, slug, created_at)
     VALUES (?, ?, ?, ?, lower(?4), 'members', 0, ?, ?, 1)`,
  );
  insert.run("app-res", "main", "_app", "main", "app:main", "_app");
  insert.run("static", "main", "feed", "Global", "app:main", "global");
  insert.run("by-user", "main", "team", "Mine", "app:main", null);
  insert.run("by-alice", "main", "team", "Alice's", "alice", null);
  apply(db, migrationSql[index]!);
  const rows = db.query("SELECT id, owner_id, owner_kind FROM resources ORDER BY id").all();
  expect(rows).toEqual([
    { id: "app-res", owner_id: "app:main", owner_kind: "app" },
    { id: "by-alice", owner_id: "alice", owner_kind: "user" },
    { id: "by-user", owner_id: "app:main", owner_kind: "user" },
    { id: "static", owner_id: "app:main", owner_kind: "app" },
  ]);
  // New rows default to a user owner; the column refuses NULL.
  insert.run("later", "main", "team", "Later", "bob", null);
  expect(db.query("SELECT owner_kind FROM resources WHERE id = 'later'").get()).toEqual({
    owner_kind: "user",
  });
  expect(() => db.run("UPDATE resources SET owner_kind = NULL WHERE id = 'later'")).toThrow();
});
