/**
 * The admin API as the TUI sees it. Screens and hooks depend only on `AdminClient`, so tests
 * inject a fake. Every request carries the bearer token and a timeout; failures surface as `AdminApiError`
 * with the HTTP status (0 when the gateway could not be reached) and the contract's error code.
 */

import type { BackoffOptions } from "./backoff.ts";
import { AdminApiError, describeError, toApiError } from "./errors.ts";
import { subscribeEvents } from "./events.ts";

export { AdminApiError, describeError } from "./errors.ts";

export interface Overview {
  sessions: { active: number };
  users: number;
  resources: number;
  pending: { invited: number; requested: number };
  tokenCache: { hits: number; misses: number };
  uptimeSeconds: number;
}

export interface SessionRow {
  id: string;
  userId: string;
  clientId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** A session that is over, and why (the words the SDK tells the person's page). */
export interface EndedSession {
  id: string;
  clientId: string;
  endedAt: string;
  reason: string;
}

export type PendingState = "invited" | "requested";

export interface PendingRow {
  resourceId: string;
  resourceName: string;
  userId: string;
  role: string;
  state: PendingState;
  invitedBy: string | null;
  createdAt: string;
}

export interface ResourceRow {
  id: string;
  type: string;
  name: string;
  visibility: string;
  discoverable: boolean;
  appId: string;
  memberCount: number;
  createdAt: string;
}

export interface MemberRow {
  userId: string;
  role: string;
  state: string;
  since: string;
}

export interface AdminEvent {
  /** The event row's id (newest is highest). */
  id: number;
  type: string;
  actor: string | null;
  resourceId: string | null;
  userId: string | null;
  data: unknown;
  at: string;
}

export interface Membership {
  resourceId: string;
  resourceName: string;
  type: string;
  appId: string;
  role: string;
  state: string;
}

export interface UserDetail {
  userId: string;
  welcomed: boolean;
  balanceUsd: number;
  sessions: SessionRow[];
  /** The latest ended sessions, newest first (absent from an older gateway). */
  endedSessions?: EndedSession[];
  memberships: Membership[];
  /** What deleting the account would do to the resources it owns. */
  ifDeleted: {
    transfer: Array<{ resourceId: string; name: string; to: string }>;
    delete: Array<{ resourceId: string; name: string }>;
  };
}

export type StreamStatus =
  | { state: "open" }
  | { state: "retrying"; retryAt: number; attempt: number; error: string }
  /** The admin API refused the token (or is disabled): final, no retry. */
  | { state: "refused"; error: string };

/** A running event stream: `close` ends it; `reconnect` ends a wait between attempts at once. */
export interface Subscription {
  close(): void;
  /** Connects now (resetting the backoff) if the stream is waiting to retry; nothing if it is open. */
  reconnect(): void;
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
  /** A case-insensitive substring the server looks for (each list's own fields). */
  query?: string;
}
export interface ListSessionsOptions extends PageOptions {
  userId?: string;
  clientId?: string;
}
export interface ListPendingOptions extends PageOptions {
  state?: PendingState;
}
export interface ListResourcesOptions extends PageOptions {
  type?: string;
}
export interface ListAuditOptions extends PageOptions {
  type?: string;
  userId?: string;
  resourceId?: string;
}

/** The roles an operator may give (the owner's is given only by creation). */
export const GRANTABLE_ROLES = ["reader", "writer", "admin"] as const;
export type GrantableRole = (typeof GRANTABLE_ROLES)[number];

export interface AdminClient {
  /** The gateway's admin base URL, shown in the header. */
  readonly url: string;
  getOverview(): Promise<Overview>;
  listSessions(options?: ListSessionsOptions): Promise<{ sessions: SessionRow[]; nextCursor: string | null }>;
  revokeSession(id: string): Promise<void>;
  listPending(options?: ListPendingOptions): Promise<{ pending: PendingRow[]; nextCursor: string | null }>;
  cancelPending(resourceId: string, userId: string): Promise<void>;
  listResources(
    options?: ListResourcesOptions,
  ): Promise<{ resources: ResourceRow[]; nextCursor: string | null }>;
  getResource(id: string): Promise<ResourceRow>;
  listMembers(resourceId: string): Promise<{ members: MemberRow[] }>;
  setRole(resourceId: string, userId: string, role: GrantableRole): Promise<void>;
  /** Removes an active member, or cancels a pending invite or request. */
  removeMember(resourceId: string, userId: string): Promise<void>;
  getUser(id: string): Promise<UserDetail>;
  /** Ends every live session of the user; answers how many there were. */
  revokeUserSessions(userId: string): Promise<number>;
  /** Deletes the account; answers how many owned resources passed on and how many were deleted. */
  deleteUser(userId: string): Promise<{ transferred: number; deleted: number }>;
  listAudit(options?: ListAuditOptions): Promise<{ events: AdminEvent[]; nextCursor: string | null }>;
  /** Follows the event stream, reconnecting with backoff, until closed. */
  subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: StreamStatus) => void): Subscription;
}

