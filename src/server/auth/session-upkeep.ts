/**
 * The sessions store's upkeep, none of it on a request's path and none of it cached: retention (the
 * purge of rows long ended or expired), the count of live sessions (the admin overview and /metrics),
 * and the live sessions per cookie key (the missing-key warning at start-up, `gateway keys`). Part of
 * the sessions store: it names the `sessions` table beside session-store.ts, session-touches.ts and
 * session-reads.ts.
 */
import type { Sql } from "../db/sql.ts";

/** How long ended and expired rows stay, so operators can still see recent sign-outs. */
export const KEEP_ENDED_MS = 7 * 24 * 3600 * 1000;

/** Deletes the rows that ended or expired more than `keepMs` ago (their events stay); returns how many. */
export function purgeEnded(sql: Sql, keepMs = KEEP_ENDED_MS, now = Date.now()): Promise<number> {
  return sql.run("DELETE FROM sessions WHERE (ended_at IS NOT NULL AND ended_at < $1) OR expires_at < $1", [
    now - keepMs,
  ]);
}

/** Live sessions per id of the key their browser cookie is sealed with (null: sealed before key ids). */
export function liveByCookieKey(
  sql: Sql,
  now = Date.now(),
): Promise<Array<{ keyId: string | null; sessions: number }>> {
  return sql.all(
    `SELECT cookie_key_id AS "keyId", count(*) AS sessions FROM sessions
     WHERE ended_at IS NULL AND expires_at > $1 GROUP BY cookie_key_id`,
    [now],
  );
}

export async function countLive(sql: Sql, now = Date.now()): Promise<number> {
  const row = await sql.get<{ n: number }>(
    "SELECT count(*) AS n FROM sessions WHERE ended_at IS NULL AND expires_at > $1",
    [now],
  );
  return row?.n ?? 0;
}
