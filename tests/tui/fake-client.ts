/** A scriptable in-memory AdminClient for the TUI tests, and a frame poller. */
import type {
  AdminClient,
  AdminEvent,
  MemberRow,
  Overview,
  PendingRow,
  ResourceRow,
  SessionRow,
  StreamStatus,
  UserDetail,
} from "../../src/tui/client.ts";
import { AdminApiError } from "../../src/tui/errors.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

export function session(id: string, userId = `user-${id}`): SessionRow {
  return { id, userId, clientId: "web", createdAt: iso(0), lastSeenAt: iso(1), expiresAt: iso(600_000) };
}

export function event(id: number, type: string, fields: Partial<AdminEvent> = {}): AdminEvent {
  return { id, type, actor: null, resourceId: null, userId: null, data: null, at: iso(id), ...fields };
}

export function resource(id: string, name: string, minutes = 0): ResourceRow {
  return {
    id,
    type: "team",
    name,
    visibility: "members",
    discoverable: false,
    appId: "app1",
    memberCount: 1,
    createdAt: iso(minutes),
  };
}

export function fakeState() {
  return {
    overview: {
      sessions: { active: 3 },
      users: 7,
      resources: 2,
      pending: { invited: 1, requested: 1 },
      tokenCache: { hits: 9, misses: 1 },
      uptimeSeconds: 3725,
    } as Overview,
    sessions: [session("s1", "alice"), session("s2", "bob"), session("s3", "carol")] as SessionRow[],
    pending: [
      {
        resourceId: "r1",
        resourceName: "Team Alpha",
        userId: "dave",
        role: "writer",
        state: "invited",
        invitedBy: "alice",
        createdAt: iso(5),
      },
      {
        resourceId: "r2",
        resourceName: "Beta Club",
        userId: "erin",
        role: "reader",
        state: "requested",
        invitedBy: null,
        createdAt: iso(6),
      },
    ] as PendingRow[],
    resources: [
      {
        id: "r1",
        type: "team",
        name: "Team Alpha",
        visibility: "members",
        discoverable: false,
        appId: "app1",
        memberCount: 2,
        createdAt: iso(0),
      },
      {
        id: "r2",
        type: "club",
        name: "Beta Club",
        visibility: "public",
        discoverable: true,
        appId: "app1",
        memberCount: 1,
        createdAt: iso(0),
      },
    ] as ResourceRow[],
    members: {
      r1: [
        { userId: "alice", role: "owner", state: "active", since: iso(0) },
        { userId: "bob", role: "writer", state: "active", since: iso(2) },
        { userId: "dave", role: "writer", state: "invited", since: iso(5) },
      ],
      r2: [
        { userId: "zoe", role: "owner", state: "active", since: iso(0) },
        { userId: "erin", role: "reader", state: "requested", since: iso(6) },
      ],
    } as Record<string, MemberRow[]>,
    /** Users who received the welcome credit. */
    welcomed: ["alice"] as string[],
    /** The audit log, newest first. */
    events: [
      event(3, "member.invited", {
        actor: "alice",
        userId: "dave",
        resourceId: "r1",
        data: { role: "writer" },
      }),
      event(2, "resource.created", { actor: "zoe", userId: "zoe", resourceId: "r2" }),
      event(1, "session.created", { actor: "alice", userId: "alice", data: { sessionId: "s1" } }),
    ] as AdminEvent[],
    /** When set, every call fails as if the gateway were unreachable. */
    down: false,
    /** When set, every call is refused as with a wrong token (401). */
    refused: false,
  };
}

/** Pages `rows` like the admin API: `limit` (default 20, max 100) and an opaque cursor (here the offset). */
function paged<T>(rows: T[], options: { limit?: number; cursor?: string } = {}) {
  const limit = Math.min(options.limit ?? 20, 100);
  const from = options.cursor ? Number(options.cursor) : 0;
  const next = from + limit;
  return {
    rows: structuredClone(rows.slice(from, next)),
    nextCursor: next < rows.length ? String(next) : null,
  };
}

