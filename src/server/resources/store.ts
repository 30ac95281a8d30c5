/**
 * Storage for resources and memberships: every SQL statement of the module, prepared once (a query
 * built per request costs 3× its execution). Reads run freely on the WAL snapshot; the write helpers
 * here are only ever called inside `storage.writeTx`, by service.ts, next to the checks they depend on.
 */
import type { Database, Statement } from "bun:sqlite";
import type { Storage } from "../db/open.ts";
import type { members, resources } from "../db/schema.ts";
import type { Role } from "./roles.ts";
import type { MemberState } from "./transitions.ts";

export type ResourceRow = typeof resources.$inferSelect;
export type MemberRow = typeof members.$inferSelect;
export type ResourceWithMembership = ResourceRow & {
  memberRole: Role | null;
  memberState: MemberState | null;
};

/** The resource columns as ResourceRow fields, optionally qualified by a table alias. */
const resourceColumns = (t = "") =>
  `${t}seq AS seq, ${t}id AS id, ${t}app_id AS appId, ${t}type AS type, ${t}name AS name, ${t}visibility AS visibility,
   ${t}discoverable AS discoverable, ${t}owner_id AS ownerId, ${t}slug AS slug, ${t}member_count AS memberCount,
   ${t}created_at AS createdAt`;
const RESOURCE_COLUMNS = resourceColumns();

export interface BrowseQuery {
  appId: string;
  type?: string;
  /** Case-insensitive substring of the name. */
  query?: string;
  limit: number;
  after?: { createdAt: number; id: string };
}

export interface BrowseRow {
  id: string;
  type: string;
  name: string;
  memberCount: number;
  createdAt: number;
}

/** Above this many FTS matches a LIKE walk down the (created_at, id) index finds a page sooner. */
export const FTS_MATCH_LIMIT = 2000;

export class ResourceStore {
  private readonly sqlite: Database;
  private readonly cache = new Map<string, Statement>();

  constructor(storage: Storage) {
    this.sqlite = storage.sqlite;
  }

  private q(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }

  getResource(id: string): ResourceRow | undefined {
    return (
      (this.q(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE id = ?`).get(id) as ResourceRow | undefined) ??
      undefined
    );
  }

  /** The hot read: a resource and the caller's membership in one statement. */
  getResourceFor(id: string, userId: string): ResourceWithMembership | undefined {
    const row = this.q(
      `SELECT ${resourceColumns("r.")}, m.role AS memberRole, m.state AS memberState
       FROM resources r LEFT JOIN members m ON m.resource_id = r.id AND m.user_id = ? WHERE r.id = ?`,
    ).get(userId, id) as ResourceWithMembership | null;
    return row ?? undefined;
  }

  findStatic(appId: string, type: string, slug: string): ResourceRow | undefined {
    return (
      (this.q(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE app_id = ? AND type = ? AND slug = ?`).get(
        appId,
        type,
        slug,
      ) as ResourceRow | null) ?? undefined
    );
  }

  getMembership(resourceId: string, userId: string): MemberRow | undefined {
    return (
      (this.q(
        `SELECT resource_id AS resourceId, user_id AS userId, app_id AS appId, role, state, invited_by AS invitedBy,
       created_at AS createdAt, updated_at AS updatedAt FROM members WHERE resource_id = ? AND user_id = ?`,
      ).get(resourceId, userId) as MemberRow | null) ?? undefined
    );
  }

  listMembers(resourceId: string): Array<{ userId: string; role: Role; state: MemberState; since: number }> {
    return this.q(
      "SELECT user_id AS userId, role, state, updated_at AS since FROM members WHERE resource_id = ? ORDER BY created_at, user_id",
    ).all(resourceId) as Array<{ userId: string; role: Role; state: MemberState; since: number }>;
  }

