/**
 * The credits ledger (integer micro-dollars, one row per movement). The welcome credit is granted at
 * most once per user: a partial unique index (`kind = 'welcome'`) makes the database refuse a second
 * grant, so two racing consents cannot both credit the user.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Storage, Tx } from "../db/open.ts";
import { credits } from "../db/schema.ts";
import { appendEvent } from "../events/log.ts";

/** Inserts the welcome credit unless the user has one; call inside a write transaction. True when inserted. */
function insertWelcome(tx: Tx, userId: string, amountMicros: number): boolean {
  const inserted = tx
    .insert(credits)
    .values({ userId, kind: "welcome", amountMicros, createdAt: Date.now() })
    .onConflictDoNothing()
    .returning({ id: credits.id })
    .all();
  return inserted.length > 0;
}

/** Grants the welcome credit if the user never received one. Returns true when this call granted it. */
export function grantWelcomeCredit(storage: Storage, userId: string, amountMicros: number): boolean {
  return storage.writeTx((tx) => {
    if (!insertWelcome(tx, userId, amountMicros)) return false;
    appendEvent(tx, { type: "credit.welcome", userId, actor: userId, data: { amountMicros } });
    return true;
  });
}

/**
 * An accepted consent as one change: the welcome credit (if the user never received one) and one
 * `consent.accepted` event that says whether it was granted, in one transaction, so a crash can never
 * leave a credit without its audit row. Returns true when this call granted the credit.
 */
export function recordConsent(
  storage: Storage,
  userId: string,
  clientId: string,
  amountMicros: number,
): boolean {
  return storage.writeTx((tx) => {
    const welcomed = insertWelcome(tx, userId, amountMicros);
    appendEvent(tx, {
      type: "consent.accepted",
      userId,
      actor: userId,
      data: welcomed ? { clientId, welcomeMicros: amountMicros } : { clientId },
    });
    return welcomed;
  });
}

export function hasWelcomeCredit(storage: Storage, userId: string): boolean {
  const row = storage.db
    .select({ id: credits.id })
    .from(credits)
    .where(and(eq(credits.userId, userId), eq(credits.kind, "welcome")))
    .get();
  return row !== undefined;
}

export function balanceMicros(storage: Storage, userId: string): number {
  const row = storage.db
    .select({ total: sql<number>`coalesce(sum(${credits.amountMicros}), 0)` })
    .from(credits)
    .where(eq(credits.userId, userId))
    .get();
  return row?.total ?? 0;
}
