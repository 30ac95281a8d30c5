/**
 * What the resource reads keep in memory, and when it is thrown away. Only on an engine with a cheap
 * change signal (SQLite): a commit by another process empties everything before the next answer, and
 * this process's writes evict what they change once their transaction commits. Reads in a transaction
 * never use it, so a decision always reads the database and a rolled-back write is never cached.
 *
 * - resource rows by id, and single memberships by (resource, user): null records "not a member";
 * - rosters by resource (the members list, up to ROSTER_MAX members): gone with any change to one of
 *   the resource's memberships or to the resource;
 * - browse pages by their whole query: each row carries a member count, so any change to any resource
 *   or membership empties them all (a page is cheap to read again; a burst of reads between writes is
 *   what this serves).
 *
 * Every map is capped (the Lru), so memory stays bounded whatever the traffic. A read that was in
 * flight when anything was evicted is not cached (`generation`): it may predate the change.
 */
import type { Storage, Tx } from "../db/sql.ts";
import { Lru } from "../lib/lru.ts";
import type { BrowseRow, MemberRow, ResourceRow, RosterRow } from "./rows.ts";

/** Larger rosters are read from the database every time (their memory would crowd out the rest). */
export const ROSTER_MAX = 200;

export class ReadCache {
  readonly resources = new Lru<string, ResourceRow>(50_000);
  readonly members = new Lru<string, MemberRow | null>(200_000);
  readonly rosters = new Lru<string, RosterRow[]>(1_000);
  readonly pages = new Lru<string, BrowseRow[]>(1_000);
  /** The externalVersion the maps were filled at. */
  private filledAt: number | undefined = -1;
  /** Moves with every eviction: a read begun before it must not be cached. */
  generation = 0;

  constructor(private readonly storage: Storage) {}

  /**
   * Whether the cache may answer (a read outside any transaction, on an engine with a change signal),
   * emptying it first when another process has committed since it was filled.
   */
  usable(tx: Tx | undefined): boolean {
    if (tx) return false;
    const version = this.storage.externalVersion();
    if (version === undefined) return false;
    if (version !== this.filledAt) {
      this.filledAt = version;
      this.generation++;
      for (const map of [this.resources, this.members, this.rosters, this.pages]) map.clear();
    }
    return true;
  }

  static memberKey(resourceId: string, userId: string): string {
    return `${resourceId}\n${userId}`;
  }

  /** Once `tx` commits: the resource changed (its row, its count, or it is gone). */
  evictResource(tx: Tx, id: string): void {
    tx.afterCommit(() => {
      this.generation++;
      this.resources.delete(id);
      this.rosters.delete(id);
      this.pages.clear();
    });
  }

  /** Once `tx` commits: one membership changed. */
  evictMember(tx: Tx, resourceId: string, userId: string): void {
    tx.afterCommit(() => {
      this.generation++;
      this.members.delete(ReadCache.memberKey(resourceId, userId));
      this.rosters.delete(resourceId);
      this.pages.clear();
    });
  }
}