const has = (text: string | null | undefined, query: string | undefined) =>
  !query || (text ?? "").toLowerCase().includes(query.toLowerCase());

export function fakeClient(state = fakeState()) {
  const calls: string[] = [];
  const subscribers = new Set<{ onEvent: (e: AdminEvent) => void; onStatus: (s: StreamStatus) => void }>();
  let reconnects = 0;
  const gate = (name: string) => {
    calls.push(name);
    if (state.refused) throw new AdminApiError(401, "unauthenticated", "wrong token");
    if (state.down) throw new AdminApiError(0, "unreachable", "connection refused");
  };
  const answer = <T>(name: string, value: () => T): T => {
    gate(name);
    return value();
  };
  const members = (resourceId: string) => {
    state.members[resourceId] ??= [];
    return state.members[resourceId]!;
  };
  /** The admin API's rule: an owned resource passes to its first admin, else first active member. */
  const ifDeleted = (userId: string) => {
    const owned = Object.entries(state.members).filter(([, list]) =>
      list.some((m) => m.userId === userId && m.role === "owner"),
    );
    const result: UserDetail["ifDeleted"] = { transfer: [], delete: [] };
    for (const [resourceId, list] of owned) {
      const active = list.filter((m) => m.state === "active" && m.userId !== userId);
      const heir = active.find((m) => m.role === "admin") ?? active[0];
      const name = state.resources.find((r) => r.id === resourceId)?.name ?? resourceId;
      if (heir) result.transfer.push({ resourceId, name, to: heir.userId });
      else result.delete.push({ resourceId, name });
    }
    return result;
  };
  const client: AdminClient = {
    url: "http://fake-gateway:8788",
    getOverview: async () => answer("overview", () => structuredClone(state.overview)),
    listSessions: async (o) =>
      answer(`sessions${o?.query ? `?query=${o.query}` : ""}`, () => {
        const page = paged(
          state.sessions.filter((s) => has(`${s.id} ${s.userId} ${s.clientId}`, o?.query)),
          o,
        );
        return { sessions: page.rows, nextCursor: page.nextCursor };
      }),
    revokeSession: async (id) => {
      gate(`revoke:${id}`);
      state.sessions = state.sessions.filter((s) => s.id !== id);
    },
    listPending: async (o) =>
      answer("pending", () => {
        const page = paged(state.pending, o);
        return { pending: page.rows, nextCursor: page.nextCursor };
      }),
    cancelPending: async (resourceId, userId) => {
      gate(`cancel:${resourceId}:${userId}`);
      state.pending = state.pending.filter((p) => !(p.resourceId === resourceId && p.userId === userId));
      state.members[resourceId] = members(resourceId).filter((m) => m.userId !== userId);
    },
    listResources: async (o) =>
      answer(`resources${o?.cursor ? `@${o.cursor}` : ""}${o?.query ? `?query=${o.query}` : ""}`, () => {
        const page = paged(
          state.resources.filter((r) => has(r.name, o?.query)),
          o,
        );
        return { resources: page.rows, nextCursor: page.nextCursor };
      }),
    getResource: async (id) =>
      answer(`resource:${id}`, () => {
        const found = state.resources.find((r) => r.id === id);
        if (!found) throw new AdminApiError(404, "not_found", "No such resource.");
        return structuredClone(found);
      }),
    listMembers: async (id) => answer(`members:${id}`, () => ({ members: structuredClone(members(id)) })),
    setRole: async (resourceId, userId, role) => {
      gate(`setRole:${resourceId}:${userId}:${role}`);
      const member = members(resourceId).find((m) => m.userId === userId);
      if (member?.state !== "active") throw new AdminApiError(404, "not_a_member", "Not a member.");
      member.role = role;
    },
    removeMember: async (resourceId, userId) => {
      gate(`remove:${resourceId}:${userId}`);
      state.members[resourceId] = members(resourceId).filter((m) => m.userId !== userId);
    },
    getUser: async (id) =>
      answer(`user:${id}`, () => ({
        userId: id,
        welcomed: state.welcomed.includes(id),
        balanceUsd: state.welcomed.includes(id) ? 5 : 0,
        sessions: structuredClone(state.sessions.filter((s) => s.userId === id)),
        ifDeleted: ifDeleted(id),
        memberships: Object.entries(state.members).flatMap(([resourceId, list]) =>
          list
            .filter((m) => m.userId === id)
            .map((m) => {
              const r = state.resources.find((x) => x.id === resourceId);
              return {
                resourceId,
                resourceName: r?.name ?? "",
                type: r?.type ?? "",
                appId: r?.appId ?? "",
                role: m.role,
                state: m.state,
              };
            }),
        ),
      })),
    deleteUser: async (userId) => {
      gate(`deleteUser:${userId}`);
      const { transfer, delete: gone } = ifDeleted(userId);
      for (const { resourceId, to } of transfer)
        state.members[resourceId] = members(resourceId).map((m) =>
          m.userId === to ? { ...m, role: "owner" } : m,
        );
      for (const { resourceId } of gone) {
        state.resources = state.resources.filter((r) => r.id !== resourceId);
        delete state.members[resourceId];
      }
      for (const id of Object.keys(state.members))
        state.members[id] = members(id).filter((m) => m.userId !== userId);
      state.sessions = state.sessions.filter((s) => s.userId !== userId);
      return { transferred: transfer.length, deleted: gone.length };
    },
    revokeUserSessions: async (userId) => {
      gate(`revokeAll:${userId}`);
      const before = state.sessions.length;
      state.sessions = state.sessions.filter((s) => s.userId !== userId);
      return before - state.sessions.length;
    },
    listAudit: async (o) =>
      answer(`audit${o?.userId ? `?userId=${o.userId}` : ""}${o?.query ? `?query=${o.query}` : ""}`, () => {
        const rows = state.events.filter(
          (e) =>
            (!o?.userId || e.userId === o.userId || e.actor === o.userId) &&
            has(`${e.type} ${e.userId} ${e.actor} ${e.resourceId}`, o?.query),
        );
        const page = paged(rows, o);
        return { events: page.rows, nextCursor: page.nextCursor };
      }),
    subscribe(onEvent, onStatus) {
      const subscriber = { onEvent, onStatus };
      subscribers.add(subscriber);
      return {
        close: () => void subscribers.delete(subscriber),
        reconnect: () => {
          reconnects += 1;
        },
      };
    },
  };
  return {
    client,
    state,
    calls,
    get reconnects() {
      return reconnects;
    },
    /** Sends an event on the stream (and, like the gateway, records it in the audit log). */
    emit(type = "session.created", fields: Partial<AdminEvent> = {}) {
      const event: AdminEvent = {
        id: (state.events[0]?.id ?? 0) + 1,
        type,
        actor: null,
        resourceId: null,
        userId: null,
        data: null,
        at: new Date().toISOString(),
        ...fields,
      };
      state.events.unshift(event);
      for (const s of subscribers) s.onEvent(event);
    },
    status(status: StreamStatus) {
      for (const s of subscribers) s.onStatus(status);
    },
  };
}

export async function waitFor(
  lastFrame: () => string | undefined,
  predicate: (frame: string) => boolean,
  timeoutMs = 2000,
): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const frame = lastFrame() ?? "";
    if (predicate(frame)) return frame;
    if (Date.now() > end) throw new Error(`waitFor timed out; last frame:\n${frame}`);
    await Bun.sleep(20);
  }
}

export const KEY = {
  tab: "\t",
  backtab: "\u001b[Z",
  enter: "\r",
  esc: "\u001b",
  up: "\u001b[A",
  down: "\u001b[B",
  backspace: "\u007f",
};

/** Writes one chunk and lets Ink turn it into a frame (frames update after a macrotask). */
export async function press(stdin: { write(data: string): void }, data: string): Promise<void> {
  stdin.write(data);
  await Bun.sleep(data === KEY.esc ? 60 : 25);
}
