/**
 * Tests read and arrange the database through the engine they run on (SQLite or PostgreSQL), never a
 * driver of their own: `await sql(gateway.storage).get("SELECT … WHERE id = ?", id)`. Plain `?`
 * placeholders are numbered in order (`$1`, `$2`, …); write SQL both engines speak (`true`/`false`,
 * quoted camelCase aliases). Counts come back as numbers on both, booleans as 0/1 (as SQLite has them).
 */
import { join } from "node:path";
import type { Param, Storage } from "../../src/server/db/sql.ts";
import type { SqliteStorage } from "../../src/server/db/sqlite.ts";
import { sharedPostgres, testEngine } from "./postgres.ts";
import { tempDir } from "./stack.ts";

/** `?` → `$1, $2, …`; camelCase aliases quoted (`AS userId` → `AS "userId"`: PostgreSQL folds bare names). */
function numbered(text: string): string {
  let n = 0;
  return text
    .replace(/\?(\d*)/g, (_, digits: string) => `$${digits || ++n}`)
    .replace(/\bAS ([a-z]+[A-Z]\w*)/gi, (match, alias: string) =>
      /[A-Z]/.test(alias) ? `AS "${alias}"` : match,
    );
}

export type Row = Record<string, any>;

/** Rows as SQLite gives them whatever the engine: booleans as 0/1. */
function sqliteShaped<T>(row: T): T {
  if (row === null || typeof row !== "object") return row;
  const out: Row = {};
  for (const [key, value] of Object.entries(row))
    out[key] = typeof value === "boolean" ? Number(value) : value;
  return out as T;
}

export function sql(storage: Storage) {
  return {
    /** The first row, or null (as bun:sqlite answers) when there is none; booleans as 0/1. */
    get: async <T = Row>(text: string, ...params: Param[]) => {
      const row = await storage.get<T>(numbered(text), params);
      return row === undefined ? null : sqliteShaped(row);
    },
    all: async <T = Row>(text: string, ...params: Param[]) =>
      (await storage.all<T>(numbered(text), params)).map(sqliteShaped),
    run: (text: string, ...params: Param[]) => storage.run(numbered(text), params),
    /** A count(*) (or any single number) as a number. */
    count: async (text: string, ...params: Param[]) => {
      const row = await storage.get<Row>(numbered(text), params);
      return Number(Object.values(row ?? { n: 0 })[0]);
    },
  };
}

/** The SQLite writer connection, for tests about the file itself (pages, WAL, a full disk). */
export function sqliteOf(storage: Storage): SqliteStorage["sqlite"] {
  if (storage.dialect !== "sqlite") throw new Error("this test needs the SQLite engine");
  return (storage as SqliteStorage).sqlite;
}

/**
 * The environment that points a gateway at a fresh database of the engine the suite runs on
 * (TEST_DATABASE=postgres: a new database in the shared test cluster; else a SQLite file in `dir`).
 * The key file stays in `dir` either way.
 */
export async function databaseEnv(dir = tempDir(), file = "gateway.db"): Promise<Record<string, string>> {
  if (testEngine === "sqlite") return { DATABASE_PATH: join(dir, file) };
  const cluster = await sharedPostgres();
  return { DATABASE_URL: await cluster.createDatabase(), SESSION_KEY_FILE: join(dir, "session.key") };
}

/**
 * Makes the database refuse a write, for fault-injection tests: a trigger that raises on
 * `event` ("INSERT" or "UPDATE OF column") of `table` when `when` (SQL over NEW) holds. Returns the undo.
 */
export async function failWrites(
  storage: Storage,
  name: string,
  event: string,
  table: string,
  when: string,
): Promise<() => Promise<void>> {
  if (storage.dialect === "sqlite") {
    const db = sqliteOf(storage);
    db.exec(
      `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected'); END`,
    );
    return async () => {
      db.exec(`DROP TRIGGER ${name}`);
    };
  }
  await storage.run(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'injected'; END $f$`,
  );
  await storage.run(
    `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await storage.run(`DROP TRIGGER ${name} ON ${table}`);
    await storage.run(`DROP FUNCTION ${name}()`);
  };
}

/** The SSE id the admin stream gives the event row `id`: the id on SQLite, `xid.id` on PostgreSQL. */
export async function eventCursor(storage: Storage, id: number): Promise<string> {
  if (storage.dialect === "sqlite") return String(id);
  const row = await storage.get<{ xid: string }>("SELECT xid::text AS xid FROM events WHERE id = $1", [id]);
  return `${row!.xid}.${id}`;
}

/** The event row id inside an SSE id. */
export const eventRowId = (cursor: string) => Number(cursor.split(".").pop());
