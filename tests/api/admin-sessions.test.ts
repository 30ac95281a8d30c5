/**
 * Admin sessions, users and the overview after real sign-ins against the development provider:
 * the list shows exactly the live sessions with ISO times and never a token,
 * filters and cursor pagination work, the overview counts move, and an operator's revoke takes
 * effect on the very next request and reaches the provider.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  CSRF,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token" };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY = 86_400_000;

interface SessionView {
  id: string;
  userId: string;
  clientId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}
interface Overview {
  sessions: { active: number };
  users: number;
  resources: number;
  pending: { invited: number; requested: number };
  tokenCache: { hits: number; misses: number };
  uptimeSeconds: number;
}
interface Signed {
  user: string;
  clientId: string;
  cookie: string;
  sessionId: string;
  accessToken: string;
  refreshToken: string;
}

let stack: Stack;
/** Every session this file started and has not revoked, by id. */
const live = new Map<string, Signed>();
/** Secrets that must never appear in an admin body: raw tokens, sealed cookies, refresh hashes. */
const secrets = new Set<string>();
/** Every admin body read in this file, checked for secrets at the end. */
const bodies: string[] = [];

async function admin<T = unknown>(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.adminUrl}${path}`, { ...init, headers: { ...ADMIN, ...init.headers } });
  const text = await res.text();
  bodies.push(text);
  return {
    status: res.status,
    body: (res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text) as T,
  };
}
const overview = async () => (await admin<Overview>("/admin/v1/overview")).body;
const listSessions = async (query = "") =>
  (await admin<{ sessions: SessionView[]; nextCursor: string | null }>(`/admin/v1/sessions${query}`)).body;

async function login(user: string, clientId = CLIENT_ID): Promise<Signed> {
  const { browser, token } = await signIn(stack, user, new Browser(), clientId);
  expect(token.status).toBe(200);
  const cookie = browser.cookieHeader(stack.url);
  const resolved = await stack.running.gateway.sessions.resolve(cookie);
  if (!resolved) throw new Error(`no session for ${user}`);
  const { row, cookie: sealed } = resolved;
  expect(sealed.rt).toBeString();
  const signed: Signed = {
    user,
    clientId,
    cookie,
    sessionId: row.id,
    accessToken: sealed.at,
    refreshToken: sealed.rt!,
  };
  for (const secret of [sealed.at, sealed.rt!, row.refreshHash, row.refreshSealed, cookie.split("=")[1]]) {
    if (secret) secrets.add(secret);
  }
  live.set(row.id, signed);
  return signed;
}

const pub = (path: string, cookie: string, init: RequestInit = {}) =>
  fetch(`${stack.url}${path}`, { ...init, headers: { cookie, ...CSRF, ...init.headers } });

async function introspect(token: string): Promise<{ active: boolean }> {
  const res = await fetch(`${stack.idp.adminUrl}/admin/oauth2/introspect`, {
    method: "POST",
    headers: {
      authorization: "Bearer test-idp-admin-key",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { active: boolean };
}

let empty: Overview;
beforeAll(async () => {
  stack = await startStack();
  empty = await overview();
  // The stack's app declares no types: deploy it again with two (same clients).
  const deployed = await admin(`/admin/v1/apps/test/deploy`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "test",
      clients: [
        { clientId: CLIENT_ID, redirectUris: [stack.redirectUri], origins: ["http://127.0.0.1:5999"] },
        { clientId: SECRET_CLIENT_ID, redirectUris: [stack.redirectUri], clientSecret: CLIENT_SECRET },
      ],
      types: { team: {}, album: { visibility: "discoverable" } },
    }),
  });
  expect(deployed.status).toBe(200);
  await login("alice");
  await login("alice", SECRET_CLIENT_ID);
  await login("bob");
  await login("carol");
}, 60_000);
afterAll(async () => {
  await stack.stop();
}, 30_000);

describe("GET /admin/v1/sessions", () => {
  test("lists exactly the live sessions, with the contract's fields as ISO strings", async () => {
    const { sessions, nextCursor } = await listSessions();
    expect(nextCursor).toBeNull();
    expect(sessions.map((s) => s.id).sort()).toEqual([...live.keys()].sort());
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(
        ["clientId", "createdAt", "expiresAt", "id", "lastSeenAt", "userId"].sort(),
      );
      const mine = live.get(s.id)!;
      expect({ userId: s.userId, clientId: s.clientId }).toEqual({
        userId: mine.user,
        clientId: mine.clientId,
      });
      for (const at of [s.createdAt, s.lastSeenAt, s.expiresAt]) expect(at).toMatch(ISO);
      const created = Date.parse(s.createdAt);
      expect(Math.abs(created - Date.now())).toBeLessThan(60_000);
      expect(Date.parse(s.lastSeenAt)).toBeGreaterThanOrEqual(created);
      // The absolute lifetime: 30 days by default.
      expect(Math.abs(Date.parse(s.expiresAt) - created - 30 * DAY)).toBeLessThan(1000);
    }
    // Newest first.
    const created = sessions.map((s) => s.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  test("filters by userId and clientId", async () => {
    const alice = await listSessions("?userId=alice");
    expect(alice.sessions.map((s) => s.clientId).sort()).toEqual([CLIENT_ID, SECRET_CLIENT_ID].sort());
    expect(alice.sessions.every((s) => s.userId === "alice")).toBe(true);
    const server = await listSessions(`?clientId=${SECRET_CLIENT_ID}`);
    expect(server.sessions.map((s) => s.userId)).toEqual(["alice"]);
    const web = await listSessions(`?clientId=${CLIENT_ID}`);
    expect(web.sessions.map((s) => s.userId).sort()).toEqual(["alice", "bob", "carol"]);
    const both = await listSessions(`?userId=bob&clientId=${CLIENT_ID}`);
    expect(both.sessions.map((s) => s.userId)).toEqual(["bob"]);
    expect((await listSessions(`?userId=bob&clientId=${SECRET_CLIENT_ID}`)).sessions).toEqual([]);
    expect((await listSessions("?userId=nobody")).sessions).toEqual([]);
  });

  test("cursor pagination with limit=1 walks every session once, newest first", async () => {
    const all = (await listSessions()).sessions.map((s) => s.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await listSessions(query);
      expect(page.sessions.length).toBe(1);
      seen.push(page.sessions[0]!.id);
      cursor = page.nextCursor;
      pages++;
      expect(pages).toBeLessThanOrEqual(all.length);
    } while (cursor);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    // Filtered pages too.
    const first = await listSessions("?userId=alice&limit=1");
    const second = await listSessions(
      `?userId=alice&limit=1&cursor=${encodeURIComponent(first.nextCursor!)}`,
    );
    expect(second.nextCursor).toBeNull();
    expect([first.sessions[0]!.id, second.sessions[0]!.id].sort()).toEqual(
      (await listSessions("?userId=alice")).sessions.map((s) => s.id).sort(),
    );
  });
});

describe("GET /admin/v1/users/:id and the overview", () => {
  test("a signed-in user: welcomed, $5, its sessions and the _app membership from consent", async () => {
    const { status, body } = await admin<{
      userId: string;
      welcomed: boolean;
      balanceUsd: number;
      sessions: SessionView[];
      memberships: Array<Record<string, unknown>>;
    }>("/admin/v1/users/alice");
    expect(status).toBe(200);
    expect(body).toMatchObject({ userId: "alice", welcomed: true, balanceUsd: 5 });
    const mine = [...live.values()].filter((s) => s.user === "alice").map((s) => s.sessionId);
    expect(body.sessions.map((s) => s.id).sort()).toEqual(mine.sort());
    for (const s of body.sessions) expect(s.createdAt).toMatch(ISO);
    expect(body.memberships).toEqual([
      expect.objectContaining({ type: "_app", appId: "test", role: "writer", state: "active" }),
    ]);
  });

  test("an unknown user: not welcomed, no balance, nothing", async () => {
    const { status, body } = await admin("/admin/v1/users/never-seen");
    expect(status).toBe(200);
    expect(body).toEqual({
      userId: "never-seen",
      welcomed: false,
      balanceUsd: 0,
      sessions: [],
      endedSessions: [],
      memberships: [],
      ifDeleted: { transfer: [], delete: [] },
    });
  });

  test("the overview starts empty and counts sign-ins, resources, invites, requests and the token cache", async () => {
    expect(empty).toMatchObject({
      sessions: { active: 0 },
      users: 0,
      resources: 1, // the app's `_app` resource
      pending: { invited: 0, requested: 0 },
      tokenCache: { hits: 0, misses: 0 },
    });
    expect(empty.uptimeSeconds).toBeGreaterThanOrEqual(0);
    const before = await overview();
    expect(before.sessions.active).toBe(live.size);
    expect(before.users).toBe(new Set([...live.values()].map((s) => s.user)).size);

    const erin = await login("erin");
    const create = async (type: string, name: string) => {
      const res = await pub("/v1/resources", erin.cookie, {
        method: "POST",
        body: JSON.stringify({ type, name, visibility: type === "album" ? "discoverable" : undefined }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { id: string };
    };
    const team = await create("team", "Erin's team");
    const album = await create("album", "Erin's album");
    const invite = await pub(`/v1/resources/${team.id}/invite`, erin.cookie, {
      method: "POST",
      body: JSON.stringify({ userId: "frank", role: "reader" }),
    });
    expect(invite.status).toBe(200);
    const bob = [...live.values()].find((s) => s.user === "bob")!;
    const request = await pub(`/v1/resources/${album.id}/request`, bob.cookie, { method: "POST" });
    expect(request.status).toBe(200);
    // Bearer calls: the first asks the provider, the second is answered from the cache.
    for (let i = 0; i < 2; i++) {
      const me = await fetch(`${stack.url}/v1/me`, {
        headers: { authorization: `Bearer ${erin.accessToken}` },
      });
      expect(me.status).toBe(200);
    }

    const after = await overview();
    expect(after.sessions.active).toBe(before.sessions.active + 1);
    expect(after.users).toBe(before.users + 1);
    expect(after.resources).toBe(before.resources + 2);
    expect(after.pending).toEqual({
      invited: before.pending.invited + 1,
      requested: before.pending.requested + 1,
    });
    expect(after.tokenCache.misses).toBe(before.tokenCache.misses + 1);
    expect(after.tokenCache.hits).toBe(before.tokenCache.hits + 1);

    expect((await admin(`/admin/v1/pending/${team.id}/frank`, { method: "DELETE" })).status).toBe(200);
    expect((await overview()).pending.invited).toBe(before.pending.invited);
  });
});

describe("DELETE /admin/v1/sessions/:id", () => {
  test("the cookie is refused from the next request and the refresh token is revoked at the provider", async () => {
    const dave = await login("dave");
    const other = await login("dave"); // a second device: must survive
    expect((await introspect(dave.refreshToken)).active).toBe(true);
    const activeBefore = (await overview()).sessions.active;
    const revokesBefore = stack.idp.calls.revoke ?? 0;
    // The session is in use right before the revoke.
    expect(await (await pub("/auth/session", dave.cookie)).json()).toEqual({
      authenticated: true,
      user_id: "dave",
    });
    expect((await pub("/v1/me", dave.cookie)).status).toBe(200);

    const revoked = await admin(`/admin/v1/sessions/${dave.sessionId}`, { method: "DELETE" });
    expect(revoked).toEqual({ status: 200, body: { ok: true } });
    live.delete(dave.sessionId);

    expect(await (await pub("/auth/session", dave.cookie)).json()).toEqual({
      authenticated: false,
      reason: "revoked",
    });
    const me = await pub("/v1/me", dave.cookie);
    expect(me.status).toBe(401);
    expect(await me.json()).toMatchObject({ code: "unauthenticated" });
    expect(stack.idp.calls.revoke).toBe(revokesBefore + 1);
    expect((await introspect(dave.refreshToken)).active).toBe(false);
    const refresh = await pub("/auth/refresh", dave.cookie, { method: "POST", body: "{}" });
    expect(refresh.status).toBe(401);

    // The other device is untouched.
    expect(await (await pub("/auth/session", other.cookie)).json()).toEqual({
      authenticated: true,
      user_id: "dave",
    });
    expect((await introspect(other.refreshToken)).active).toBe(true);

    const again = await admin<{ code: string; error: string }>(`/admin/v1/sessions/${dave.sessionId}`, {
      method: "DELETE",
    });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "not_found", error: expect.any(String) });
    expect(stack.idp.calls.revoke).toBe(revokesBefore + 1);

    expect((await listSessions()).sessions.map((s) => s.id)).not.toContain(dave.sessionId);
    expect((await listSessions("?userId=dave")).sessions.map((s) => s.id)).toEqual([other.sessionId]);
    expect((await overview()).sessions.active).toBe(activeBefore - 1);
    const user = await admin<{ sessions: SessionView[] }>("/admin/v1/users/dave");
    expect(user.body.sessions.map((s) => s.id)).toEqual([other.sessionId]);
  });

  test("an unknown session id is 404 not_found", async () => {
    const res = await admin<{ code: string }>("/admin/v1/sessions/no-such-session", { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });
});

describe("no token in any admin body", () => {
  test("raw access and refresh tokens, sealed cookies and refresh hashes never appear", async () => {
    // Read every admin view once more so the check covers them whatever ran before.
    await listSessions();
    for (const user of ["alice", "bob", "carol", "dave", "erin"]) await admin(`/admin/v1/users/${user}`);
    await overview();
    await admin("/admin/v1/pending");
    await admin("/admin/v1/resources");
    await admin("/metrics");
    expect(secrets.size).toBeGreaterThanOrEqual(20);
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      for (const secret of secrets) expect(body.includes(secret)).toBe(false);
      expect(body).not.toMatch(/access_?token|refresh_?token|"at"|"rt"/i);
    }
  });
});
