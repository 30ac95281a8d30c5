/**
 * The data seam's rows: `resource_links` (which row of a shared table is linked into which resource, by
 * whom) and `retained_rows` (the copies a resource keeps under `retain`). They are part of the
 * resource: they go with it (foreign keys ON DELETE CASCADE), and the reads that place them in an app
 * join it, so they are stored here, beside it. data/seam.ts holds the policies and calls these; every
 * write takes the caller's transaction. Never cached.
 */
import type { Sql, Tx } from "../db/sql.ts";

const DELETE_LINK = "DELETE FROM resource_links WHERE resource_id = $1 AND table_name = $2 AND row_id = $3";
const INSERT_RETAINED = `INSERT INTO retained_rows (resource_id, table_name, row_id, from_user_id, data, created_at)
  VALUES ($1, $2, $3, $4, $5, $6)`;

/** Who linked the row into the resource, if anyone did. */
export async function linkContributor(
  tx: Tx,
  resourceId: string,
  table: string,
  rowId: string,
): Promise<string | null | undefined> {
  const row = await tx.get<{ contributorId: string | null }>(
    `SELECT contributor_id AS "contributorId" FROM resource_links
     WHERE resource_id = $1 AND table_name = $2 AND row_id = $3`,
    [resourceId, table, rowId],
  );
  return row?.contributorId;
}

/** Links the row (visible), or replaces the data of the link that is there. */
export async function upsertLink(
  tx: Tx,
  link: { resourceId: string; table: string; rowId: string; contributorId: string; data: string | null },
  now: number,
): Promise<void> {
  await tx.run(
    `INSERT INTO resource_links (resource_id, table_name, row_id, contributor_id, hidden, data, created_at)
     VALUES ($1, $2, $3, $4, false, $5, $6)
     ON CONFLICT (resource_id, table_name, row_id) DO UPDATE SET data = excluded.data`,
    [link.resourceId, link.table, link.rowId, link.contributorId, link.data, now],
  );
}

/** Removes a link; true when there was one. */
export async function deleteLink(tx: Tx, resourceId: string, table: string, rowId: string): Promise<boolean> {
  return (await tx.run(DELETE_LINK, [resourceId, table, rowId])) > 0;
}

/** Removes a link, not waited for (`tx.write`). */
export function dropLink(tx: Tx, resourceId: string, table: string, rowId: string): void {
  tx.write(DELETE_LINK, [resourceId, table, rowId]);
}

/** The visible links a member contributed to a resource. */
export function visibleLinksOf(tx: Tx, resourceId: string, userId: string) {
  return tx.all<{ tableName: string; rowId: string; data: string | null }>(
    `SELECT table_name AS "tableName", row_id AS "rowId", data FROM resource_links
     WHERE resource_id = $1 AND contributor_id = $2 AND hidden = false`,
    [resourceId, userId],
  );
}

export async function hideLink(tx: Tx, resourceId: string, table: string, rowId: string): Promise<void> {
  await tx.run(
    "UPDATE resource_links SET hidden = true WHERE resource_id = $1 AND table_name = $2 AND row_id = $3",
    [resourceId, table, rowId],
  );
}

/** A member who comes back sees their hidden links again. */
export function unhideLinksOf(tx: Tx, resourceId: string, userId: string): void {
  tx.write(
    "UPDATE resource_links SET hidden = false WHERE resource_id = $1 AND contributor_id = $2 AND hidden = true",
    [resourceId, userId],
  );
}

/** Every link the user contributed, in any resource, with the resource's app (by resource, table, row). */
export function linksOfContributor(tx: Tx, userId: string) {
  return tx.all<{
    resourceId: string;
    appId: string;
    tableName: string;
    rowId: string;
    hidden: boolean | number;
    data: string | null;
  }>(
    `SELECT l.resource_id AS "resourceId", r.app_id AS "appId", l.table_name AS "tableName", l.row_id AS "rowId",
       l.hidden, l.data FROM resource_links l JOIN resources r ON r.id = l.resource_id
     WHERE l.contributor_id = $1 ORDER BY l.resource_id, l.table_name, l.row_id`,
    [userId],
  );
}

/** The link stays, authored by nobody (the deleted-user profile). */
export function tombstoneLink(tx: Tx, resourceId: string, table: string, rowId: string): void {
  tx.write(
    "UPDATE resource_links SET contributor_id = NULL WHERE resource_id = $1 AND table_name = $2 AND row_id = $3",
    [resourceId, table, rowId],
  );
}

/** The resource keeps a copy of a row (not waited for: `tx.write`). */
export function insertRetained(
  tx: Tx,
  copy: { resourceId: string; table: string; rowId: string; fromUserId: string; data: string | null },
  now: number,
): void {
  tx.write(INSERT_RETAINED, [copy.resourceId, copy.table, copy.rowId, copy.fromUserId, copy.data, now]);
}

/** The copies kept from `from`'s rows are credited to `to` (an account deletion's pseudonym). */
export function renameRetainedSource(tx: Tx, from: string, to: string): void {
  tx.write("UPDATE retained_rows SET from_user_id = $2 WHERE from_user_id = $1", [from, to]);
}

/** A resource's links (oldest first) and kept copies (in the order kept). */
export async function linkedRowsOf(sql: Sql, resourceId: string) {
  const links = await sql.all<{
    table: string;
    rowId: string;
    contributorId: string | null;
    hidden: number | boolean;
  }>(
    `SELECT table_name AS "table", row_id AS "rowId", contributor_id AS "contributorId", hidden
     FROM resource_links WHERE resource_id = $1 ORDER BY created_at, table_name, row_id`,
    [resourceId],
  );
  const retained = await sql.all<{ table: string; rowId: string; fromUserId: string; data: string | null }>(
    `SELECT table_name AS "table", row_id AS "rowId", from_user_id AS "fromUserId", data FROM retained_rows
     WHERE resource_id = $1 ORDER BY id`,
    [resourceId],
  );
  return { links, retained };
}

/** How many links and kept copies name the user (as contributor, as the copies' source). */
export async function countLinkRowsOf(sql: Sql, userId: string): Promise<number> {
  const row = await sql.get<{ n: number }>(
    `SELECT (SELECT count(*) FROM resource_links WHERE contributor_id = $1)
       + (SELECT count(*) FROM retained_rows WHERE from_user_id = $1) AS n`,
    [userId],
  );
  return Number(row?.n ?? 0);
}
