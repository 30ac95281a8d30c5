/**
 * The operators' read models: lists for the admin API and the TUI, keyset-paginated
 * newest first like browse. Plain prepared SQL over the same tables the services write.
 */
import { listLiveSessions, SESSION_USER_IDS } from "../auth/session-reads.ts";
import { CREDIT_USER_IDS } from "../credits/ledger.ts";
import { addSearch, containing, queryFilters as filters } from "../db/query-filters.ts";
import type { Param, Storage } from "../db/sql.ts";
import { EVENTS_CHANNEL, type EventRow } from "../events/log.ts";
import { encodeCursor } from "../resources/views.ts";

export type After = { createdAt: number; id: string } | undefined;

/** Where an event stream is: the last row shown (and on PostgreSQL its transaction id). */
export interface EventCursor {
  xid?: string;
  id: number;
}

const EVENT_COLUMNS = 'id, type, actor, resource_id AS "resourceId", user_id AS "userId", data, at';

/** The SSE id of a row: `id` on SQLite, `xid.id` on PostgreSQL. */
const formatCursor = (cursor: EventCursor) =>
  cursor.xid === undefined ? String(cursor.id) : `${cursor.xid}.${cursor.id}`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

interface ResourceDbRow {
  id: string;
  appId: string;
  type: string;
  name: string;
  visibility: string;
  discoverable: number | boolean;
  memberCount: number;
  createdAt: number;
}

const RESOURCE_COLUMNS = `id, app_id AS "appId", type, name, visibility, discoverable,
  member_count AS "memberCount", created_at AS "createdAt"`;

