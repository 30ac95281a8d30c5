/**
 * The background checkpointer: with the writer's own automatic checkpoint off, the log written by this
 * connection is copied back into the database file by the worker's connection, the change signal the
 * caches read does not move for it (a checkpoint is not a commit), and stopping it leaves the file
 * usable and its data intact.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { changeSignal } from "../../src/server/db/sqlite-changes.ts";
import { type Checkpointer, startCheckpointer } from "../../src/server/db/sqlite-checkpointer.ts";
import { tempDir } from "../helpers/stack.ts";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function walDatabase(): { path: string; db: Database } {
  const path = join(tempDir("sg-checkpoint-"), "db.sqlite");
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  cleanup.push(() => db.close());
  return { path, db };
}

type Result = { busy: number; log: number; checkpointed: number };

test("the worker copies the log into the file; the change signal does not move for it", async () => {
  const { path, db } = walDatabase();
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < 300; i++) insert.run(`row ${i} ${"x".repeat(200)}`);
  insert.finalize();
  const signal = changeSignal(path, db);
  cleanup.push(() => signal.close());
  const before = signal.version();
  const frames = (db.query("PRAGMA wal_checkpoint(NOOP)").get() as Result | null)?.log;

  const results: Result[] = [];
  let copied: (result: Result) => void;
  const done = new Promise<Result>((resolve) => {
    copied = resolve;
  });
  const checkpointer: Checkpointer = startCheckpointer(path, {
    everyMs: 10,
    onCheckpoint: (result) => {
      results.push(result);
      if (result.log > 0 && result.checkpointed === result.log) copied(result);
    },
  });
  cleanup.push(() => checkpointer.stop());
  const result = await done;
  expect(result.busy).toBe(0);
  expect(result.log).toBeGreaterThanOrEqual(frames ?? 1);
  expect(signal.version()).toBe(before);

  // The next write restarts the log from its beginning: the file holds everything written before.
  db.run("INSERT INTO t (v) VALUES ('after')");
  await checkpointer.stop();
  await checkpointer.stop(); // a second stop is a no-op
  const reopened = new Database(path, { readonly: true });
  expect(reopened.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 301 });
  reopened.close();
});

test("storage close stops its checkpointer: the file can be opened and written again at once", async () => {
  const { openSqlite } = await import("../../src/server/db/sqlite.ts");
  const path = join(tempDir("sg-checkpoint-"), "gateway.db");
  for (let round = 0; round < 3; round++) {
    const storage = openSqlite(path);
    await storage.run("CREATE TABLE IF NOT EXISTS kv (k text PRIMARY KEY)");
    await storage.run("INSERT INTO kv (k) VALUES ($1)", [`round ${round}`]);
    await Bun.sleep(150); // at least one checkpoint turn
    await storage.close();
  }
  const db = new Database(path, { readonly: true });
  expect(db.query("SELECT count(*) AS n FROM kv").get()).toEqual({ n: 3 });
  db.close();
});