export interface AdminClientOptions {
  url: string;
  token: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Reconnect delays of the event stream (default 2 s → 60 s). */
  streamBackoff?: BackoffOptions;
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const base = options.url.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 5000;
  const auth = { authorization: `Bearer ${options.token}` };

  async function call<T>(
    method: "GET" | "DELETE" | "POST",
    path: string,
    query?: object,
    body?: unknown,
  ): Promise<T> {
    const url = new URL(base + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== "") url.searchParams.set(key, String(value));
    }
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers: {
          ...auth,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      throw new AdminApiError(0, timedOut ? "timeout" : "unreachable", `${base}: ${describeError(error)}`);
    }
    if (!response.ok) throw await toApiError(response);
    try {
      return (await response.json()) as T;
    } catch {
      throw new AdminApiError(
        response.status,
        "invalid_response",
        "the admin API answered something not JSON",
      );
    }
  }

  const segment = encodeURIComponent;
  return {
    url: base,
    getOverview: () => call("GET", "/admin/v1/overview"),
    listSessions: (o) => call("GET", "/admin/v1/sessions", o),
    revokeSession: async (id) => void (await call("DELETE", `/admin/v1/sessions/${segment(id)}`)),
    listPending: (o) => call("GET", "/admin/v1/pending", o),
    cancelPending: async (resourceId, userId) =>
      void (await call("DELETE", `/admin/v1/pending/${segment(resourceId)}/${segment(userId)}`)),
    listResources: (o) => call("GET", "/admin/v1/resources", o),
    getResource: (id) => call("GET", `/admin/v1/resources/${segment(id)}`),
    listMembers: (id) => call("GET", `/admin/v1/resources/${segment(id)}/members`),
    setRole: async (resourceId, userId, role) =>
      void (await call("POST", `/admin/v1/resources/${segment(resourceId)}/setRole`, undefined, {
        userId,
        role,
      })),
    removeMember: async (resourceId, userId) =>
      void (await call("POST", `/admin/v1/resources/${segment(resourceId)}/remove`, undefined, { userId })),
    getUser: (id) => call("GET", `/admin/v1/users/${segment(id)}`),
    revokeUserSessions: async (userId) =>
      (await call<{ revoked: number }>("DELETE", `/admin/v1/users/${segment(userId)}/sessions`)).revoked,
    deleteUser: async (userId) => {
      const report = await call<{ resources: { transferred: unknown[]; deleted: unknown[] } }>(
        "DELETE",
        `/admin/v1/users/${segment(userId)}`,
      );
      return { transferred: report.resources.transferred.length, deleted: report.resources.deleted.length };
    },
    listAudit: (o) => call("GET", "/admin/v1/audit", o),
    subscribe: (onEvent, onStatus) =>
      subscribeEvents({
        url: `${base}/admin/v1/events`,
        headers: auth,
        fetch: doFetch,
        onEvent,
        onStatus,
        backoff: options.streamBackoff,
      }),
  };
}
