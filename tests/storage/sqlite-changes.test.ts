/**
 * The SQLite change signal the caches ask on every read: read from SQLite's shared memory (not a
 * statement) for a file database, mapped or with pread; it moves when another connection commits, not for this process's
 * own commits, whether they commit or roll back; an in-memory database falls back to data_version.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { changeSignal } from "../../src/server/db/sqlite-changes.ts";
import { tempDir } from "../helpers/stack.ts";

const open: Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function wal(path: string): Database {
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  open.push(db);
  return db;
}

test.each([
  ["mapped", true, "shared-memory-map"],
  ["read", false, "shared-memory"],
] as const)(
  "%s: another connection's commit moves it; this process's own commits and rollbacks do not",
  (_, map, source) => {
    const path = join(tempDir("sg-changes-"), "db.sqlite");
    const writer = wal(path);
    writer.exec("CREATE TABLE t (x)");
    const other = wal(path);
    const signal = changeSignal(path, writer, { map });
    expect(signal.source).toBe(source);

    const start = signal.version();
    expect(signal.version()).toBe(start);
    other.exec("INSERT INTO t VALUES (1)");
    const moved = signal.version();
    expect(moved).not.toBe(start);
    expect(signal.version()).toBe(moved);

    writer.exec("BEGIN IMMEDIATE");
    signal.beginOwn();
    writer.exec("INSERT INTO t VALUES (2)");
    writer.exec("COMMIT");
    signal.endOwn();
    expect(signal.version()).toBe(moved);

    writer.exec("BEGIN IMMEDIATE");
    signal.beginOwn();
    writer.exec("INSERT INTO t VALUES (3)");
    writer.exec("ROLLBACK");
    signal.endOwn();
    expect(signal.version()).toBe(moved);

    // A commit by another connection before this process's BEGIN is still seen after its COMMIT.
    other.exec("INSERT INTO t VALUES (4)");
    writer.exec("BEGIN IMMEDIATE");
    signal.beginOwn();
    writer.exec("INSERT INTO t VALUES (5)");
    writer.exec("COMMIT");
    signal.endOwn();
    expect(signal.version()).not.toBe(moved);
    signal.close();
  },
);

test("an in-memory database has no shared memory: data_version answers", () => {
  const db = new Database(":memory:");
  open.push(db);
  const signal = changeSignal(":memory:", db);
  expect(signal.source).toBe("data_version");
  expect(typeof signal.version()).toBe("number");
  signal.close();
});

test("another process opening, writing and closing the file, and a second storage of this process closing, leave the signal working", async () => {
  const { openSqlite } = await import("../../src/server/db/sqlite.ts");
  const path = join(tempDir("sg-changes-"), "gateway.db");
  const first = openSqlite(path);
  await first.run("CREATE TABLE kv (k text PRIMARY KEY, v integer NOT NULL)");
  const second = openSqlite(path);
  const start = first.externalVersion();
  const child = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { openSqlite } = await import(${JSON.stringify(`${import.meta.dir}/../../src/server/db/sqlite.ts`)});
       const s = openSqlite(${JSON.stringify(path)});
       await s.transaction(async (tx) => { await tx.run("INSERT INTO kv (k, v) VALUES ('child', 1)"); });
       await s.close();`,
    ],
    { stderr: "pipe" },
  );
  expect(await child.exited).toBe(0);
  const moved = first.externalVersion();
  expect(moved).not.toBe(start);
  await second.close(); // shares the -shm descriptor: the first storage keeps it
  await first.transaction(async (tx) => {
    await tx.run("INSERT INTO kv (k, v) VALUES ('here', 1)");
  });
  expect(first.externalVersion()).toBe(moved);
  expect(await first.get("SELECT count(*) AS n FROM kv WHERE k IN ('child', 'here')")).toEqual({ n: 2 });
  await first.close();
  expect(first.externalVersion()).toBeDefined(); // after close: no crash, nothing read
}, 20_000);
