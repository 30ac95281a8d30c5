/**
 * The audit log. Every state change appends one row inside the transaction that makes the change,
 * so the log can never disagree with the data. After commit, `notify` wakes listeners (the admin
 * event stream) which then read new rows by id; listeners never receive uncommitted data.
 */

import type { Statement } from "bun:sqlite";
import type { Tx } from "../db/open.ts";

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

export function appendEvent(tx: Tx, event: EventInput, at = Date.now()): void {
  insertStatement(tx).run(
    event.type,
    event.actor ?? null,
    event.resourceId ?? null,
    event.userId ?? null,
    event.data ? JSON.stringify(event.data) : null,
    at,
  );
  scheduleNotify();
}

// Prepared once per connection: events are appended on every write, so they must be cheap.
const statements = new WeakMap<object, Statement>();
function insertStatement(tx: Tx): Statement {
  let statement = statements.get(tx.$client);
  if (!statement) {
    statement = tx.$client.prepare(
      "INSERT INTO events (type, actor, resource_id, user_id, data, at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    statements.set(tx.$client, statement);
  }
  return statement;
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
