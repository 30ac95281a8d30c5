/**
 * The tables. Times are integer milliseconds since the epoch (UTC); money is integer micro-dollars.
 * Tokens are never stored here in clear: a session row keeps SHA-256 hashes of its refresh tokens (to
 * recognise the one that was just rotated) and the current one sealed with a key that is not in this file.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Key/value settings the gateway owns. Never a secret: the sealing keys live outside the database
 * (SESSION_SECRET or the key file); a `session_secret` row left by an older version is moved out at start-up.
 */
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
    /** The current refresh token sealed with the cookie key (never in clear): lets an operator's revoke reach the provider. */
    refreshSealed: text("refresh_sealed"),
    previousRefreshHash: text("previous_refresh_hash"),
    rotatedAt: integer("rotated_at"),
    /** Id of the key that sealed the browser's current cookie: tells when a previous key is no longer needed. */
    cookieKeyId: text("cookie_key_id"),
    /** The current cookie as the last rotation sealed it: what a tab presenting an older token gets within the grace. */
    currentCookie: text("current_cookie"),
    /** While a process rotates this session at the provider (ms since the epoch): one rotation at a time. */
    refreshLeaseUntil: integer("refresh_lease_until"),
    /** When a request first presented the current refresh token after its rotation (null: never yet);
     * until then, and for at most 10 minutes, the previous token is answered with the current cookie. */
    currentSeenAt: integer("current_seen_at"),
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
  // The user's export reads a user's events (as subject and as actor) a page at a time, in id order.
  (t) => [index("events_user").on(t.userId, t.id), index("events_actor").on(t.actor, t.id)],
);

/** One row per deploy of an app's configuration; the newest row per app is the active one. */
export const deployments = sqliteTable(
  "deployments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    appId: text("app_id").notNull(),
    config: text("config").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("deployments_app").on(t.appId, t.id)],
);

/**
 * Resources: the permission, billing and sharing boundary. `owner_id` is a user id (`owner_kind` user),
 * or `app:<id>` for the app's `_app` resource and its statics (`owner_kind` app, which no user ever owns,
 * whatever their subject). `member_count` counts active members and is kept by the
 * same transaction that changes membership (a COUNT per read was two thirds of a naive read's cost).
 */
export const resources = sqliteTable(
  "resources",
  {
    /** Stable integer key (a rowid alias, so VACUUM never renumbers it): the FTS index's rowid. */
    seq: integer("seq").primaryKey(),
    id: text("id").notNull().unique(),
    appId: text("app_id").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    /** The name lower-cased by JavaScript: browse's LIKE walk compares it, since SQLite's LIKE folds ASCII only. */
    nameFold: text("name_fold").notNull(),
    visibility: text("visibility", { enum: ["members", "public"] }).notNull(),
    discoverable: integer("discoverable", { mode: "boolean" }).notNull(),
    ownerId: text("owner_id").notNull(),
    /** Who `owner_id` names: a user (who created it) or an app (`_app` and statics, by deploy). */
    ownerKind: text("owner_kind", { enum: ["user", "app"] })
      .notNull()
      .default("user"),
    slug: text("slug"),
    memberCount: integer("member_count").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("resources_browse").on(t.appId, t.discoverable, t.createdAt, t.id),
    index("resources_browse_type").on(t.appId, t.type, t.discoverable, t.createdAt, t.id),
    uniqueIndex("resources_slug").on(t.appId, t.type, t.slug).where(sql`slug IS NOT NULL`),
  ],
);

/** Membership rows: one per (resource, user), in state invited, requested or active. */
export const members = sqliteTable(
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
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.resourceId, t.userId] }),
    index("members_user").on(t.userId, t.state),
    // The 50-pending-invites cap counts this inviter's open invites in an app: only those rows are indexed.
    index("members_pending_invites").on(t.appId, t.invitedBy).where(sql`state = 'invited'`),
    // The operators' pending list (invites and requests, newest first) reads only pending rows.
    index("members_pending").on(t.createdAt).where(sql`state <> 'active'`),
  ],
);

/** The data seam: which rows are linked into which resource by which member. */
export const resourceLinks = sqliteTable(
  "resource_links",
  {
    resourceId: text("resource_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    tableName: text("table_name").notNull(),
    rowId: text("row_id").notNull(),
    /** Who linked the row; null once that user's account is deleted under `onOwnerDelete: tombstone`. */
    contributorId: text("contributor_id"),
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
    data: text("data"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.resourceId, t.tableName, t.rowId] }),
    index("resource_links_contributor").on(t.resourceId, t.contributorId),
    // A user's links in every resource: the export, and the deletion's onOwnerDelete policies.
    index("resource_links_by_contributor").on(t.contributorId),
  ],
);

