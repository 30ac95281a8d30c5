/**
 * The same tables as schema.ts, for PostgreSQL (drizzle-kit generates drizzle-pg/ from this file).
 * Column names, types and indexes match SQLite's one for one; tests/unit/schema-parity.test.ts fails
 * when the two descriptions drift. Differences, each for a reason:
 *
 * - times and money are `bigint` (returned to the program as numbers), flags are `boolean`;
 * - autoincrement keys are identity columns;
 * - `resources.name_fold` has a pg_trgm GIN index: browse's substring search (SQLite uses FTS5);
 * - `events.xid` is the writing transaction's id (`pg_current_xact_id()`): the admin stream reads rows
 *   ordered by (xid, id) and only below the oldest transaction still running, so a row that commits
 *   late is never skipped (see admin/event-cursor.ts).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const ms = (name: string) => bigint(name, { mode: "number" });
const xid8 = customType<{ data: string }>({ dataType: () => "xid8" });

export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    clientId: text("client_id").notNull(),
    createdAt: ms("created_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
    accessExpiresAt: ms("access_expires_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
    endedAt: ms("ended_at"),
    endReason: text("end_reason"),
    refreshHash: text("refresh_hash"),
    refreshSealed: text("refresh_sealed"),
    previousRefreshHash: text("previous_refresh_hash"),
    rotatedAt: ms("rotated_at"),
    cookieKeyId: text("cookie_key_id"),
    currentCookie: text("current_cookie"),
    refreshLeaseUntil: ms("refresh_lease_until"),
    currentSeenAt: ms("current_seen_at"),
    /** The provider's login session (the ID token's `sid`): what a back-channel logout by `sid` names. */
    providerSid: text("provider_sid"),
    /** A coarse description of the browser that signed in ("Chrome on Linux"), never the full user agent. */
    device: text("device"),
    /** The ID token of the sign-in, sealed with the cookie key: the `id_token_hint` of a sign-out at the provider. */
    idTokenSealed: text("id_token_sealed"),
  },
  (t) => [
    index("sessions_user").on(t.userId),
    index("sessions_live").on(t.endedAt, t.createdAt),
    index("sessions_provider_sid").on(t.providerSid),
  ],
);

export const credits = pgTable(
  "credits",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    userId: text("user_id").notNull(),
    kind: text("kind").notNull(),
    amountMicros: ms("amount_micros").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    index("credits_user").on(t.userId),
    uniqueIndex("credits_one_welcome").on(t.userId).where(sql`kind = 'welcome'`),
  ],
);

export const events = pgTable(
  "events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    type: text("type").notNull(),
    actor: text("actor"),
    resourceId: text("resource_id"),
    userId: text("user_id"),
    data: text("data"),
    at: ms("at").notNull(),
    xid: xid8("xid").notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [
    index("events_cursor").on(t.xid, t.id),
    // The user's export reads a user's events (as subject and as actor) a page at a time, in id order.
    index("events_user").on(t.userId, t.id),
    index("events_actor").on(t.actor, t.id),
  ],
);

export const deployments = pgTable(
  "deployments",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    appId: text("app_id").notNull(),
    config: text("config").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("deployments_app").on(t.appId, t.id)],
);

export const resources = pgTable(
  "resources",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    id: text("id").notNull().unique(),
    appId: text("app_id").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    nameFold: text("name_fold").notNull(),
    visibility: text("visibility", { enum: ["members", "public"] }).notNull(),
    discoverable: boolean("discoverable").notNull(),
    ownerId: text("owner_id").notNull(),
    ownerKind: text("owner_kind", { enum: ["user", "app"] })
      .notNull()
      .default("user"),
    slug: text("slug"),
    memberCount: bigint("member_count", { mode: "number" }).notNull().default(0),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    index("resources_browse").on(t.appId, t.discoverable, t.createdAt, t.id),
    index("resources_browse_type").on(t.appId, t.type, t.discoverable, t.createdAt, t.id),
    uniqueIndex("resources_slug").on(t.appId, t.type, t.slug).where(sql`slug IS NOT NULL`),
    index("resources_name_trgm").using("gin", t.nameFold.op("gin_trgm_ops")),
  ],
);

