/**
 * The shapes the API answers with, and the client options. Plain TypeScript with no DOM type, so a
 * server project whose `lib` has no DOM type-checks against them. The repository checks at compile time
 * that the views equal the server's own models (tests/unit/sdk-types.ts), so the two cannot drift.
 */
import type { SessionEndReason } from "./codes.gen.ts";
import type { IncomingRequest } from "./cookie-jar.ts";

export type Role = "reader" | "writer" | "admin" | "owner";
export type MemberState = "invited" | "requested" | "active";
/** What a type's resources are when created: members-only, public but unlisted, or listed by browse. */
export type Visibility = "members" | "unlisted" | "discoverable";

export interface ResourceView {
  id: string;
  type: string;
  name: string;
  /** "public" covers unlisted (discoverable false) and discoverable (true). */
  visibility: "members" | "public";
  discoverable: boolean;
  memberCount?: number;
}

/** A members-only resource in the caller's `state: "requested"` list: nothing beyond its id and type. */
export interface RequestedView {
  id: string;
  type: string;
}

export interface BrowseItem {
  id: string;
  type: string;
  name: string;
  memberCount: number;
  /** ISO 8601. */
  createdAt: string;
}

export interface MemberEntry {
  userId: string;
  role: Role;
  state: MemberState;
}

export interface Session {
  authenticated: boolean;
  userId?: string;
  /** When not signed in (browser and request clients): why, e.g. "revoked", "expired" or "no_session". */
  reason?: SessionEndReason;
}

export interface BrowseOptions {
  type?: string;
  query?: string;
  limit?: number;
  cursor?: string | null;
}

/** One page of `GET /v1/resources/browse`, with the HTTP answer's own field names. */
export interface BrowsePage {
  resources: BrowseItem[];
  nextCursor: string | null;
}

/** The part of a `fetch` Response the SDK reads. */
export interface FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null; getSetCookie?(): string[] };
  /** Cancelled when the SDK drops an answer unread (before a retry). */
  readonly body?: { cancel(): Promise<void> } | null;
  text(): Promise<string>;
}

/** The part of a `fetch` request the SDK sends. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  credentials?: "include" | "omit";
  /** An AbortSignal (typed loosely: the SDK declares no DOM type, and any fetch takes its own). */
  signal?: any;
}

/** A `fetch` to use instead of the global one (tests, custom agents, a cookie forwarder). */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

interface CommonOptions {
  /** The gateway's public URL, e.g. https://gw.example.com. */
  gatewayUrl: string;
  /** Each call's bound in milliseconds (default 10,000); past it the call fails with code `timeout`. */
  timeoutMs?: number;
  fetch?: FetchLike;
}

/** Browser apps: the gateway URL and the OAuth client id, nothing else (tokens stay in httpOnly cookies). */
export interface BrowserClientOptions extends CommonOptions {
  clientId: string;
  /** Where the provider sends the browser back; default: the current page without its query. */
  redirectUri?: string;
  /** Scopes to ask for; default "openid offline_access". */
  scope?: string;
  accessToken?: never;
}

/** Servers: the gateway URL and an access token sent as a bearer (no cookies, no CSRF header). */
export interface ServerClientOptions extends CommonOptions {
  accessToken: string;
  clientId?: never;
  redirectUri?: never;
  scope?: never;
}

export type ClientOptions = BrowserClientOptions | ServerClientOptions;

/** What the SDK's transport reads: any of the clients' options. @internal */
export interface TransportOptions extends CommonOptions {
  clientId?: string;
  accessToken?: string;
  redirectUri?: string;
  scope?: string;
}

/**
 * App servers that share the gateway's cookie (one host behind a proxy, or localhost): the incoming
 * request, whose gateway cookie (and no other) is forwarded so calls act as the signed-in user.
 */
export interface RequestClientOptions extends CommonOptions {
  request: IncomingRequest;
}

/**
 * `auth.exportData()`: everything the gateway holds about the signed-in user in this client's app (the
 * credit ledger is the user's whatever the app). Times are ISO 8601; sessions carry no token. `data` fields are what the data service linked, as it sent them.
 */
export interface UserExport {
  userId: string;
  exportedAt: string;
  sessions: Array<{
    id: string;
    clientId: string;
    createdAt: string;
    lastSeenAt: string;
    expiresAt: string;
    endedAt: string | null;
    endReason: string | null;
  }>;
  memberships: Array<{
    resourceId: string;
    appId: string;
    type: string;
    /** Absent for a pending request on a members-only resource (a requester may not read it). */
    name?: string;
    role: Role;
    state: MemberState;
    invitedBy: string | null;
    since: string;
  }>;
  resourcesOwned: Array<{
    id: string;
    appId: string;
    type: string;
    name: string;
    memberCount: number;
    createdAt: string;
  }>;
  invitesSent: Array<{ resourceId: string; userId: string; role: Role; createdAt: string }>;
  ownershipOffers: {
    received: Array<{ resourceId: string; offeredBy: string; createdAt: string }>;
    made: Array<{ resourceId: string; userId: string; createdAt: string }>;
  };
  credits: { balanceUsd: number; entries: Array<{ kind: string; amountUsd: number; createdAt: string }> };
  links: Array<{
    resourceId: string;
    table: string;
    rows: Array<{ rowId: string; hidden: boolean; data: unknown; createdAt: string }>;
  }>;
  retained: Array<{ resourceId: string; table: string; rowId: string; data: unknown; createdAt: string }>;
  events: Array<{
    id: number;
    type: string;
    actor: string | null;
    resourceId: string | null;
    userId: string | null;
    data: unknown;
    at: string;
  }>;
}

/** `auth.signOut()`'s answer. */
export interface SignOutResult {
  /** With `everywhere`: how many other sessions of the person in this app ended. */
  otherSessionsEnded: number;
  /** With `everywhere`: true when the browser is being sent to the provider to end its login there. */
  providerLogout: boolean;
}

/** One of the signed-in person's live sessions in this app (`auth.listSessions()`). */
export interface OwnSession {
  /** The session's public id (never the cookie), for `auth.revokeSession(id)`. */
  id: string;
  /** True for this browser's session. */
  current: boolean;
  clientId: string;
  /** ISO 8601 times; `lastSeenAt` is written at most once a minute. */
  createdAt: string;
  lastSeenAt: string;
  /** A coarse description of the browser that signed in: "Chrome on Linux". */
  device: string;
}

/** `auth.deleteAccount()`'s answer (`deletedNow` false on a repeat). */
export interface DeletionReport {
  userId: string;
  pseudonym: string;
  deletedAt: string;
  deletedNow: boolean;
  resources: { transferred: Array<{ resourceId: string; to: string }>; deleted: string[] };
  membershipsEnded: number;
  invitesCancelled: number;
  offersEnded: number;
  sessionsEnded: number;
  sharedTables: Record<
    string,
    { policy: "remove" | "tombstone" | "retain"; delete: string[]; tombstoned: string[]; retained: string[] }
  >;
}
