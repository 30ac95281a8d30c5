/**
 * The audit log. Every state change appends one row inside the transaction that makes the change,
 * so the log can never disagree with the data. After commit, listeners (the admin event stream) are
 * woken and read the new rows from the database; they never receive uncommitted data.
 */

import type { Tx } from "../db/sql.ts";

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

export async function appendEvent(tx: Tx, event: EventInput, at = Date.now()): Promise<void> {
  await tx.run(
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
  tx.afterCommit(scheduleNotify);
}

type Listener = () => void;
const listeners = new Set<Listener>();
let pending = false;

/** Calls `listener` after events were appended (coalesced, after the current task, i.e. after commit). */
export function onEvents(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function scheduleNotify(): void {
  if (pending || listeners.size === 0) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    for (const listener of listeners) listener();
  }, 0);
}