/**
 * Pending ownership offers: at most one per resource (a new offer replaces it). An offer lives while
 * its target is an active member: leaving or being removed ends it in the same transaction, and it
 * goes with its resource.
 */
export const ownershipOffers = sqliteTable(
  "ownership_offers",
  {
    resourceId: text("resource_id")
      .primaryKey()
      .references(() => resources.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    offeredBy: text("offered_by").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("ownership_offers_user").on(t.userId)],
);

/** `retain` copies: rows that became the resource's own when their contributor left or was removed. */
export const retainedRows = sqliteTable(
  "retained_rows",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    resourceId: text("resource_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    tableName: text("table_name").notNull(),
    rowId: text("row_id").notNull(),
    fromUserId: text("from_user_id").notNull(),
    data: text("data"),
    createdAt: integer("created_at").notNull(),
  },
  // By user too: a user's export and account deletion read the copies made from their rows.
  (t) => [
    index("retained_rows_resource").on(t.resourceId),
    index("retained_rows_from_user").on(t.fromUserId),
  ],
);

/**
 * Which browser may decide a consent request: the first load of a challenge binds it to a nonce kept
 * in that browser's cookie. Only SHA-256 hashes are stored (a challenge in clear would be usable by
 * anyone reading the database); rows live 10 minutes and are purged on write.
 */
export const consentBindings = sqliteTable(
  "consent_bindings",
  {
    challengeHash: text("challenge_hash").primaryKey(),
    nonceHash: text("nonce_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("consent_bindings_expiry").on(t.expiresAt)],
);

/**
 * Request budgets shared by every process: how many calls of an app's one-minute window the
 * processes have reserved between them (each reserves a few at a time, never past the budget).
 */
export const budgetWindows = sqliteTable(
  "budget_windows",
  {
    appId: text("app_id").notNull(),
    windowStart: integer("window_start").notNull(),
    reserved: integer("reserved").notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.windowStart] })],
);

/**
 * Each user's share of an app's budget, shared by every process like `budget_windows`: how many of
 * the user's calls in the app's one-minute window the processes have reserved between them (never
 * past the share). Rows of past windows are deleted as new ones come.
 */
export const budgetShares = sqliteTable(
  "budget_shares",
  {
    appId: text("app_id").notNull(),
    windowStart: integer("window_start").notNull(),
    userId: text("user_id").notNull(),
    reserved: integer("reserved").notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.windowStart, t.userId] })],
);

/**
 * Deleted accounts, by pseudonym (HMAC of the user id under the sealing key: the id itself is gone).
 * A deletion is final: membership changes naming a deleted user are refused, and a second delete
 * answers the first one's report.
 */
export const deletedUsers = sqliteTable("deleted_users", {
  pseudonym: text("pseudonym").primaryKey(),
  deletedAt: integer("deleted_at").notNull(),
  report: text("report").notNull(),
});

/**
 * The gateway processes running on this database, each with the id of the key it seals with, written
 * at start-up and every 30 s, deleted at a clean stop: `gateway keys` shows what each process really
 * seals with (a rotation takes effect only at a restart) and prune refuses a key one still uses. A row
 * not refreshed for 90 s is a process that died: it is ignored, and deleted by the next heartbeat.
 */
export const gatewayProcesses = sqliteTable("gateway_processes", {
  id: text("id").primaryKey(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  keyId: text("key_id").notNull(),
  startedAt: integer("started_at").notNull(),
  seenAt: integer("seen_at").notNull(),
});

/**
 * The `jti` of every back-channel logout token accepted, kept until the token could no longer be
 * accepted anyway (its `exp`, or its `iat` past the accepted age): a replayed token is refused on every
 * replica. Rows past `expires_at` are deleted by the next accepted token.
 */
export const logoutTokens = sqliteTable("logout_tokens", {
  jti: text("jti").primaryKey(),
  expiresAt: integer("expires_at").notNull(),
});

/**
 * A subject's logouts (a back-channel logout that ended sessions, an operator's revoke-all, an account
 * deletion), each written once the provider has answered the revocation: every process drops that
 * subject's cached bearer checks when it reads a new row. Rows older than twice the bearer cache's
 * lifetime drop nothing and are deleted by the next write.
 */
export const subjectLogouts = sqliteTable("subject_logouts", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull(),
  at: integer("at").notNull(),
});
