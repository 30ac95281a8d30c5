/**
 * The data seam. Rows and their data belong to the separate database API; this module
 * keeps what membership needs: which rows are linked into which resource by which member, and the
 * resource-owned copies that `retain` makes. Every function that changes something runs inside the
 * caller's write transaction, so a write and its auto-join, or a leave and its policy, commit together.
 *
 * onMemberRemove, per shared table:
 *   remove (default)  the member's links are dropped; their originals are untouched
 *   hide              links are soft-hidden and come back if the member rejoins
 *   retain            the linked rows are copied into resource ownership, independent from then on
 */
import type { Database } from "bun:sqlite";
import type { AppRegistry } from "../apps/registry.ts";
import { ApiError } from "../http/errors.ts";

export interface LinkRow {
  table: string;
  rowId: string;
  contributorId: string;
  hidden: boolean;
}

export interface RetainedRow {
  table: string;
  rowId: string;
  fromUserId: string;
  data: unknown;
}

export class DataSeam {
  constructor(
    private readonly sqlite: Database,
    private readonly apps: AppRegistry,
  ) {}

  /**
   * Links a row into a resource (a write: call inside the transaction that authorized it). Ownership
   * never moves: a row linked by another member is refused with 409 `already_linked` (the caller's
   * transaction, and any auto-join in it, rolls back), so that member's onMemberRemove policy still
   * applies to it. The same contributor linking again is idempotent and replaces the row's data.
   */
  link(
    resourceId: string,
    table: string,
    rowId: string,
    contributorId: string,
    data: unknown,
    now: number,
  ): void {
    const existing = this.sqlite
      .query(
        "SELECT contributor_id AS contributorId FROM resource_links WHERE resource_id = ? AND table_name = ? AND row_id = ?",
      )
      .get(resourceId, table, rowId) as { contributorId: string } | null;
    if (existing && existing.contributorId !== contributorId) {
      throw new ApiError(
        409,
        "already_linked",
        "That row is already linked into this resource by another member.",
      );
    }
    this.sqlite
      .query(
        `INSERT INTO resource_links (resource_id, table_name, row_id, contributor_id, hidden, data, created_at)
         VALUES (?, ?, ?, ?, 0, ?, ?)
         ON CONFLICT (resource_id, table_name, row_id) DO UPDATE SET data = excluded.data`,
      )
      .run(resourceId, table, rowId, contributorId, data === undefined ? null : JSON.stringify(data), now);
  }

  unlink(resourceId: string, table: string, rowId: string): boolean {
    return (
      this.sqlite
        .query("DELETE FROM resource_links WHERE resource_id = ? AND table_name = ? AND row_id = ?")
        .run(resourceId, table, rowId).changes > 0
    );
  }

  /** Applies each shared table's onMemberRemove policy to the rows a leaving or removed member contributed. */
  applyMemberRemoval(appId: string, resourceId: string, userId: string, now: number): void {
    const links = this.sqlite
      .query(
        "SELECT table_name AS tableName, row_id AS rowId, data FROM resource_links WHERE resource_id = ? AND contributor_id = ? AND hidden = 0",
      )
      .all(resourceId, userId) as Array<{ tableName: string; rowId: string; data: string | null }>;
    for (const link of links) {
      const policy = this.apps.memberRemovePolicy(appId, link.tableName);
      if (policy === "hide") {
        this.sqlite
          .query(
            "UPDATE resource_links SET hidden = 1 WHERE resource_id = ? AND table_name = ? AND row_id = ?",
          )
          .run(resourceId, link.tableName, link.rowId);
        continue;
      }
      if (policy === "retain") {
        this.sqlite
          .query(
            "INSERT INTO retained_rows (resource_id, table_name, row_id, from_user_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .run(resourceId, link.tableName, link.rowId, userId, link.data, now);
      }
      this.unlink(resourceId, link.tableName, link.rowId);
    }
  }

  /** A member who comes back (join, accept, auto-join) sees their hidden rows again. */
  restoreOnRejoin(resourceId: string, userId: string): void {
    this.sqlite
      .query(
        "UPDATE resource_links SET hidden = 0 WHERE resource_id = ? AND contributor_id = ? AND hidden = 1",
      )
      .run(resourceId, userId);
  }

  linkedRows(resourceId: string): { links: LinkRow[]; retained: RetainedRow[] } {
    const links = this.sqlite
      .query(
        `SELECT table_name AS "table", row_id AS rowId, contributor_id AS contributorId, hidden
         FROM resource_links WHERE resource_id = ? ORDER BY created_at, table_name, row_id`,
      )
      .all(resourceId) as Array<LinkRow & { hidden: number | boolean }>;
    const retained = this.sqlite
      .query(
        `SELECT table_name AS "table", row_id AS rowId, from_user_id AS fromUserId, data FROM retained_rows WHERE resource_id = ? ORDER BY id`,
      )
      .all(resourceId) as Array<RetainedRow & { data: string | null }>;
    return {
      links: links.map((l) => ({ ...l, hidden: Boolean(l.hidden) })),
      retained: retained.map((r) => ({ ...r, data: r.data === null ? null : JSON.parse(r.data) })),
    };
  }
}
