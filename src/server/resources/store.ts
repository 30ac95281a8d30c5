/**
 * Storage for resources and memberships: every SQL statement of the module, prepared once (a query
 * built per request costs 3× its execution). Reads run freely on the WAL snapshot; the write helpers
 * here are only ever called inside `storage.writeTx`, by service.ts, next to the checks they depend on.
 *
 * Resource rows and single memberships are cached in memory (bounded LRUs). Every write helper below
 * evicts what it changes; a commit by another process (another connection to the file) empties the
 * caches before their next answer (`externalVersion`, SQLite's data_version). Reads made inside a write
 * transaction never use the cache, so a decision always reads the database and a rolled-back write is
 * never cached.
 */
import type { Database, Statement } from "bun:sqlite";
import type { Storage } from "../db/open.ts";
import type { members, resources } from "../db/schema.ts";
import { Lru } from "../lib/lru.ts";
import type { Role } from "./roles.ts";
import type { MemberState } from "./transitions.ts";

export type ResourceRow = Omit<typeof resources.$inferSelect, "nameFold">;
export type MemberRow = typeof members.$inferSelect;
export type ResourceWithMembership = ResourceRow & {
  memberRole: Role | null;
  memberState: MemberState | null;
};

/** The resource columns as ResourceRow fields, optionally qualified by a table alias. */
const resourceColumns = (t = "") =>
  `${t}seq AS seq, ${t}id AS id, ${t}app_id AS appId, ${t}type AS type, ${t}name AS name, ${t}visibility AS visibility,
   ${t}discoverable AS discoverable, ${t}owner_id AS ownerId, ${t}owner_kind AS ownerKind, ${t}slug AS slug, ${t}member_count AS memberCount,
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

/** How many index rows a LIKE walk may visit before browse switches to the FTS index. */
export const LIKE_WINDOW = 1000;

export class ResourceStore {
  private readonly sqlite: Database;
  private readonly cache = new Map<string, Statement>();
  private readonly resourceCache = new Lru<string, ResourceRow>(50_000);
  /** Keyed by resource id + "\n" + user id; null records "not a member" (most readers of public resources). */
  private readonly memberCache = new Lru<string, MemberRow | null>(200_000);

  /** The externalVersion the caches were filled at. */
  private cachedAt = -1;

  constructor(private readonly storage: Storage) {
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

  /**
   * Whether the caches may answer: never inside a write transaction (a decision reads the database,
   * whatever another process did), and only while no other connection has committed since they were filled.
   */
  private cacheUsable(): boolean {
    if (this.sqlite.inTransaction) return false;
    const version = this.storage.externalVersion();
    if (version !== this.cachedAt) {
      this.cachedAt = version;
      this.resourceCache.clear();
      this.memberCache.clear();
    }
    return true;
  }

  getResource(id: string): ResourceRow | undefined {
    const usable = this.cacheUsable();
    const cached = usable ? this.resourceCache.get(id) : undefined;
    if (cached) return cached;
    const row =
      (this.q(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE id = ?`).get(id) as ResourceRow | null) ??
      undefined;
    if (row && usable) this.resourceCache.set(id, row);
    return row;
  }

  /** The hot read: a resource and the caller's membership (both usually from memory). */
  getResourceFor(id: string, userId: string): ResourceWithMembership | undefined {
    const resource = this.getResource(id);
    if (!resource) return undefined;
    const membership = this.getMembership(id, userId);
    return { ...resource, memberRole: membership?.role ?? null, memberState: membership?.state ?? null };
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
    const key = `${resourceId}\n${userId}`;
    const usable = this.cacheUsable();
    const cached = usable ? this.memberCache.get(key) : undefined;
    if (cached !== undefined) return cached ?? undefined;
    const row =
      (this.q(
        `SELECT resource_id AS resourceId, user_id AS userId, app_id AS appId, role, state, invited_by AS invitedBy,
       created_at AS createdAt, updated_at AS updatedAt FROM members WHERE resource_id = ? AND user_id = ?`,
      ).get(resourceId, userId) as MemberRow | null) ?? undefined;
    if (usable) this.memberCache.set(key, row ?? null);
    return row;
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

  /**
   * Keyset page of discoverable resources, newest first, along the (app, [type,] discoverable,
   * created_at, id) index. With a name `query` the cost depends on how common the term is, so:
   * first walk at most LIKE_WINDOW index rows with LIKE (a common term fills the page at once); if that
   * does not fill the page, the term is rare, and the FTS5 trigram index finds its few rows directly
   * (cost grows with the number of matches, not the table).
   *
   * A query shorter than 3 characters counted in code points (what the trigram tokenizer counts; `😀a`
   * is 2 of them in 3 UTF-16 units) can never match the trigram index: the LIKE walk alone answers it.
   * The two matchers fold case differently (JavaScript's toLowerCase for `name_fold`, SQLite's own
   * folding for FTS5), so the FTS rows never replace what the walk found: both are merged, newest first
   * by (created_at, id), without duplicates, cut to the limit.
   */
  browse(query: BrowseQuery): BrowseRow[] {
    if (!query.query) return this.browsePage(query, "", []);
    const pattern = `%${query.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    if ([...query.query].length < 3)
      return this.browsePage(query, "AND name_fold LIKE ? ESCAPE '\\'", [pattern]);
    const windowed = this.browseWindow(query, pattern);
    if (windowed.length >= query.limit) return windowed;
    return mergeNewestFirst(windowed, this.browseFts(query), query.limit);
  }

  private browsePage(query: BrowseQuery, filter: string, filterParams: string[]): BrowseRow[] {
    const keyset = query.after ? "AND (created_at, id) < (?, ?)" : "";
    const typeFilter = query.type === undefined ? "AND ?2 IS NULL" : "AND type = ?2";
    return this.q(
      `SELECT id, type, name, member_count AS memberCount, created_at AS createdAt FROM resources
       WHERE app_id = ?1 ${typeFilter} AND discoverable = 1 ${filter} ${keyset}
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(
      query.appId,
      query.type ?? null,
      ...filterParams,
      ...this.keysetParams(query),
      query.limit,
    ) as BrowseRow[];
  }

  private browseWindow(query: BrowseQuery, pattern: string): BrowseRow[] {
    const keyset = query.after ? "AND (created_at, id) < (?, ?)" : "";
    const typeFilter = query.type === undefined ? "AND ?2 IS NULL" : "AND type = ?2";
    return this.q(
      `SELECT id, type, name, memberCount, createdAt FROM (
         SELECT id, type, name, name_fold AS nameFold, member_count AS memberCount, created_at AS createdAt FROM resources
         WHERE app_id = ?1 ${typeFilter} AND discoverable = 1 ${keyset}
         ORDER BY created_at DESC, id DESC LIMIT ${LIKE_WINDOW}
       ) WHERE nameFold LIKE ? ESCAPE '\\' LIMIT ?`,
    ).all(query.appId, query.type ?? null, ...this.keysetParams(query), pattern, query.limit) as BrowseRow[];
  }

  private browseFts(query: BrowseQuery): BrowseRow[] {
    const keyset = query.after ? "AND (r.created_at, r.id) < (?, ?)" : "";
    const typeFilter = query.type === undefined ? "AND ?2 IS NULL" : "AND r.type = ?2";
    // CROSS JOIN fixes the loop order: from the FTS matches to their rows, never a walk of the table.
    return this.q(
      `SELECT r.id AS id, r.type AS type, r.name AS name, r.member_count AS memberCount, r.created_at AS createdAt
       FROM (SELECT rowid AS seq FROM resources_fts WHERE resources_fts MATCH ?3) AS f CROSS JOIN resources AS r ON r.seq = f.seq
       WHERE r.app_id = ?1 ${typeFilter} AND r.discoverable = 1 ${keyset}
       ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
    ).all(
      query.appId,
      query.type ?? null,
      ftsPhrase(query.query!),
      ...this.keysetParams(query),
      query.limit,
    ) as BrowseRow[];
  }

  private keysetParams(query: BrowseQuery): Array<string | number> {
    return query.after ? [query.after.createdAt, query.after.id] : [];
  }

  // ---- writes: call only inside storage.writeTx ----

  insertResource(row: Omit<ResourceRow, "seq">): void {
    this.q(
      `INSERT INTO resources (id, app_id, type, name, name_fold, visibility, discoverable, owner_id, owner_kind, slug, member_count, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.id,
      row.appId,
      row.type,
      row.name,
      row.name.toLowerCase(),
      row.visibility,
      row.discoverable ? 1 : 0,
      row.ownerId,
      row.ownerKind,
      row.slug,
      row.memberCount,
      row.createdAt,
    );
  }

  updateResource(id: string, name: string, visibility: "members" | "public", discoverable: boolean): void {
    this.q("UPDATE resources SET name = ?, name_fold = ?, visibility = ?, discoverable = ? WHERE id = ?").run(
      name,
      name.toLowerCase(),
      visibility,
      discoverable ? 1 : 0,
      id,
    );
    this.resourceCache.delete(id);
  }

  deleteResource(id: string): void {
    this.q("DELETE FROM resources WHERE id = ?").run(id);
    this.resourceCache.delete(id);
  }

  addToCount(resource: Pick<ResourceRow, "id" | "seq">, delta: number): void {
    this.q("UPDATE resources SET member_count = member_count + ? WHERE seq = ?").run(delta, resource.seq);
    this.resourceCache.delete(resource.id);
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
    this.memberCache.delete(`${row.resourceId}\n${row.userId}`);
  }

  updateMember(resourceId: string, userId: string, role: Role, state: MemberState, now: number): void {
    this.q(
      "UPDATE members SET role = ?, state = ?, updated_at = ? WHERE resource_id = ? AND user_id = ?",
    ).run(role, state, now, resourceId, userId);
    this.memberCache.delete(`${resourceId}\n${userId}`);
  }

  deleteMember(resourceId: string, userId: string): void {
    this.q("DELETE FROM members WHERE resource_id = ? AND user_id = ?").run(resourceId, userId);
    this.memberCache.delete(`${resourceId}\n${userId}`);
  }
}

/** Two newest-first lists of rows as one, newest first by (createdAt, id), each id once, at most `limit`. */
function mergeNewestFirst(a: BrowseRow[], b: BrowseRow[], limit: number): BrowseRow[] {
  const byId = new Map<string, BrowseRow>();
  for (const row of [...a, ...b]) if (!byId.has(row.id)) byId.set(row.id, row);
  return [...byId.values()]
    .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
    .slice(0, limit);
}

/** An FTS5 phrase for the trigram tokenizer: the whole text, quotes doubled, matched as a substring. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