export const members = pgTable(
  "members",
  {
    resourceId: text("resource_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    appId: text("app_id").notNull(),
    role: text("role", { enum: ["reader", "writer", "admin", "owner"] }).notNull(),
    state: text("state", { enum: ["invited", "requested", "active"] }).notNull(),
    invitedBy: text("invited_by"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.resourceId, t.userId] }),
    index("members_user").on(t.userId, t.state),
    index("members_pending_invites").on(t.appId, t.invitedBy).where(sql`state = 'invited'`),
    index("members_pending").on(t.createdAt).where(sql`state <> 'active'`),
  ],
);

export const resourceLinks = pgTable(
  "resource_links",
  {
    resourceId: text("resource_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    tableName: text("table_name").notNull(),
    rowId: text("row_id").notNull(),
    /** Who linked the row; null once that user's account is deleted under `onOwnerDelete: tombstone`. */
    contributorId: text("contributor_id"),
    hidden: boolean("hidden").notNull().default(false),
    data: text("data"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.resourceId, t.tableName, t.rowId] }),
    index("resource_links_contributor").on(t.resourceId, t.contributorId),
    // A user's links in every resource: the export, and the deletion's onOwnerDelete policies.
    index("resource_links_by_contributor").on(t.contributorId),
  ],
);

export const ownershipOffers = pgTable(
  "ownership_offers",
  {
    resourceId: text("resource_id")
      .primaryKey()
      .references(() => resources.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    offeredBy: text("offered_by").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("ownership_offers_user").on(t.userId)],
);

export const retainedRows = pgTable(
  "retained_rows",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    resourceId: text("resource_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    tableName: text("table_name").notNull(),
    rowId: text("row_id").notNull(),
    fromUserId: text("from_user_id").notNull(),
    data: text("data"),
    createdAt: ms("created_at").notNull(),
  },
  // By user too: a user's export and account deletion read the copies made from their rows.
  (t) => [
    index("retained_rows_resource").on(t.resourceId),
    index("retained_rows_from_user").on(t.fromUserId),
  ],
);

export const consentBindings = pgTable(
  "consent_bindings",
  {
    challengeHash: text("challenge_hash").primaryKey(),
    nonceHash: text("nonce_hash").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [index("consent_bindings_expiry").on(t.expiresAt)],
);

export const budgetWindows = pgTable(
  "budget_windows",
  {
    appId: text("app_id").notNull(),
    windowStart: ms("window_start").notNull(),
    reserved: bigint("reserved", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.windowStart] })],
);

/** Each user's share of an app's budget (see schema.ts). */
export const budgetShares = pgTable(
  "budget_shares",
  {
    appId: text("app_id").notNull(),
    windowStart: ms("window_start").notNull(),
    userId: text("user_id").notNull(),
    reserved: bigint("reserved", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.windowStart, t.userId] })],
);

/** Deleted accounts, by pseudonym (see schema.ts). */
export const deletedUsers = pgTable("deleted_users", {
  pseudonym: text("pseudonym").primaryKey(),
  deletedAt: ms("deleted_at").notNull(),
  report: text("report").notNull(),
});

/** Running gateway processes and the key each seals with (see schema.ts). */
export const gatewayProcesses = pgTable("gateway_processes", {
  id: text("id").primaryKey(),
  host: text("host").notNull(),
  pid: bigint("pid", { mode: "number" }).notNull(),
  keyId: text("key_id").notNull(),
  startedAt: ms("started_at").notNull(),
  seenAt: ms("seen_at").notNull(),
});

/**
 * The `jti` of every back-channel logout token accepted, kept until the token could no longer be
 * accepted anyway (its `exp`, or its `iat` past the accepted age): a replayed token is refused on every
 * replica. Rows past `expires_at` are deleted by the next accepted token.
 */
export const logoutTokens = pgTable("logout_tokens", {
  jti: text("jti").primaryKey(),
  expiresAt: ms("expires_at").notNull(),
});

/**
 * A subject's logouts (a back-channel logout that ended sessions, an operator's revoke-all, an account
 * deletion), each written once the provider has answered the revocation: every process drops that
 * subject's cached bearer checks when it reads a new row. Rows older than twice the bearer cache's
 * lifetime drop nothing and are deleted by the next write.
 */
export const subjectLogouts = pgTable("subject_logouts", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull(),
  at: ms("at").notNull(),
});
