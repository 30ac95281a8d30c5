/**
 * The shared counts behind the budgets, one row per one-minute window: `budget_windows` holds how many
 * calls of an app's window the processes have reserved between them, `budget_shares` how many of one
 * user's calls in it. A process reserves a few calls at a time under a lock on the row's key, never
 * past the cap, so all processes together never allow more than the cap. Rows of past windows go as
 * new ones come: the tables hold about one minute of rows per app. Only budgets.ts uses this.
 */
import type { Param, Storage, Tx } from "../db/sql.ts";

/** How many calls a process reserves at once: 1 for caps under 100, at most 100 (a fiftieth of the cap). */
export function reserveSize(cap: number): number {
  return Math.max(1, Math.min(100, Math.floor(cap / 50)));
}

/** The SQL of one count, written once for both tables (the key's first two columns are the app and the window). */
function countSql(table: string, keys: readonly string[]) {
  const where = keys.map((key, i) => `${key} = $${i + 1}`).join(" AND ");
  const next = `$${keys.length + 1}`;
  return {
    read: `SELECT reserved FROM ${table} WHERE ${where}`,
    update: `UPDATE ${table} SET reserved = ${next} WHERE ${where}`,
    prune: `DELETE FROM ${table} WHERE app_id = $1 AND window_start < $2`,
    insert: `INSERT INTO ${table} (${keys.join(", ")}, reserved) VALUES (${keys.map((_, i) => `$${i + 1}`).join(", ")}, ${next})`,
  };
}

const APP = countSql("budget_windows", ["app_id", "window_start"]);
const SHARE = countSql("budget_shares", ["app_id", "window_start", "user_id"]);

/** Which count: the app's (no user) or one user's share of it, in the window starting at `start`. */
export interface CountKey {
  appId: string;
  start: number;
  userId?: string;
}

/** Reserves up to `reserveSize(cap)` more calls of the count, never past `cap`: how many (0 once all are reserved). */
export function reserveCalls(storage: Storage, key: CountKey, cap: number): Promise<number> {
  const sql = key.userId === undefined ? APP : SHARE;
  const params: Param[] =
    key.userId === undefined ? [key.appId, key.start] : [key.appId, key.start, key.userId];
  return storage.transaction(async (tx) => {
    // The app's count keeps the lock key earlier versions take, so replicas of both never interleave.
    await tx.lock(
      key.userId === undefined ? `budget:${key.appId}` : `budget-share:${key.appId}:${key.userId}`,
    );
    const row = await tx.get<{ reserved: number }>(sql.read, params);
    const reserved = Number(row?.reserved ?? 0);
    const grant = Math.min(reserveSize(cap), cap - reserved);
    if (grant <= 0) return 0;
    if (row) {
      await tx.run(sql.update, [...params, reserved + grant]);
    } else {
      await tx.run(sql.prune, [key.appId, key.start]);
      await tx.run(sql.insert, [...params, grant]);
    }
    return grant;
  });
}

/** Forgets every count of a user (an account's deletion: no user id stays behind, even for a minute). */
export function forgetUserShares(tx: Pick<Tx, "write">, userId: string): void {
  tx.write("DELETE FROM budget_shares WHERE user_id = $1", [userId]);
}
