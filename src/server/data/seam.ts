/**
 * The data seam. Rows and their data belong to the separate database API; this module
 * decides what membership needs (its rows are stored by resources/link-rows.ts): which rows are linked into which resource by which member, and the
 * resource-owned copies that `retain` makes. Every function that changes something runs inside the
 * caller's write transaction, so a write and its auto-join, or a leave and its policy, commit together.
 *
 * onMemberRemove, per shared table:
 *   remove (default)  the member's links are dropped; their originals are untouched
 *   hide              links are soft-hidden and come back if the member rejoins
 *   retain            the linked rows are copied into resource ownership, independent from then on
 *
 * onOwnerDelete, per shared table, when the contributor's account is deleted (every resource at once):
 *   remove (default)  the links are dropped and the row ids listed for the data service to delete
 *   tombstone         the rows stay linked, their contributor becomes the deleted-user profile (null id)
 *   retain            the rows are copied into resource ownership, the originals listed for deletion
 * A hidden link (its contributor had left under `hide`) and a link into a resource the deletion removes
 * are dropped and listed for deletion whatever the policy: nothing could bring them back.
 */
import type { AppRegistry } from "../apps/registry.ts";
import type { Storage, Tx } from "../db/sql.ts";
import { Refusal } from "../domain/refusal.ts";
import {
  deleteLink,
  dropLink,
  hideLink,
  insertRetained,
  linkContributor,
  linkedRowsOf,
  linksOfContributor,
  renameRetainedSource,
  tombstoneLink,
  unhideLinksOf,
  upsertLink,
  visibleLinksOf,
} from "../resources/link-rows.ts";

export interface LinkRow {
  table: string;
  rowId: string;
  /** Null when the contributor's account was deleted under `onOwnerDelete: tombstone`. */
  contributorId: string | null;
  hidden: boolean;
  /** Only for a tombstoned row: the reserved deleted-user profile. */
  contributor?: typeof DELETED_USER;
}

/** The reserved profile a tombstoned row's authorship resolves to. */
export const DELETED_USER = { id: null, displayName: "Deleted user" } as const;

export type OwnerDeletePolicy = "remove" | "tombstone" | "retain";

/** Per shared table, what a deletion did to the deleted user's rows (row ids, each once, sorted). */
export interface TableOutcome {
  policy: OwnerDeletePolicy;
  /** Rows the data service should delete: removed ones, and the originals of retained ones. */
  delete: string[];
  /** Rows kept in place, authored by the deleted-user profile. */
  tombstoned: string[];
  /** Rows copied into resource ownership (their originals are in `delete`). */
  retained: string[];
}

export interface RetainedRow {
  table: string;
  rowId: string;
  fromUserId: string;
  data: unknown;
}

export class DataSeam {
  constructor(
    private readonly storage: Storage,
    private readonly apps: AppRegistry,
  ) {}

  /**
   * Links a row into a resource (a write: call inside the transaction that authorized it). Ownership
   * never moves: a row linked by another member is refused with 409 `already_linked` (the caller's
   * transaction, and any auto-join in it, rolls back), so that member's onMemberRemove policy still
   * applies to it. The same contributor linking again is idempotent and replaces the row's data.
   */
  async link(
    tx: Tx,
    resourceId: string,
    table: string,
    rowId: string,
    contributorId: string,
    data: unknown,
    now: number,
  ): Promise<void> {
    const existing = await linkContributor(tx, resourceId, table, rowId);
    if (existing !== undefined && existing !== contributorId) {
      throw new Refusal("already_linked");
    }
    await upsertLink(
      tx,
      { resourceId, table, rowId, contributorId, data: data === undefined ? null : JSON.stringify(data) },
      now,
    );
  }

  async unlink(tx: Tx, resourceId: string, table: string, rowId: string): Promise<boolean> {
    return deleteLink(tx, resourceId, table, rowId);
  }

  /** Applies each shared table's onMemberRemove policy to the rows a leaving or removed member contributed. */
  async applyMemberRemoval(
    tx: Tx,
    appId: string,
    resourceId: string,
    userId: string,
    now: number,
  ): Promise<void> {
    const links = await visibleLinksOf(tx, resourceId, userId);
    for (const link of links) {
      const policy = this.apps.memberRemovePolicy(appId, link.tableName);
      if (policy === "hide") {
        await hideLink(tx, resourceId, link.tableName, link.rowId);
        continue;
      }
      if (policy === "retain") {
        const copy = {
          resourceId,
          table: link.tableName,
          rowId: link.rowId,
          fromUserId: userId,
          data: link.data,
        };
        insertRetained(tx, copy, now);
      }
      await this.unlink(tx, resourceId, link.tableName, link.rowId);
    }
  }

  /** A member who comes back (join, accept, auto-join) sees their hidden rows again. */
  restoreOnRejoin(tx: Tx, resourceId: string, userId: string): void {
    unhideLinksOf(tx, resourceId, userId);
  }

  /**
   * Applies each shared table's onOwnerDelete policy to every row `userId` linked, in every resource
   * (`gone`: resources this deletion removes). Retained copies are credited to the pseudonym, and so are
   * the copies kept earlier from this user. Reads the links by contributor and the copies by the user
   * they came from, through their indexes by user (`resource_links_by_contributor`,
   * `retained_rows_from_user`).
   */
  async applyOwnerDeletion(
    tx: Tx,
    userId: string,
    pseudonym: string,
    gone: ReadonlySet<string>,
    now: number,
  ): Promise<Record<string, TableOutcome>> {
    const links = await linksOfContributor(tx, userId);
    type Sets = { policy: OwnerDeletePolicy } & Record<"delete" | "tombstoned" | "retained", Set<string>>;
    const outcomes: Record<string, Sets> = {};
    for (const link of links) {
      const policy = this.apps.ownerDeletePolicy(link.appId, link.tableName);
      outcomes[link.tableName] ??= { policy, delete: new Set(), tombstoned: new Set(), retained: new Set() };
      const outcome = outcomes[link.tableName]!;
      const final = Boolean(link.hidden) || gone.has(link.resourceId);
      if (!final && policy === "tombstone") {
        tombstoneLink(tx, link.resourceId, link.tableName, link.rowId);
        outcome.tombstoned.add(link.rowId);
        continue;
      }
      if (!final && policy === "retain") {
        const { resourceId, tableName: table, rowId, data } = link;
        insertRetained(tx, { resourceId, table, rowId, fromUserId: pseudonym, data }, now);
        outcome.retained.add(link.rowId);
      }
      outcome.delete.add(link.rowId);
      dropLink(tx, link.resourceId, link.tableName, link.rowId);
    }
    renameRetainedSource(tx, userId, pseudonym);
    const sorted = (set: Set<string>) => [...set].sort();
    return Object.fromEntries(
      Object.entries(outcomes).map(([table, o]) => [
        table,
        {
          policy: o.policy,
          delete: sorted(o.delete),
          tombstoned: sorted(o.tombstoned),
          retained: sorted(o.retained),
        },
      ]),
    );
  }

  async linkedRows(resourceId: string): Promise<{ links: LinkRow[]; retained: RetainedRow[] }> {
    const { links, retained } = await linkedRowsOf(this.storage, resourceId);
    return {
      links: links.map((l) => ({
        ...l,
        hidden: Boolean(l.hidden),
        ...(l.contributorId === null ? { contributor: DELETED_USER } : {}),
      })),
      retained: retained.map((r) => ({ ...r, data: r.data === null ? null : JSON.parse(r.data) })),
    };
  }
}
