/**
 * The membership store's reads for the operators' lists (admin API, TUI): counts, the pending invites
 * and requests, every resource, a user's memberships. Keyset pages newest first, like browse; read from
 * the database, never the cache (an operator's list is not the hot path). Resource rows are read with
 * the one resource row description (rows.ts).
 */
import { addSearch, containing, queryFilters } from "../db/query-filters.ts";
import type { Param, Sql } from "../db/sql.ts";
import { asResource, RESOURCE_COLUMNS, type ResourceRow } from "./rows.ts";
import type { MemberState } from "./transitions.ts";

type After = { createdAt: number; id: string } | undefined;

const count = async (sql: Sql, text: string) => Number((await sql.get<{ n: number }>(text))?.n ?? 0);

export const countResources = (sql: Sql) => count(sql, "SELECT count(*) AS n FROM resources");

/** Pending memberships in each state (`state <> 'active'`: served by the partial index of pending rows). */
const COUNT_PENDING = {
  invited: "SELECT count(*) AS n FROM members WHERE state = 'invited' AND state <> 'active'",
  requested: "SELECT count(*) AS n FROM members WHERE state = 'requested' AND state <> 'active'",
};
export const countPending = (sql: Sql, state: keyof typeof COUNT_PENDING) => count(sql, COUNT_PENDING[state]);

export interface PendingRow {
  id: string;
  resourceId: string;
  resourceName: string;
  userId: string;
  role: string;
  state: string;
  invitedBy: string | null;
  createdAt: number;
}

/** Pending invites and requests, newest first; `id` is the keyset's (resource/user). At most `take`. */
export function listPending(
  sql: Sql,
  filter: { state?: "invited" | "requested"; query?: string },
  take: number,
  after?: After,
): Promise<PendingRow[]> {
  const params: Param[] = [take];
  const f = queryFilters(params);
  if (filter.state !== undefined) f.add("m.state = ?", filter.state);
  addSearch(
    f,
    ["r.name_fold", "m.resource_id", "m.user_id", "m.invited_by", "m.role", "m.state"],
    filter.query,
  );
  if (after) f.add("(m.created_at, m.resource_id || '/' || m.user_id) < (?, ?)", after.createdAt, after.id);
  return sql.all<PendingRow>(
    `SELECT m.resource_id || '/' || m.user_id AS id, m.resource_id AS "resourceId", r.name AS "resourceName",
       m.user_id AS "userId", m.role, m.state, m.invited_by AS "invitedBy", m.created_at AS "createdAt"
     FROM members m JOIN resources r ON r.id = m.resource_id
     WHERE m.state <> 'active' ${f.where()}
     ORDER BY m.created_at DESC, id DESC LIMIT $1`,
    params,
  );
}

/** Every app's resources, newest first, by type and name substring. At most `take`. */
export async function listResources(
  sql: Sql,
  filter: { type?: string; query?: string },
  take: number,
  after?: After,
): Promise<ResourceRow[]> {
  const params: Param[] = [take];
  const f = queryFilters(params);
  if (filter.type !== undefined) f.add("type = ?", filter.type);
  if (filter.query) f.add("name_fold LIKE ? ESCAPE '\\'", containing(filter.query));
  if (after) f.add("(created_at, id) < (?, ?)", after.createdAt, after.id);
  const rows = await sql.all<ResourceRow>(
    `SELECT ${RESOURCE_COLUMNS} FROM resources WHERE true ${f.where()}
     ORDER BY created_at DESC, id DESC LIMIT $1`,
    params,
  );
  return rows.map(asResource);
}

/** A user's memberships in every app, oldest first, with their resource's name, type and app. */
export function membershipsWithResources(sql: Sql, userId: string) {
  return sql.all<{
    resourceId: string;
    resourceName: string;
    type: string;
    appId: string;
    role: string;
    state: MemberState;
  }>(
    `SELECT m.resource_id AS "resourceId", r.name AS "resourceName", r.type, r.app_id AS "appId", m.role, m.state
     FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.user_id = $1 ORDER BY m.created_at`,
    [userId],
  );
}
