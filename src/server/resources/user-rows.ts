/**
 * The membership store's reads about one user, for the account deletion (inside its transaction, with
 * its locks held), its preview, and the user's export. Read from the database, never from the cache: a
 * deletion decides on them, and an export must show what is stored. Each reads the user's rows through
 * an index by user (`members_user`, `members_pending_invites`, `ownership_offers_user`), never a whole
 * table or an app's resources.
 *
 * The export's reads take the caller's app (`appId`) when the user asks for their own export (only
 * that app is shown) and none for the operator's (every app).
 */
import type { Param, Sql } from "../db/sql.ts";
import type { Role } from "./roles.ts";
import type { MemberState } from "./transitions.ts";

/** `$APP` becomes `filter` (where `$2` is the app) when an app is given, else nothing. */
function forApp(sql: Sql, text: string, filter: string, userId: string, appId: string | undefined) {
  const params: Param[] = appId === undefined ? [userId] : [userId, appId];
  return sql.all<Record<string, any>>(text.replace("$APP", appId === undefined ? "" : filter), params);
}

/** Each membership of the user (any state), for the deletion. */
export function membershipsOfUser(sql: Sql, userId: string) {
  return sql.all<{ resourceId: string; state: MemberState }>(
    `SELECT resource_id AS "resourceId", state FROM members WHERE user_id = $1`,
    [userId],
  );
}

/** The resources the user owns (never an app's), by name. */
export function resourcesOwnedBy(sql: Sql, userId: string) {
  return sql.all<{ id: string; name: string }>(
    "SELECT id, name FROM resources WHERE owner_kind = 'user' AND owner_id = $1 ORDER BY name, id",
    [userId],
  );
}

/** The pending invites the user sent, in (resource, invitee) order. */
export function pendingInvitesBy(sql: Sql, userId: string) {
  return sql.all<{ resourceId: string; userId: string }>(
    `SELECT resource_id AS "resourceId", user_id AS "userId" FROM members
     WHERE invited_by = $1 AND state = 'invited' ORDER BY resource_id, user_id`,
    [userId],
  );
}

/** Every membership of a resource as the succession rule weighs it (`since`: when it was created). */
export async function successionCandidates(sql: Sql, resourceId: string) {
  const rows = await sql.all<{ userId: string; role: Role; state: MemberState; since: number }>(
    `SELECT user_id AS "userId", role, state, created_at AS since FROM members WHERE resource_id = $1`,
    [resourceId],
  );
  return rows.map((row) => ({ ...row, since: Number(row.since) }));
}

/** The user's memberships with their resource, oldest first (the export). */
export function exportedMemberships(sql: Sql, userId: string, appId?: string) {
  return forApp(
    sql,
    `SELECT m.resource_id AS "resourceId", r.app_id AS "appId", r.type, r.name, r.visibility, m.role,
       m.state, m.invited_by AS "invitedBy", m.updated_at AS since
     FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.user_id = $1 $APP
     ORDER BY m.created_at, m.resource_id`,
    "AND m.app_id = $2",
    userId,
    appId,
  );
}

/** The resources the user owns (the export), oldest first. */
export function exportedOwned(sql: Sql, userId: string, appId?: string) {
  // The owner always holds an active owner row: read through the user's memberships.
  return forApp(
    sql,
    `SELECT r.id, r.app_id AS "appId", r.type, r.name, r.member_count AS "memberCount",
       r.created_at AS "createdAt"
     FROM members m JOIN resources r ON r.id = m.resource_id
     WHERE m.user_id = $1 AND m.role = 'owner' AND r.owner_kind = 'user' AND r.owner_id = $1 $APP
     ORDER BY r.created_at, r.id`,
    "AND m.app_id = $2",
    userId,
    appId,
  );
}

/** The pending invites the user sent (the export), oldest first. */
export function exportedInvites(sql: Sql, userId: string, appId?: string) {
  return forApp(
    sql,
    `SELECT resource_id AS "resourceId", user_id AS "userId", role, created_at AS "createdAt"
     FROM members WHERE invited_by = $1 AND state = 'invited' $APP
     ORDER BY created_at, resource_id, user_id`,
    "AND app_id = $2",
    userId,
    appId,
  );
}

/** Ownership offers made to the user (the export), oldest first. */
export function exportedOffersReceived(sql: Sql, userId: string, appId?: string) {
  return forApp(
    sql,
    // CROSS JOIN: SQLite then reads the offers by user first (ownership_offers_user), never the
    // app's resources one by one; to PostgreSQL it is the same inner join.
    `SELECT o.resource_id AS "resourceId", o.offered_by AS "offeredBy", o.created_at AS "createdAt"
     FROM ownership_offers o CROSS JOIN resources r WHERE r.id = o.resource_id AND o.user_id = $1 $APP
     ORDER BY o.created_at, o.resource_id`,
    "AND r.app_id = $2",
    userId,
    appId,
  );
}

/** Ownership offers made by the user as an owner (the export), oldest first. */
export function exportedOffersMade(sql: Sql, userId: string, appId?: string) {
  return forApp(
    sql,
    // Through the user's owner memberships (members_user), as exportedOwned: resources have no
    // index by owner, and a scan of every resource would hold up the event loop on SQLite.
    `SELECT o.resource_id AS "resourceId", o.user_id AS "userId", o.created_at AS "createdAt"
     FROM members m JOIN resources r ON r.id = m.resource_id
     JOIN ownership_offers o ON o.resource_id = m.resource_id
     WHERE m.user_id = $1 AND m.role = 'owner' AND r.owner_kind = 'user' AND r.owner_id = $1 $APP
     ORDER BY o.created_at, o.resource_id`,
    "AND r.app_id = $2",
    userId,
    appId,
  );
}

/** The rows the user linked, with their data (the export). */
export function exportedLinks(sql: Sql, userId: string, appId?: string) {
  return forApp(
    sql,
    `SELECT l.resource_id AS "resourceId", l.table_name AS "table", l.row_id AS "rowId", l.hidden, l.data,
       l.created_at AS "createdAt"
     FROM resource_links l JOIN resources r ON r.id = l.resource_id WHERE l.contributor_id = $1 $APP
     ORDER BY l.resource_id, l.table_name, l.created_at, l.row_id`,
    "AND r.app_id = $2",
    userId,
    appId,
  );
}

/** The copies resources kept of the user's rows (the export), oldest first. */
export function exportedRetained(sql: Sql, userId: string, appId?: string) {
  return forApp(
    sql,
    `SELECT t.resource_id AS "resourceId", t.table_name AS "table", t.row_id AS "rowId", t.data,
       t.created_at AS "createdAt"
     FROM retained_rows t JOIN resources r ON r.id = t.resource_id WHERE t.from_user_id = $1 $APP
     ORDER BY t.id`,
    "AND r.app_id = $2",
    userId,
    appId,
  );
}
