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
} from "../../src/tui/client.ts";
import { AdminApiError } from "../../src/tui/errors.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

export function session(id: string, userId = `user-${id}`): SessionRow {
  return { id, userId, clientId: "web", createdAt: iso(0), lastSeenAt: iso(1), expiresAt: iso(600_000) };
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
        role: "member",
        state: "invited",
        invitedBy: "alice",
        createdAt: iso(5),
      },
      {
        resourceId: "r2",
        resourceName: "Beta Club",
        userId: "erin",
        role: "viewer",
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
        visibility: "private",
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
        { userId: "bob", role: "member", state: "active", since: iso(2) },
      ],
      r2: [{ userId: "zoe", role: "owner", state: "active", since: iso(0) }],
    } as Record<string, MemberRow[]>,
    /** When set, every call fails as if the gateway were unreachable. */
    down: false,
  };
}

export function fakeClient(state = fakeState()) {
  const calls: string[] = [];
  const subscribers = new Set<{ onEvent: (e: AdminEvent) => void; onStatus: (s: StreamStatus) => void }>();
  const gate = (name: string) => {
    calls.push(name);
    if (state.down) throw new AdminApiError(0, "unreachable", "connection refused");
  };
  const answer = <T>(name: string, value: () => T): T => {
    gate(name);
    return value();
  };
  const client: AdminClient = {
    url: "http://fake-gateway:8788",
    getOverview: async () => answer("overview", () => structuredClone(state.overview)),
    listSessions: async () =>
      answer("sessions", () => ({ sessions: structuredClone(state.sessions), nextCursor: null })),
    revokeSession: async (id) => {
      gate(`revoke:${id}`);
      state.sessions = state.sessions.filter((s) => s.id !== id);
    },
    listPending: async () =>
      answer("pending", () => ({ pending: structuredClone(state.pending), nextCursor: null })),
    cancelPending: async (resourceId, userId) => {
      gate(`cancel:${resourceId}:${userId}`);
      state.pending = state.pending.filter((p) => !(p.resourceId === resourceId && p.userId === userId));
    },
    listResources: async () =>
      answer("resources", () => ({ resources: structuredClone(state.resources), nextCursor: null })),
    listMembers: async (id) =>
      answer(`members:${id}`, () => ({ members: structuredClone(state.members[id] ?? []) })),
    subscribe(onEvent, onStatus) {
      const subscriber = { onEvent, onStatus };
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
  };
  return {
    client,
    state,
    calls,
    emit(type = "session.created", fields: Partial<AdminEvent> = {}) {
      for (const s of subscribers) {
        s.onEvent({
          id: "1",
          type,
          actor: null,
          resourceId: null,
          userId: null,
          data: null,
          at: new Date().toISOString(),
          ...fields,
        });
      }
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
