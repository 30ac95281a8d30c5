/**
 * The audit log's reads: the operators' list (filters, newest first), the admin stream's rows in commit
 * order, and one user's events a page at a time (the export). Only events/ names the `events` table;
 * the rows are appended by log.ts inside each change's transaction.
 */
import { addSearch, queryFilters } from "../db/query-filters.ts";
import type { Param, Sql, Storage } from "../db/sql.ts";
import { resourceAppOf } from "../resources/rows.ts";
import type { EventRow } from "./log.ts";

const EVENT_COLUMNS = 'id, type, actor, resource_id AS "resourceId", user_id AS "userId", data, at';

export interface AuditFilter {
  type?: string;
  /** The member acted on or the actor. */
  userId?: string;
  resourceId?: string;
  /** A case-insensitive substring of the type, the user, the actor or the resource. */
  query?: string;
}

/**
 * The audit log newest first (by row id), at most `take`, before the row `beforeId`. The events table
 * has no secondary index for these filters (it is appended on every write), so a filter reads rows from
 * the newest back until the page is full.
 */
export function listEvents(
  sql: Sql,
  filter: AuditFilter,
  take: number,
  beforeId?: number,
): Promise<EventRow[]> {
  const params: Param[] = [take];
  const f = queryFilters(params);
  if (filter.type !== undefined) f.add("type = ?", filter.type);
  if (filter.userId !== undefined) f.add("(user_id = ? OR actor = ?)", filter.userId, filter.userId);
  if (filter.resourceId !== undefined) f.add("resource_id = ?", filter.resourceId);
  addSearch(f, ["type", "user_id", "actor", "resource_id"], filter.query);
  if (beforeId !== undefined) f.add("id < ?", beforeId);
  return sql.all<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events WHERE true ${f.where()} ORDER BY id DESC LIMIT $1`,
    params,
  );
}

/** Where an event stream is: the last row shown (and on PostgreSQL its transaction id). */
export interface EventCursor {
  xid?: string;
  id: number;
}

/**
 * Event rows after `cursor`, in stream order. SQLite orders by id (one writer: ids commit in order).
 * PostgreSQL can commit a smaller id after a larger one is visible, so it orders by (writing
 * transaction, id) and returns only rows of transactions older than every transaction still running:
 * a row never appears behind a cursor already handed out. (A long write transaction holds the stream
 * back until it ends.)
 */
export function eventsAfter(
  storage: Pick<Storage, "all" | "dialect">,
  cursor: EventCursor,
  limit: number,
): Promise<Array<EventRow & { xid?: string }>> {
  const pg = storage.dialect === "postgres";
  return storage.all<EventRow & { xid?: string }>(
    pg
      ? `SELECT ${EVENT_COLUMNS}, xid::text AS xid FROM events
         WHERE (xid, id) > ($1::xid8, $2) AND xid < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY xid, id LIMIT $3`
      : `SELECT ${EVENT_COLUMNS} FROM events WHERE id > $1 ORDER BY id LIMIT $2`,
    pg ? [cursor.xid ?? "0", cursor.id, limit] : [cursor.id, limit],
  );
}

/** The cursor after the newest event a stream could show now (a new stream starts there). */
export async function lastEventCursor(storage: Pick<Storage, "get" | "dialect">): Promise<EventCursor> {
  if (storage.dialect !== "postgres") return { id: await lastEventId(storage) };
  const row = await storage.get<{ xid: string; id: number }>(
    `SELECT xid::text AS xid, id FROM events WHERE xid < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY xid DESC, id DESC LIMIT 1`,
  );
  return row ?? { xid: "0", id: 0 };
}

export async function lastEventId(sql: Pick<Sql, "get">): Promise<number> {
  return Number((await sql.get<{ n: number }>("SELECT coalesce(max(id), 0) AS n FROM events"))?.n ?? 0);
}

/** An event with the app of its resource (null: no resource, or one deleted since). */
export interface AppEventRow extends EventRow {
  appId: string | null;
}

/**
 * One page of a user's events, oldest first after the id `after`: the next `limit` events by subject
 * and the next `limit` by actor (each an index range scan in id order, `events_user` and
 * `events_actor`), merged; an event that names the user both ways comes once.
 */
export function userEventsPage(
  sql: Sql,
  userId: string,
  after: number,
  limit: number,
): Promise<AppEventRow[]> {
  return sql.all<AppEventRow>(USER_EVENTS_PAGE, [userId, after, limit]);
}

const USER_EVENTS_PAGE = `SELECT e.id, e.type, e.actor, e.resource_id AS "resourceId", e.user_id AS "userId",
    e.data, e.at, ${resourceAppOf("e.resource_id")} AS "appId"
  FROM (
    SELECT id FROM (SELECT id FROM events WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3) AS by_subject
    UNION
    SELECT id FROM (SELECT id FROM events WHERE actor = $1 AND id > $2 ORDER BY id LIMIT $3) AS by_actor
  ) AS page
  JOIN events e ON e.id = page.id
  ORDER BY e.id LIMIT $3`;
