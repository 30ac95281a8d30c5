/**
 * Storage for ownership offers: one pending offer per resource (a new one replaces it). Never cached:
 * an offer is read to decide, inside the deciding transaction.
 */
import type { ownershipOffers } from "../db/schema.ts";
import type { Storage, Tx } from "../db/sql.ts";

export type OfferRow = typeof ownershipOffers.$inferSelect;

const COLUMNS = `resource_id AS "resourceId", user_id AS "userId", offered_by AS "offeredBy", created_at AS "createdAt"`;

export class OfferStore {
  constructor(private readonly storage: Storage) {}

  /** The resource's pending offer; through the transaction when there is one. */
  get(resourceId: string, tx?: Tx): Promise<OfferRow | undefined> {
    return (tx ?? this.storage).get<OfferRow>(
      `SELECT ${COLUMNS} FROM ownership_offers WHERE resource_id = $1`,
      [resourceId],
    );
  }

  /** Pending offers made to a user, oldest first. */
  listTo(userId: string): Promise<OfferRow[]> {
    return this.storage.all<OfferRow>(
      `SELECT ${COLUMNS} FROM ownership_offers WHERE user_id = $1 ORDER BY created_at, resource_id`,
      [userId],
    );
  }

  /** Records the resource's one pending offer, replacing the previous one. */
  put(tx: Tx, row: OfferRow): void {
    tx.write(
      `INSERT INTO ownership_offers (resource_id, user_id, offered_by, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (resource_id) DO UPDATE SET user_id = excluded.user_id, offered_by = excluded.offered_by,
         created_at = excluded.created_at`,
      [row.resourceId, row.userId, row.offeredBy, row.createdAt],
    );
  }

  delete(tx: Tx, resourceId: string): void {
    tx.write("DELETE FROM ownership_offers WHERE resource_id = $1", [resourceId]);
  }

  /** Ends the offer made to `userId`, if the resource's pending offer is to them; true when there was one. */
  async deleteTo(tx: Tx, resourceId: string, userId: string): Promise<boolean> {
    return (
      (await tx.run("DELETE FROM ownership_offers WHERE resource_id = $1 AND user_id = $2", [
        resourceId,
        userId,
      ])) > 0
    );
  }

  /** Offers made to or by the user (an account deletion, inside its transaction). */
  listInvolving(tx: Tx, userId: string): Promise<Array<{ resourceId: string; userId: string }>> {
    return tx.all(
      `SELECT resource_id AS "resourceId", user_id AS "userId" FROM ownership_offers
       WHERE user_id = $1 OR offered_by = $1`,
      [userId],
    );
  }

  /** Ends every offer made to or by the user. */
  deleteInvolving(tx: Tx, userId: string): void {
    tx.write("DELETE FROM ownership_offers WHERE user_id = $1 OR offered_by = $1", [userId]);
  }
}
