/**
 * Opens the configured database: the embedded SQLite file (`DATABASE_PATH`, the default) or, with
 * `DATABASE_URL`, PostgreSQL. Either way the migrations embedded in the program are applied first.
 */
import { databaseFailure } from "../startup.ts";
import { openPostgres } from "./postgres.ts";
import type { Storage } from "./sql.ts";
import { openSqlite } from "./sqlite.ts";

export type { Param, Sql, Storage, Tx } from "./sql.ts";
export { isBusy } from "./sqlite.ts";

export interface StorageOptions {
  /** How long a write waits for another process's write lock before giving up (default 5 s). */
  writeWaitMs?: number;
}

/**
 * `target`: a SQLite file's path (or ":memory:"), or a postgres:// URL. A failure to open or migrate
 * it is a one-line start-up error naming the variable to change.
 */
export async function openStorage(target: string, options: StorageOptions = {}): Promise<Storage> {
  try {
    if (/^postgres(ql)?:\/\//.test(target)) return await openPostgres(target);
    return openSqlite(target, options);
  } catch (error) {
    throw databaseFailure(target, error);
  }
}

/** Where the configuration says the database is. */
export function databaseTarget(config: { databasePath: string; databaseUrl?: string }): string {
  return config.databaseUrl ?? config.databasePath;
}
