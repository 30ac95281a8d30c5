/**
 * Tests read and arrange the database through the engine they run on (SQLite or PostgreSQL), never a
 * driver of their own: `await sql(gateway.storage).get("SELECT … WHERE id = ?", id)`. Plain `?`
 * placeholders are numbered in order (`$1`, `$2`, …); write SQL both engines speak (`true`/`false`,
 * quoted camelCase aliases). Counts come back as numbers on both.
 */
import { join } from "node:path";
import type { Param, Storage } from "../../src/server/db/sql.ts";
import type { SqliteStorage } from "../../src/server/db/sqlite.ts";
import { sharedPostgres, testEngine } from "./postgres.ts";
import { tempDir } from "./stack.ts";

function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?(\d*)/g, (_, digits: string) => `$${digits || ++n}`);
}

export type Row = Record<string, any>;

export function sql(storage: Storage) {
  return {
    /** The first row, or null (as bun:sqlite answers) when there is none. */
    get: async <T = Row>(text: string, ...params: Param[]) =>
      (await storage.get<T>(numbered(text), params)) ?? null,
    all: <T = Row>(text: string, ...params: Param[]) => storage.all<T>(numbered(text), params),
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
