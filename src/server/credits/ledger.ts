/**
 * The credits ledger (integer micro-dollars, one row per movement). The welcome credit is granted at
 * most once per user: a partial unique index (`kind = 'welcome'`) makes the database refuse a second
 * grant, so two racing consents cannot both credit the user.
 *
 * A deleted account gets nothing, and nothing is recorded under its id: the deletion replaced the id by
 * a pseudonym in the ledger, so without `deleted` (held shared, as every change of a user holds it) a
 * later grant would find no welcome row and credit the same person twice.
 */
import type { DeletedUsers } from "../accounts/pseudonym.ts";
import type { Sql, Storage, TransactionOptions, Tx } from "../db/sql.ts";
import { appendEvent } from "../events/log.ts";

/** Inserts the welcome credit unless the user has one; call inside a write transaction. True when inserted. */
async function insertWelcome(tx: Tx, userId: string, amountMicros: number): Promise<boolean> {
  const inserted = await tx.run(
    `INSERT INTO credits (user_id, kind, amount_micros, created_at) VALUES ($1, 'welcome', $2, $3)
     ON CONFLICT DO NOTHING`,
    [userId, amountMicros, Date.now()],
  );
  return inserted > 0;
}

/**
 * Grants the welcome credit if the user never received one and is not deleted. Returns true when this
 * call granted it.
 */
export function grantWelcomeCredit(
  storage: Storage,
  deleted: DeletedUsers,
  userId: string,
  amountMicros: number,
): Promise<boolean> {
  return storage.transaction(async (tx) => {
    if (await deleted.guard(tx, [userId])) return false;
    if (!(await insertWelcome(tx, userId, amountMicros))) return false;
    appendEvent(tx, { type: "credit.welcome", userId, actor: userId, data: { amountMicros } });
    return true;
  });
}

/**
 * Records an accepted consent (one `consent.accepted` event) and grants the welcome credit in the same
 * transaction when the user has none; nothing for a deleted user. Returns whether the credit was granted.
 */
export function recordConsent(
  storage: Storage,
  deleted: DeletedUsers,
  userId: string,
  clientId: string,
  amountMicros: number,
  options?: TransactionOptions,
): Promise<boolean> {
  return storage.transaction(async (tx) => {
    if (await deleted.guard(tx, [userId])) return false;
    const welcomed = await insertWelcome(tx, userId, amountMicros);
    appendEvent(tx, {
      type: "consent.accepted",
      userId,
      actor: userId,
      data: welcomed ? { clientId, welcomeMicros: amountMicros } : { clientId },
    });
    return welcomed;
  }, options);
}

export async function hasWelcomeCredit(storage: Storage, userId: string): Promise<boolean> {
  const row = await storage.get("SELECT id FROM credits WHERE user_id = $1 AND kind = 'welcome'", [userId]);
  return row !== undefined;
}

export async function balanceMicros(storage: Storage, userId: string): Promise<number> {
  const row = await storage.get<{ total: number }>(
    "SELECT coalesce(sum(amount_micros), 0) AS total FROM credits WHERE user_id = $1",
    [userId],
  );
  return Number(row?.total ?? 0);
}

/** The user's ledger, oldest movement first (the export). */
export function ledgerOf(sql: Sql, userId: string) {
  return sql.all<{ kind: string; amountMicros: number; createdAt: number }>(
    `SELECT kind, amount_micros AS "amountMicros", created_at AS "createdAt" FROM credits
     WHERE user_id = $1 ORDER BY id`,
    [userId],
  );
}

/** How many ledger rows name the user. */
export async function countCreditsOf(sql: Sql, userId: string): Promise<number> {
  const row = await sql.get<{ n: number }>("SELECT count(*) AS n FROM credits WHERE user_id = $1", [userId]);
  return Number(row?.n ?? 0);
}

/** An account deletion: the user's ledger rows name the pseudonym instead (inside its transaction). */
export function renameLedgerUser(tx: Tx, userId: string, pseudonym: string): void {
  tx.write("UPDATE credits SET user_id = $2 WHERE user_id = $1", [userId, pseudonym]);
}

/** The user ids that have a ledger row, as a subquery (a statement counting known users unions it). */
export const CREDIT_USER_IDS = "SELECT user_id FROM credits";
