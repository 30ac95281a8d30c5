/**
 * The row descriptions of the membership store: each row type once, with the columns it is read from.
 * Every SELECT of a resource row or a membership row, whoever asks (the cached store, the operators'
 * lists, the account export and deletion), takes its column list from here, and the resource INSERT
 * too: a column added to `resources` is added to RESOURCE_FIELDS (the compiler refuses the build until
 * it is, since the row type comes from the schema) and every read carries it.
 */
import type { members, resources } from "../db/schema.ts";
import type { Sql } from "../db/sql.ts";
import type { Role } from "./roles.ts";
import type { MemberState } from "./transitions.ts";

export type ResourceRow = Omit<typeof resources.$inferSelect, "nameFold">;
export type MemberRow = typeof members.$inferSelect;

/** Each field of a resource row and its column. `name_fold` is written (from the name), never read. */
const RESOURCE_FIELDS = {
  seq: "seq",
  id: "id",
  appId: "app_id",
  type: "type",
  name: "name",
  visibility: "visibility",
  discoverable: "discoverable",
  ownerId: "owner_id",
  ownerKind: "owner_kind",
  slug: "slug",
  memberCount: "member_count",
  createdAt: "created_at",
} as const satisfies Record<keyof ResourceRow, string>;

const MEMBER_FIELDS = {
  resourceId: "resource_id",
  userId: "user_id",
  appId: "app_id",
  role: "role",
  state: "state",
  invitedBy: "invited_by",
  createdAt: "created_at",
  updatedAt: "updated_at",
} as const satisfies Record<keyof MemberRow, string>;

const selectList = (fields: Record<string, string>, t: string) =>
  Object.entries(fields)
    .map(([field, column]) => `${t}${column} AS "${field}"`)
    .join(", ");

/** The resource columns as ResourceRow fields, optionally qualified by a table alias (`r.`). */
export const resourceColumns = (t = "") => selectList(RESOURCE_FIELDS, t);
export const RESOURCE_COLUMNS = resourceColumns();
export const MEMBER_COLUMNS = selectList(MEMBER_FIELDS, "");

/** The resource INSERT: every field but `seq` (the database numbers it), and `name_fold` from the name. */
const INSERTED = Object.entries(RESOURCE_FIELDS).filter(([field]) => field !== "seq") as Array<
  [Exclude<keyof ResourceRow, "seq">, string]
>;
export const INSERT_RESOURCE = `INSERT INTO resources (${INSERTED.map(([, column]) => column).join(", ")}, name_fold)
  VALUES (${INSERTED.map((_, i) => `$${i + 1}`).join(", ")}, $${INSERTED.length + 1})`;
export const insertResourceParams = (row: Omit<ResourceRow, "seq">) => [
  ...INSERTED.map(([field]) => row[field]),
  row.name.toLowerCase(),
];

/** A resource row as both engines give it, with `discoverable` a boolean (SQLite stores 0/1). */
export function asResource(row: ResourceRow): ResourceRow {
  row.discoverable = Boolean(row.discoverable);
  return row;
}

/** One resource row from the database (no cache). */
export async function readResourceRow(sql: Sql, id: string): Promise<ResourceRow | undefined> {
  const row = await sql.get<ResourceRow>(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE id = $1`, [id]);
  return row && asResource(row);
}

export interface RosterRow {
  userId: string;
  role: Role;
  state: MemberState;
  since: number;
}

/** A resource's roster from the database (no cache), oldest membership first. */
export function readRoster(sql: Sql, resourceId: string): Promise<RosterRow[]> {
  return sql.all<RosterRow>(
    `SELECT user_id AS "userId", role, state, updated_at AS since FROM members WHERE resource_id = $1
     ORDER BY created_at, user_id`,
    [resourceId],
  );
}

/** A browse item's row: what a page of discoverable resources shows. */
export interface BrowseRow {
  id: string;
  type: string;
  name: string;
  memberCount: number;
  createdAt: number;
}

/** The app of the resource `idColumn` names, as an expression (null once that resource is gone). */
export const resourceAppOf = (idColumn: string) => `(SELECT app_id FROM resources WHERE id = ${idColumn})`;
