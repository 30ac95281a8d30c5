/**
 * Storage for resources and memberships: every SQL statement of the module, in the dialect both
 * engines speak. Reads outside a transaction may come from memory; the write helpers take the
 * caller's transaction (service.ts opens it, next to the checks they depend on).
 *
 * Resource rows, memberships, rosters and browse pages are cached in memory (read-cache.ts) only where
 * the engine has a cheap change signal (SQLite): a commit by another process empties the caches before
 * their next answer, and every write helper evicts what it changes once its transaction commits. On
 * PostgreSQL nothing is cached: every read goes to the database, so every replica sees every write on
 * its very next request. Reads given a transaction never use the cache, so a decision always reads the
 * database and a rolled-back write is never cached.
 */
import type { Sql, Storage, Tx } from "../db/sql.ts";
import { type BrowseQuery, browseResources, LIKE_WINDOW } from "./browse-queries.ts";
import { OfferStore } from "./offer-store.ts";
import { ReadCache, ROSTER_MAX } from "./read-cache.ts";
import type { Role } from "./roles.ts";
import {
  asResource,
  type BrowseRow,
  INSERT_RESOURCE,
  insertResourceParams,
  MEMBER_COLUMNS,
  type MemberRow,
  RESOURCE_COLUMNS,
  type ResourceRow,
  type RosterRow,
  readResourceRow,
  readRoster,
  resourceColumns,
} from "./rows.ts";
import type { MemberState } from "./transitions.ts";

export type { BrowseQuery, BrowseRow, MemberRow, ResourceRow, RosterRow };
/** A resource and the caller's membership (null: not a member). */
export interface ForCaller {
  resource: ResourceRow;
  membership: MemberRow | null;
}

export { LIKE_WINDOW };

export class ResourceStore {
  private readonly cache: ReadCache;

  /** The locking read of a resource row (see `lockResource`), by engine. */
  private readonly lockingRead: string;

  /** Ownership offers (their own table, never cached). */
  readonly offers: OfferStore;

  constructor(private readonly storage: Storage) {
    this.cache = new ReadCache(storage);
    this.offers = new OfferStore(storage);
    this.lockingRead = `SELECT ${RESOURCE_COLUMNS} FROM resources WHERE id = $1${storage.dialect === "postgres" ? " FOR UPDATE" : ""}`;
  }

  /** Reads through the transaction when there is one, else outside any. */
  private sql(tx: Tx | undefined): Sql {
    return tx ?? this.storage;
  }

  getResource(id: string, tx?: Tx): Promise<ResourceRow | undefined> {
    return this.readResource(id, tx, this.cache.usable(tx));
  }

  /**
   * The resource row, locked until `tx` ends: changes to one resource's memberships (and its member
   * count) are decided one transaction at a time. PostgreSQL locks the row (`FOR UPDATE`, which also
   * returns the row as the lock holder committed it); SQLite runs one write transaction at a time.
   */
  async lockResource(id: string, tx: Tx): Promise<ResourceRow | undefined> {
    const row = await tx.get<ResourceRow>(this.lockingRead, [id]);
    return row && asResource(row);
  }

  /**
   * The hot read: a resource (the same object until a change evicts it) and the caller's membership
   * (null: not a member), undefined when there is no such resource. Synchronous when memory answers.
   */
  readForCaller(id: string, userId: string): ForCaller | undefined | Promise<ForCaller | undefined> {
    const usable = this.cache.usable(undefined);
    if (usable) {
      const resource = this.cache.resources.get(id);
      const membership = resource && this.cache.members.get(ReadCache.memberKey(id, userId));
      if (resource !== undefined && membership !== undefined) return { resource, membership };
    }
    return this.readForCallerStored(id, userId, usable);
  }