  /** Resources of an app where the user's membership is in `state`, newest first. */
  listForUser(appId: string, userId: string, state: MemberState, type?: string): ResourceRow[] {
    return this.q(
      `SELECT ${resourceColumns("r.")} FROM members m JOIN resources r ON r.id = m.resource_id
       WHERE m.user_id = ? AND m.state = ? AND r.app_id = ? AND (?4 IS NULL OR r.type = ?4)
       ORDER BY r.created_at DESC, r.id DESC`,
    ).all(userId, state, appId, type ?? null) as ResourceRow[];
  }

  countPendingInvites(appId: string, inviterId: string): number {
    const row = this.q(
      "SELECT count(*) AS n FROM members WHERE app_id = ? AND invited_by = ? AND state = 'invited'",
    ).get(appId, inviterId) as { n: number };
    return row.n;
  }

  /** Keyset page of discoverable resources, newest first. Picks FTS or an index walk per query. */
  browse(query: BrowseQuery): BrowseRow[] {
    const params: Array<string | number | null> = [query.appId, query.type ?? null];
    let filter = "";
    if (query.query) {
      if (query.query.length >= 3 && this.ftsMatches(query.query) <= FTS_MATCH_LIMIT) {
        filter = "AND seq IN (SELECT rowid FROM resources_fts WHERE resources_fts MATCH ?)";
        params.push(ftsPhrase(query.query));
      } else {
        filter = "AND name LIKE ? ESCAPE '\\'";
        params.push(`%${query.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
    }
    const keyset = query.after ? "AND (created_at, id) < (?, ?)" : "";
    if (query.after) params.push(query.after.createdAt, query.after.id);
    params.push(query.limit);
    const typeFilter = query.type === undefined ? "AND ?2 IS NULL" : "AND type = ?2";
    return this.q(
      `SELECT id, type, name, member_count AS memberCount, created_at AS createdAt FROM resources
       WHERE app_id = ?1 ${typeFilter} AND discoverable = 1 ${filter} ${keyset}
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(...params) as BrowseRow[];
  }

  private ftsMatches(text: string): number {
    const row = this.q(
      `SELECT count(*) AS n FROM (SELECT 1 FROM resources_fts WHERE resources_fts MATCH ? LIMIT ${FTS_MATCH_LIMIT + 1})`,
    ).get(ftsPhrase(text)) as { n: number };
    return row.n;
  }

  // ---- writes: call only inside storage.writeTx ----

  insertResource(row: Omit<ResourceRow, "seq">): void {
    this.q(
      `INSERT INTO resources (id, app_id, type, name, visibility, discoverable, owner_id, slug, member_count, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.id,
      row.appId,
      row.type,
      row.name,
      row.visibility,
      row.discoverable ? 1 : 0,
      row.ownerId,
      row.slug,
      row.memberCount,
      row.createdAt,
    );
  }

  updateResource(id: string, name: string, visibility: "members" | "public", discoverable: boolean): void {
    this.q("UPDATE resources SET name = ?, visibility = ?, discoverable = ? WHERE id = ?").run(
      name,
      visibility,
      discoverable ? 1 : 0,
      id,
    );
  }

  deleteResource(id: string): void {
    this.q("DELETE FROM resources WHERE id = ?").run(id);
  }

  addToCount(resourceId: string, delta: number): void {
    this.q("UPDATE resources SET member_count = member_count + ? WHERE id = ?").run(delta, resourceId);
  }

  insertMember(row: MemberRow): void {
    this.q(
      `INSERT INTO members (resource_id, user_id, app_id, role, state, invited_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.resourceId,
      row.userId,
      row.appId,
      row.role,
      row.state,
      row.invitedBy,
      row.createdAt,
      row.updatedAt,
    );
  }

  updateMember(resourceId: string, userId: string, role: Role, state: MemberState, now: number): void {
    this.q(
      "UPDATE members SET role = ?, state = ?, updated_at = ? WHERE resource_id = ? AND user_id = ?",
    ).run(role, state, now, resourceId, userId);
  }

  deleteMember(resourceId: string, userId: string): void {
    this.q("DELETE FROM members WHERE resource_id = ? AND user_id = ?").run(resourceId, userId);
  }
}

/** An FTS5 phrase for the trigram tokenizer: the whole text, quotes doubled, matched as a substring. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
