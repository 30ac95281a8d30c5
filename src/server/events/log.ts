/**
 * The audit log. Every state change appends one row inside the transaction that makes the change,
 * so the log can never disagree with the data. After commit, the listeners of every process (the admin
 * event streams) are woken and read the new rows from the database; they never receive uncommitted data.
 */

import type { Sql, Tx } from "../db/sql.ts";

export type EventType =
  | "session.created"
  | "session.refreshed"
  | "session.ended"
  | "credit.welcome"
  | "consent.accepted"
  | "consent.rejected"
  | (string & {});

export interface EventInput {
  type: EventType;
  actor?: string | null;
  resourceId?: string | null;
  userId?: string | null;
  data?: Record<string, unknown>;
}

/** Appends the event inside `tx` (a write not waited for: it fails the transaction if it fails). */
export function appendEvent(tx: Tx, event: EventInput, at = Date.now()): void {
  tx.write(
    "INSERT INTO events (type, actor, resource_id, user_id, data, at) VALUES ($1, $2, $3, $4, $5, $6)",
    [
      event.type,
      event.actor ?? null,
      event.resourceId ?? null,
      event.userId ?? null,
      event.data ? JSON.stringify(event.data) : null,
      at,
    ],
  );
  tx.notify(EVENTS_CHANNEL);
}

/** The channel every event append notifies: the admin streams of every process listen to it. */
export const EVENTS_CHANNEL = "gateway_events";

/** An event row as the readers (the admin stream, the export) select it. */
export interface EventRow {
  id: number;
  type: string;
  actor: string | null;
  resourceId: string | null;
  userId: string | null;
  data: string | null;
  at: number;
}

/** How many events name the user, as subject or as actor. */
export async function countEventsAbout(sql: Sql, userId: string): Promise<number> {
  const row = await sql.get<{ n: number }>(
    "SELECT count(*) AS n FROM events WHERE user_id = $1 OR actor = $1",
    [userId],
  );
  return Number(row?.n ?? 0);
}

/**
 * An account deletion: every event names the pseudonym instead of the user, as subject, as actor, and
 * inside its data (`previousOwner`, `replaces`, …: JSON strings, replaced as such).
 */
export function renameEventUser(tx: Tx, userId: string, pseudonym: string): void {
  const quoted = JSON.stringify(userId);
  const like = `%${quoted.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  tx.write("UPDATE events SET user_id = $2 WHERE user_id = $1", [userId, pseudonym]);
  tx.write("UPDATE events SET actor = $2 WHERE actor = $1", [userId, pseudonym]);
  tx.write("UPDATE events SET data = replace(data, $1, $2) WHERE data LIKE $3 ESCAPE '\\'", [
    quoted,
    JSON.stringify(pseudonym),
    like,
  ]);
}
