/**
 * The tables. Times are integer milliseconds since the epoch (UTC); money is integer micro-dollars.
 * Tokens are never stored here in clear: a session row keeps only SHA-256 hashes of its refresh
 * tokens (to recognise the one that was just rotated), the tokens themselves live in the sealed cookie.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Key/value settings the gateway owns, e.g. the generated cookie-sealing secret. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    clientId: text("client_id").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    /** When the access token in the cookie stops being usable (provider expiry minus 30 s leeway). */
    accessExpiresAt: integer("access_expires_at").notNull(),
    /** Absolute end of the session (30 days after sign-in); refresh never extends it. */
    expiresAt: integer("expires_at").notNull(),
    endedAt: integer("ended_at"),
    endReason: text("end_reason"),
    refreshHash: text("refresh_hash"),
    previousRefreshHash: text("previous_refresh_hash"),
    rotatedAt: integer("rotated_at"),
  },
  (t) => [index("sessions_user").on(t.userId), index("sessions_live").on(t.endedAt, t.createdAt)],
);

/** The credits ledger: one row per movement. The welcome grant is unique per user (partial index). */
export const credits = sqliteTable(
  "credits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull(),
    kind: text("kind").notNull(),
    amountMicros: integer("amount_micros").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("credits_user").on(t.userId),
    uniqueIndex("credits_one_welcome").on(t.userId).where(sql`kind = 'welcome'`),
  ],
);

/** The audit log and the admin stream's source: one row per state change, written in its transaction. */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    type: text("type").notNull(),
    actor: text("actor"),
    resourceId: text("resource_id"),
    userId: text("user_id"),
    data: text("data"),
    at: integer("at").notNull(),
  },
  (t) => [index("events_user").on(t.userId)],
);
