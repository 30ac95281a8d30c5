/**
 * Opens the configured database: the embedded SQLite file (`DATABASE_PATH`, the default) or, with
 * `DATABASE_URL`, PostgreSQL. Either way the migrations embedded in the program are applied first.
 */
import type { Storage } from "./sql.ts";
import { openSqlite } from "./sqlite.ts";

export type { Param, Sql, Storage, Tx } from "./sql.ts";
export { isBusy } from "./sqlite.ts";

export interface StorageOptions {
  /** How long a write waits for another process's write lock before giving up (default 5 s). */
  writeWaitMs?: number;
}

export async function openStorage(path: string, options: StorageOptions = {}): Promise<Storage> {
  return openSqlite(path, options);
}
