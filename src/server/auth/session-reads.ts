/**
 * The sessions store's reads for operators and for a user's account: the live sessions list (filters,
 * search, keyset pages), a user's sessions for the export, and what the account deletion counts. Rows
 * as the database has them, never from the session cache (these answers are not on the hot path, and
 * a cached row could lag a `last_seen_at` written by another process). Part of the sessions store: only
 * session-store.ts, session-touches.ts, session-upkeep.ts and this file name the `sessions` table.
 */
import { addSearch, queryFilters } from "../db/query-filters.ts";
import type { Param, Sql } from "../db/sql.ts";

export interface LiveSessionFilter {
  userId?: string;
  clientId?: string;
  /** A case-insensitive substring of the id, the user or the client. */
  query?: string;
}

export interface LiveSessionRow {
  id: string;
  userId: string;
  clientId: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** Live sessions, newest first by (createdAt, id), at most `take`, after the keyset `after`. */
export function listLiveSessions(
  sql: Sql,
  filter: LiveSessionFilter,
  take: number,
  after?: { createdAt: number; id: string },
): Promise<LiveSessionRow[]> {
  const params: Param[] = [Date.now(), take];
  const f = queryFilters(params);
  if (filter.userId !== undefined) f.add("user_id = ?", filter.userId);
  if (filter.clientId !== undefined) f.add("client_id = ?", filter.clientId);
  addSearch(f, ["id", "user_id", "client_id"], filter.query);
  if (after) f.add("(created_at, id) < (?, ?)", after.createdAt, after.id);
  return sql.all<LiveSessionRow>(
    `SELECT id, user_id AS "userId", client_id AS "clientId", created_at AS "createdAt",
       last_seen_at AS "lastSeenAt", expires_at AS "expiresAt"
     FROM sessions WHERE ended_at IS NULL AND expires_at > $1 ${f.where()}
     ORDER BY created_at DESC, id DESC LIMIT $2`,
    params,
  );
}

export interface OwnSessionRow {
  id: string;
  clientId: string;
  createdAt: number;
  lastSeenAt: number;
  device: string | null;
}

/** A user's live sessions among `clientIds` (one app's clients), newest first. */
export function liveSessionsOf(
  sql: Sql,
  userId: string,
  clientIds: readonly string[],
  now = Date.now(),
): Promise<OwnSessionRow[]> {
  if (clientIds.length === 0) return Promise.resolve([]);
  const clients = clientIds.map((_, i) => `$${i + 3}`).join(", ");
  return sql.all<OwnSessionRow>(
    `SELECT id, client_id AS "clientId", created_at AS "createdAt", last_seen_at AS "lastSeenAt", device
     FROM sessions WHERE user_id = $1 AND ended_at IS NULL AND expires_at > $2 AND client_id IN (${clients})
     ORDER BY created_at DESC, id DESC`,
    [userId, now, ...clientIds],
  );
}

export interface EndedSessionRow {
  id: string;
  clientId: string;
  /** When it ended (its end, or its absolute expiry for one that ran out). */
  endedAt: number;
  endReason: string | null;
  expiresAt: number;
  /** Null for a session that ran out rather than being ended. */
  ended: number | null;
}

/** A user's latest sessions that are over (ended, or past their lifetime), newest first, at most `take`. */
export function endedSessionsOf(
  sql: Sql,
  userId: string,
  take: number,
  now = Date.now(),
): Promise<EndedSessionRow[]> {
  return sql.all<EndedSessionRow>(
    `SELECT id, client_id AS "clientId", COALESCE(ended_at, expires_at) AS "endedAt", end_reason AS "endReason",
       expires_at AS "expiresAt", ended_at AS "ended"
     FROM sessions WHERE user_id = $1 AND (ended_at IS NOT NULL OR expires_at <= $2)
     ORDER BY COALESCE(ended_at, expires_at) DESC, id DESC LIMIT $3`,
    [userId, now, take],
  );
}

export interface ExportedSessionRow {
  id: string;
  clientId: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  endedAt: number | null;
  endReason: string | null;
}

/** Every session row of a user, oldest first: times and end reason only, never a token or a cookie. */
export function sessionsOfUser(sql: Sql, userId: string): Promise<ExportedSessionRow[]> {
  return sql.all<ExportedSessionRow>(
    `SELECT id, client_id AS "clientId", created_at AS "createdAt", last_seen_at AS "lastSeenAt",
       expires_at AS "expiresAt", ended_at AS "endedAt", end_reason AS "endReason"
     FROM sessions WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  );
}

/** How many session rows (live or ended, until the retention purge) name the user. */
export async function countSessionsOf(sql: Sql, userId: string): Promise<number> {
  const row = await sql.get<{ n: number }>("SELECT count(*) AS n FROM sessions WHERE user_id = $1", [userId]);
  return Number(row?.n ?? 0);
}

/** The user ids that have a session row, as a subquery (a statement counting known users unions it). */
export const SESSION_USER_IDS = "SELECT user_id FROM sessions";
