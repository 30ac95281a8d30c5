/**
 * The operators' read models: lists for the admin API and the TUI, keyset-paginated newest first like
 * browse. Each list is read by the store that owns its rows (sessions, memberships, events) and shaped
 * here: times in ISO 8601, the next page's cursor.
 */
import { endReasonOf } from "../auth/session-end.ts";
import { endedSessionsOf, listLiveSessions, SESSION_USER_IDS } from "../auth/session-reads.ts";
import { CREDIT_USER_IDS } from "../credits/ledger.ts";
import type { Storage } from "../db/sql.ts";
import { EVENTS_CHANNEL, type EventRow } from "../events/log.ts";
import {
  type AuditFilter,
  type EventCursor,
  eventsAfter,
  lastEventCursor,
  lastEventId,
  listEvents,
} from "../events/reads.ts";
import {
  countPending,
  countResources,
  listPending,
  listResources,
  membershipsWithResources,
} from "../resources/operator-rows.ts";
import { type ResourceRow, readResourceRow, readRoster } from "../resources/rows.ts";
import { encodeCursor } from "../resources/views.ts";

export type { EventCursor };

export type After = { createdAt: number; id: string } | undefined;

/** The SSE id of a row: `id` on SQLite, `xid.id` on PostgreSQL. */
const formatCursor = (cursor: EventCursor) =>
  cursor.xid === undefined ? String(cursor.id) : `${cursor.xid}.${cursor.id}`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A resource as the operators' lists show it. */
const resourceRow = (r: ResourceRow) => ({
  id: r.id,
  appId: r.appId,
  type: r.type,
  name: r.name,
  visibility: r.visibility,
  discoverable: r.discoverable,
  memberCount: r.memberCount,
  createdAt: iso(r.createdAt),
});

/** An event row as the stream and the audit list carry it (`data` parsed, `at` in ISO 8601). */
const eventView = (e: EventRow) => ({
  ...e,
  data: e.data === null ? null : JSON.parse(e.data),
  at: iso(e.at),
});

export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

function page<T extends { createdAt: number; id: string }>(rows: T[], limit: number): Page<T> {
  const shown = rows.slice(0, limit);
  return { rows: shown, nextCursor: rows.length > limit ? encodeCursor(shown[shown.length - 1]!) : null };
}

export class AdminQueries {
  constructor(private readonly storage: Storage) {}

  async overview() {
    const one = async (sql: string) => Number((await this.storage.get<{ n: number }>(sql))?.n ?? 0);
    const [users, resources, invited, requested] = await Promise.all([
      one(`SELECT count(*) AS n FROM (${SESSION_USER_IDS} UNION ${CREDIT_USER_IDS}) AS u`),
      countResources(this.storage),
      countPending(this.storage, "invited"),
      countPending(this.storage, "requested"),
    ]);
    return { users, resources, pending: { invited, requested } };
  }

  async sessions(
    filter: { userId?: string; clientId?: string; query?: string },
    limit: number,
    after?: After,
  ) {
    const rows = await listLiveSessions(this.storage, filter, limit + 1, after);
    const { rows: shown, nextCursor } = page(rows, limit);
    return {
      sessions: shown.map((s) => ({
        ...s,
        createdAt: iso(s.createdAt),
        lastSeenAt: iso(s.lastSeenAt),
        expiresAt: iso(s.expiresAt),
      })),
      nextCursor,
    };
  }

  /** A user's latest ended sessions, newest first, each with why it ended (the SDK's reason words). */
  async endedSessions(userId: string, limit: number) {
    const rows = await endedSessionsOf(this.storage, userId, limit);
    return rows.map((row) => ({
      id: row.id,
      clientId: row.clientId,
      endedAt: iso(Number(row.endedAt)),
      reason: endReasonOf({ endedAt: row.ended, endReason: row.endReason, expiresAt: row.expiresAt }),
    }));
  }

  async pending(filter: { state?: "invited" | "requested"; query?: string }, limit: number, after?: After) {
    const rows = await listPending(this.storage, filter, limit + 1, after);
    const { rows: shown, nextCursor } = page(rows, limit);
    return { pending: shown.map(({ id: _id, ...p }) => ({ ...p, createdAt: iso(p.createdAt) })), nextCursor };
  }

  async resources(filter: { type?: string; query?: string }, limit: number, after?: After) {
    const rows = await listResources(this.storage, filter, limit + 1, after);
    const { rows: shown, nextCursor } = page(rows, limit);
    return { resources: shown.map(resourceRow), nextCursor };
  }

  /** One resource as the list shows it, or undefined. */
  async resource(id: string) {
    const row = await readResourceRow(this.storage, id);
    return row && resourceRow(row);
  }

  async roster(resourceId: string) {
    const rows = await readRoster(this.storage, resourceId);
    return rows.map((m) => ({ ...m, since: iso(m.since) }));
  }

  async user(userId: string) {
    const memberships = await membershipsWithResources(this.storage, userId);
    return { memberships };
  }

  /** The audit log newest first (by row id), a page at a time (see `listEvents`). */
  async audit(filter: AuditFilter, limit: number, afterId?: number) {
    const rows = await listEvents(this.storage, filter, limit + 1, afterId);
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      events: shown.map(eventView),
      nextCursor:
        rows.length > limit && last ? encodeCursor({ createdAt: last.at, id: String(last.id) }) : null,
    };
  }

  /** Event rows after `cursor`, in stream order (see `eventsAfter`), each with the cursor that resumes after it. */
  async eventsAfter(cursor: EventCursor, limit = 500) {
    const rows = await eventsAfter(this.storage, cursor, limit);
    return rows.map(({ xid, ...e }) => ({
      cursor: formatCursor({ xid, id: e.id }),
      next: { xid, id: e.id } as EventCursor,
      event: eventView(e),
    }));
  }

  /** The cursor after the newest event a stream could show now (a new stream starts there). */
  lastEventCursor(): Promise<EventCursor> {
    return lastEventCursor(this.storage);
  }

  /** Wakes `listener` after any process appended events (see EVENTS_CHANNEL). */
  onEvents(listener: () => void): () => void {
    return this.storage.listen(EVENTS_CHANNEL, listener);
  }

  /** A Last-Event-ID as a cursor of this engine (`0` is the beginning); undefined when it is not one. */
  parseCursor(text: string | null): EventCursor | undefined {
    const value = text?.trim() ?? "";
    if (value === "0") return { xid: "0", id: 0 };
    const pg = this.storage.dialect === "postgres";
    const match = (pg ? /^(\d{1,20})\.(\d{1,15})$/ : /^()(\d{1,15})$/).exec(value);
    return match ? { xid: pg ? match[1] : undefined, id: Number(match[2]) } : undefined;
  }

  lastEventId(): Promise<number> {
    return lastEventId(this.storage);
  }
}