  private async readForCallerStored(id: string, userId: string, usable: boolean) {
    // Both asked at once: one round trip when nothing is cached (PostgreSQL).
    const [resource, membership] = await Promise.all([
      this.readResource(id, undefined, usable),
      this.readMembership(id, userId, undefined, usable),
    ]);
    return resource && { resource, membership: membership ?? null };
  }

  async findStatic(appId: string, type: string, slug: string, tx?: Tx): Promise<ResourceRow | undefined> {
    const row = await this.sql(tx).get<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources WHERE app_id = $1 AND type = $2 AND slug = $3`,
      [appId, type, slug],
    );
    return row && asResource(row);
  }

  getMembership(resourceId: string, userId: string, tx?: Tx): Promise<MemberRow | undefined> {
    return this.readMembership(resourceId, userId, tx, this.cache.usable(tx));
  }

  private async readResource(
    id: string,
    tx: Tx | undefined,
    usable: boolean,
  ): Promise<ResourceRow | undefined> {
    const cached = usable ? this.cache.resources.get(id) : undefined;
    if (cached) return cached;
    const generation = this.cache.generation;
    const resource = await readResourceRow(this.sql(tx), id);
    if (!resource) return undefined;
    if (usable && generation === this.cache.generation) this.cache.resources.set(id, resource);
    return resource;
  }

  private async readMembership(
    resourceId: string,
    userId: string,
    tx: Tx | undefined,
    usable: boolean,
  ): Promise<MemberRow | undefined> {
    const key = ReadCache.memberKey(resourceId, userId);
    const cached = usable ? this.cache.members.get(key) : undefined;
    if (cached !== undefined) return cached ?? undefined;
    const generation = this.cache.generation;
    const row = await this.sql(tx).get<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members WHERE resource_id = $1 AND user_id = $2`,
      [resourceId, userId],
    );
    if (usable && generation === this.cache.generation) this.cache.members.set(key, row ?? null);
    return row;
  }

  /** The roster, oldest membership first (from memory while nothing changed it: then synchronous). */
  listMembers(resourceId: string): RosterRow[] | Promise<RosterRow[]> {
    const usable = this.cache.usable(undefined);
    const cached = usable ? this.cache.rosters.get(resourceId) : undefined;
    return cached ?? this.listMembersStored(resourceId, usable);
  }

  private async listMembersStored(resourceId: string, usable: boolean): Promise<RosterRow[]> {
    const generation = this.cache.generation;
    const rows = await readRoster(this.storage, resourceId);
    if (usable && rows.length <= ROSTER_MAX && generation === this.cache.generation)
      this.cache.rosters.set(resourceId, rows);
    return rows;
  }

  /** Resources of an app where the user's membership is in `state`, newest first. */
  async listForUser(
    appId: string,
    userId: string,
    state: MemberState,
    type?: string,
  ): Promise<ResourceRow[]> {
    const rows = await this.storage.all<ResourceRow>(
      `SELECT ${resourceColumns("r.")} FROM members m JOIN resources r ON r.id = m.resource_id
       WHERE m.user_id = $1 AND m.state = $2 AND r.app_id = $3 ${type === undefined ? "" : "AND r.type = $4"}
       ORDER BY r.created_at DESC, r.id DESC`,
      type === undefined ? [userId, state, appId] : [userId, state, appId, type],
    );
    return rows.map(asResource);
  }

  async countPendingInvites(appId: string, inviterId: string, tx: Tx): Promise<number> {
    const row = await tx.get<{ n: number }>(
      "SELECT count(*) AS n FROM members WHERE app_id = $1 AND invited_by = $2 AND state = 'invited'",
      [appId, inviterId],
    );
    return row?.n ?? 0;
  }

  /** A keyset page of discoverable resources, newest first (browse-queries.ts); from memory while nothing changed. */
  browse(query: BrowseQuery): BrowseRow[] | Promise<BrowseRow[]> {
    const usable = this.cache.usable(undefined);
    const key = usable ? pageKey(query) : "";
    const cached = usable ? this.cache.pages.get(key) : undefined;
    return cached ?? this.browseStored(query, usable, key);
  }

  private async browseStored(query: BrowseQuery, usable: boolean, key: string): Promise<BrowseRow[]> {
    const generation = this.cache.generation;
    const rows = await browseResources(this.storage, query);
    if (usable && generation === this.cache.generation) this.cache.pages.set(key, rows);
    return rows;
  }

  // ---- writes: inside the caller's transaction, not waited for (`tx.write`); caches are evicted once it commits ----

  private evictResource(tx: Tx, id: string): void {
    this.cache.evictResource(tx, id);
  }

  private evictMember(tx: Tx, resourceId: string, userId: string): void {
    this.cache.evictMember(tx, resourceId, userId);
  }

  insertResource(tx: Tx, row: Omit<ResourceRow, "seq">): void {
    tx.write(INSERT_RESOURCE, insertResourceParams(row));
    this.evictResource(tx, row.id);
  }

  updateResource(
    tx: Tx,
    id: string,
    name: string,
    visibility: "members" | "public",
    discoverable: boolean,
  ): void {
    tx.write(
      "UPDATE resources SET name = $1, name_fold = $2, visibility = $3, discoverable = $4 WHERE id = $5",
      [name, name.toLowerCase(), visibility, discoverable, id],
    );
    this.evictResource(tx, id);
  }

  deleteResource(tx: Tx, id: string): void {
    tx.write("DELETE FROM resources WHERE id = $1", [id]);
    this.evictResource(tx, id);
  }

  /** The resource passes to a user (the ownership offer's accept). */
  setOwner(tx: Tx, id: string, userId: string): void {
    tx.write("UPDATE resources SET owner_id = $1, owner_kind = 'user' WHERE id = $2", [userId, id]);
    this.evictResource(tx, id);
  }

  addToCount(tx: Tx, resource: Pick<ResourceRow, "id" | "seq">, delta: number): void {
    tx.write("UPDATE resources SET member_count = member_count + $1 WHERE seq = $2", [delta, resource.seq]);
    this.evictResource(tx, resource.id);
  }

  insertMember(tx: Tx, row: MemberRow): void {
    tx.write(
      `INSERT INTO members (resource_id, user_id, app_id, role, state, invited_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.resourceId,
        row.userId,
        row.appId,
        row.role,
        row.state,
        row.invitedBy,
        row.createdAt,
        row.updatedAt,
      ],
    );
    this.evictMember(tx, row.resourceId, row.userId);
  }

  updateMember(
    tx: Tx,
    resourceId: string,
    userId: string,
    role: Role,
    state: MemberState,
    now: number,
  ): void {
    tx.write(
      "UPDATE members SET role = $1, state = $2, updated_at = $3 WHERE resource_id = $4 AND user_id = $5",
      [role, state, now, resourceId, userId],
    );
    this.evictMember(tx, resourceId, userId);
  }

  /**
   * Every membership row naming `from` as its inviter names `to` instead (an account deletion's
   * pseudonym); each row changed leaves the cache once `tx` commits.
   */
  async renameInviter(tx: Tx, from: string, to: string): Promise<void> {
    const changed = await tx.all<{ resourceId: string; userId: string }>(
      `UPDATE members SET invited_by = $2 WHERE invited_by = $1 RETURNING resource_id AS "resourceId", user_id AS "userId"`,
      [from, to],
    );
    for (const row of changed) this.evictMember(tx, row.resourceId, row.userId);
  }

  deleteMember(tx: Tx, resourceId: string, userId: string): void {
    tx.write("DELETE FROM members WHERE resource_id = $1 AND user_id = $2", [resourceId, userId]);
    this.evictMember(tx, resourceId, userId);
  }
}

/** A cached browse page's key: the whole query. */
function pageKey(query: BrowseQuery): string {
  return JSON.stringify(query);
}
