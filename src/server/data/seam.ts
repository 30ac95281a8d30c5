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
import type { AppRegistry } from "../apps/registry.ts";
import type { Storage, Tx } from "../db/sql.ts";
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
    const existing = await tx.get<{ contributorId: string }>(
      `SELECT contributor_id AS "contributorId" FROM resource_links
       WHERE resource_id = $1 AND table_name = $2 AND row_id = $3`,
      [resourceId, table, rowId],
    );
    if (existing && existing.contributorId !== contributorId) {
      throw new ApiError(
        409,
        "already_linked",
        "That row is already linked into this resource by another member.",
      );
    }
    await tx.run(
      `INSERT INTO resource_links (resource_id, table_name, row_id, contributor_id, hidden, data, created_at)
       VALUES ($1, $2, $3, $4, false, $5, $6)
       ON CONFLICT (resource_id, table_name, row_id) DO UPDATE SET data = excluded.data`,
      [resourceId, table, rowId, contributorId, data === undefined ? null : JSON.stringify(data), now],
    );
  }

  async unlink(tx: Tx, resourceId: string, table: string, rowId: string): Promise<boolean> {
    const changed = await tx.run(
      "DELETE FROM resource_links WHERE resource_id = $1 AND table_name = $2 AND row_id = $3",
      [resourceId, table, rowId],
    );
    return changed > 0;
  }

  /** Applies each shared table's onMemberRemove policy to the rows a leaving or removed member contributed. */
  async applyMemberRemoval(
    tx: Tx,
    appId: string,
    resourceId: string,
    userId: string,
    now: number,
  ): Promise<void> {
    const links = await tx.all<{ tableName: string; rowId: string; data: string | null }>(
      `SELECT table_name AS "tableName", row_id AS "rowId", data FROM resource_links
       WHERE resource_id = $1 AND contributor_id = $2 AND hidden = false`,
      [resourceId, userId],
    );
    for (const link of links) {
      const policy = this.apps.memberRemovePolicy(appId, link.tableName);
      if (policy === "hide") {
        await tx.run(
          "UPDATE resource_links SET hidden = true WHERE resource_id = $1 AND table_name = $2 AND row_id = $3",
          [resourceId, link.tableName, link.rowId],
        );
        continue;
      }
      if (policy === "retain") {
        await tx.run(
          `INSERT INTO retained_rows (resource_id, table_name, row_id, from_user_id, data, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [resourceId, link.tableName, link.rowId, userId, link.data, now],
        );
      }
      await this.unlink(tx, resourceId, link.tableName, link.rowId);
    }
  }

  /** A member who comes back (join, accept, auto-join) sees their hidden rows again. */
  restoreOnRejoin(tx: Tx, resourceId: string, userId: string): void {
    tx.write(
      "UPDATE resource_links SET hidden = false WHERE resource_id = $1 AND contributor_id = $2 AND hidden = true",
      [resourceId, userId],
    );
  }

  async linkedRows(resourceId: string): Promise<{ links: LinkRow[]; retained: RetainedRow[] }> {
    const links = await this.storage.all<LinkRow & { hidden: number | boolean }>(
      `SELECT table_name AS "table", row_id AS "rowId", contributor_id AS "contributorId", hidden
       FROM resource_links WHERE resource_id = $1 ORDER BY created_at, table_name, row_id`,
      [resourceId],
    );
    const retained = await this.storage.all<RetainedRow & { data: string | null }>(
      `SELECT table_name AS "table", row_id AS "rowId", from_user_id AS "fromUserId", data FROM retained_rows
       WHERE resource_id = $1 ORDER BY id`,
      [resourceId],
    );
    return {
      links: links.map((l) => ({ ...l, hidden: Boolean(l.hidden) })),
      retained: retained.map((r) => ({ ...r, data: r.data === null ? null : JSON.parse(r.data) })),
    };
  }
}