const resourceRow = (r: ResourceDbRow) => ({
  ...r,
  discoverable: Boolean(r.discoverable),
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
      one("SELECT count(*) AS n FROM resources"),
      one("SELECT count(*) AS n FROM members WHERE state = 'invited' AND state <> 'active'"),
      one("SELECT count(*) AS n FROM members WHERE state = 'requested' AND state <> 'active'"),
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

  async pending(filter: { state?: "invited" | "requested"; query?: string }, limit: number, after?: After) {
    const params: Param[] = [limit + 1];
    const f = filters(params);
    if (filter.state !== undefined) f.add("m.state = ?", filter.state);
    addSearch(
      f,
      ["r.name_fold", "m.resource_id", "m.user_id", "m.invited_by", "m.role", "m.state"],
      filter.query,
    );
    if (after) f.add("(m.created_at, m.resource_id || '/' || m.user_id) < (?, ?)", after.createdAt, after.id);
    const rows = await this.storage.all<{
      id: string;
      resourceId: string;
      resourceName: string;
      userId: string;
      role: string;
      state: string;
      invitedBy: string | null;
      createdAt: number;
    }>(
      `SELECT m.resource_id || '/' || m.user_id AS id, m.resource_id AS "resourceId", r.name AS "resourceName",
         m.user_id AS "userId", m.role, m.state, m.invited_by AS "invitedBy", m.created_at AS "createdAt"
       FROM members m JOIN resources r ON r.id = m.resource_id
       WHERE m.state <> 'active' ${f.where()}
       ORDER BY m.created_at DESC, id DESC LIMIT $1`,
      params,
    );
    const { rows: shown, nextCursor } = page(rows, limit);
    return { pending: shown.map(({ id: _id, ...p }) => ({ ...p, createdAt: iso(p.createdAt) })), nextCursor };
  }

  async resources(filter: { type?: string; query?: string }, limit: number, after?: After) {
    const params: Param[] = [limit + 1];
    const f = filters(params);
    if (filter.type !== undefined) f.add("type = ?", filter.type);
    if (filter.query) f.add("name_fold LIKE ? ESCAPE '\\'", containing(filter.query));
    if (after) f.add("(created_at, id) < (?, ?)", after.createdAt, after.id);
    const rows = await this.storage.all<ResourceDbRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources WHERE true ${f.where()}
       ORDER BY created_at DESC, id DESC LIMIT $1`,
      params,
    );
    const { rows: shown, nextCursor } = page(rows, limit);
    return { resources: shown.map(resourceRow), nextCursor };
  }

  /** One resource as the list shows it, or undefined. */
  async resource(id: string) {
    const row = await this.storage.get<ResourceDbRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources WHERE id = $1`,
      [id],
    );
    return row && resourceRow(row);
  }

  async roster(resourceId: string) {
    const rows = await this.storage.all<{ userId: string; role: string; state: string; since: number }>(
      `SELECT user_id AS "userId", role, state, updated_at AS since FROM members WHERE resource_id = $1
       ORDER BY created_at, user_id`,
      [resourceId],
    );
    return rows.map((m) => ({ ...m, since: iso(m.since) }));
  }

  async user(userId: string) {
    const memberships = await this.storage.all(
      `SELECT m.resource_id AS "resourceId", r.name AS "resourceName", r.type, r.app_id AS "appId", m.role, m.state
       FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.user_id = $1 ORDER BY m.created_at`,
      [userId],
    );
    return { memberships };
  }

  /**
   * The audit log newest first (by row id), a page at a time: by type, by user (the member acted on or
   * the actor), by resource, and `query` (a substring of any of them). The events table has no secondary index (it is appended on every write),
   * so a filter reads rows from the newest back until the page is full.
   */
  async audit(
    filter: { type?: string; userId?: string; resourceId?: string; query?: string },
    limit: number,
    afterId?: number,
  ) {
    const params: Param[] = [limit + 1];
    const f = filters(params);
    if (filter.type !== undefined) f.add("type = ?", filter.type);
    if (filter.userId !== undefined) f.add("(user_id = ? OR actor = ?)", filter.userId, filter.userId);
    if (filter.resourceId !== undefined) f.add("resource_id = ?", filter.resourceId);
    addSearch(f, ["type", "user_id", "actor", "resource_id"], filter.query);
    if (afterId !== undefined) f.add("id < ?", afterId);
    const rows = await this.storage.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE true ${f.where()} ORDER BY id DESC LIMIT $1`,
      params,
    );
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      events: shown.map(eventView),
      nextCursor:
        rows.length > limit && last ? encodeCursor({ createdAt: last.at, id: String(last.id) }) : null,
    };
  }

  /**
   * Event rows after `cursor`, in stream order, each with the cursor that resumes after it. SQLite
   * orders by id (one writer: ids commit in order). PostgreSQL can commit a smaller id after a larger
   * one is visible, so it orders by (writing transaction, id) and returns only rows of transactions
   * older than every transaction still running: a row never appears behind a cursor already handed out.
   * (A long write transaction holds the stream back until it ends.)
   */
  async eventsAfter(cursor: EventCursor, limit = 500) {
    const pg = this.storage.dialect === "postgres";
    const rows = await this.storage.all<EventRow & { xid?: string }>(
      pg
        ? `SELECT ${EVENT_COLUMNS}, xid::text AS xid FROM events
           WHERE (xid, id) > ($1::xid8, $2) AND xid < pg_snapshot_xmin(pg_current_snapshot())
           ORDER BY xid, id LIMIT $3`
        : `SELECT ${EVENT_COLUMNS} FROM events WHERE id > $1 ORDER BY id LIMIT $2`,
      pg ? [cursor.xid ?? "0", cursor.id, limit] : [cursor.id, limit],
    );
    return rows.map(({ xid, ...e }) => ({
      cursor: formatCursor({ xid, id: e.id }),
      next: { xid, id: e.id } as EventCursor,
      event: eventView(e),
    }));
  }

  /** The cursor after the newest event a stream could show now (a new stream starts there). */
  async lastEventCursor(): Promise<EventCursor> {
    if (this.storage.dialect !== "postgres") return { id: await this.lastEventId() };
    const row = await this.storage.get<{ xid: string; id: number }>(
      `SELECT xid::text AS xid, id FROM events WHERE xid < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY xid DESC, id DESC LIMIT 1`,
    );
    return row ?? { xid: "0", id: 0 };
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

  async lastEventId(): Promise<number> {
    return Number(
      (await this.storage.get<{ n: number }>("SELECT coalesce(max(id), 0) AS n FROM events"))?.n ?? 0,
    );
  }
}
