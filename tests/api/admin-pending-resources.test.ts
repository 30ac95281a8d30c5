/**
 * Admin pending invites and requests, resources and rosters after real sign-ins
 * against the development provider, invites, requests and joins made through the public API with
 * the session cookie: the rows are right, an operator's cancel takes effect and is audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  CSRF,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token", "content-type": "application/json" };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Pending {
  resourceId: string;
  resourceName: string;
  userId: string;
  role: string;
  state: string;
  invitedBy: string | null;
  createdAt: string;
}
interface AdminResource {
  id: string;
  appId: string;
  type: string;
  name: string;
  visibility: string;
  discoverable: boolean;
  memberCount: number;
  createdAt: string;
}
interface Member {
  userId: string;
  role: string;
  state: string;
  since: string;
}

let stack: Stack;
const cookies: Record<string, string> = {};

async function admin<T = Record<string, unknown>>(path: string, init: RequestInit = {}) {
  const res = await fetch(`${stack.adminUrl}${path}`, { ...init, headers: ADMIN });
  return { status: res.status, body: (await res.json()) as T };
}
async function as<T = Record<string, unknown>>(user: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${stack.url}${path}`, { ...init, headers: { cookie: cookies[user]!, ...CSRF } });
  return { status: res.status, body: (await res.json()) as T };
}
async function create(user: string, type: string, name: string, visibility?: string): Promise<string> {
  const res = await as<{ id: string }>(user, "/v1/resources", {
    method: "POST",
    body: JSON.stringify({ type, name, visibility }),
  });
  expect(res.status).toBe(200);
  return res.body.id;
}
async function act(user: string, resourceId: string, action: string, body?: unknown) {
  const res = await as(user, `/v1/resources/${resourceId}/${action}`, {
    method: "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect({ action, status: res.status, body: res.body }).toMatchObject({ status: 200 });
}
async function allPages<T>(path: string, key: string): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const page: { status: number; body: Record<string, unknown> } = await admin(
      `${path}${sep}limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(page.status).toBe(200);
    const items = page.body[key] as T[];
    expect(items.length).toBeLessThanOrEqual(1);
    rows.push(...items);
    cursor = page.body.nextCursor as string | null;
    if (!cursor) return rows;
  }
  throw new Error("pagination did not end");
}
const pendingOn = async (ids: string[], query = "") =>
  (
    await admin<{ pending: Pending[]; nextCursor: string | null }>(`/admin/v1/pending${query}`)
  ).body.pending.filter((p) => ids.includes(p.resourceId));
const roster = async (id: string) =>
  (await admin<{ members: Member[] }>(`/admin/v1/resources/${id}/members`)).body;
const events = async (type: string, resourceId: string) =>
  await sql(stack.running.gateway.storage).all(
    "SELECT type, actor, resource_id AS resourceId, user_id AS userId, data FROM events WHERE type = ? AND resource_id = ?",
    type,
    resourceId,
  );

beforeAll(async () => {
  stack = await startStack();
  const clients = [
    { clientId: CLIENT_ID, redirectUris: [stack.redirectUri], origins: ["http://127.0.0.1:5999"] },
    { clientId: SECRET_CLIENT_ID, redirectUris: [stack.redirectUri], clientSecret: CLIENT_SECRET },
  ];
  // The stack's app declares no types; a second app shows that the admin lists span apps.
  const deploys = [
    { id: "test", clients, types: { team: {}, album: { visibility: "discoverable" } } },
    {
      id: "other",
      clients: [],
      types: { feed: { reserved: true, visibility: "discoverable" } },
      statics: [{ type: "feed", slug: "global", name: "Global Feed", visibility: "discoverable" }],
    },
  ];
  for (const app of deploys) {
    const res = await admin(`/admin/v1/apps/${app.id}/deploy`, { method: "POST", body: JSON.stringify(app) });
    expect(res.status).toBe(200);
  }
  for (const user of ["olivia", "bob", "carol"]) {
    const { browser, token } = await signIn(stack, user, new Browser());
    expect(token.status).toBe(200);
    cookies[user] = browser.cookieHeader(stack.url);
  }
}, 60_000);
afterAll(async () => {
  await stack.stop();
}, 30_000);

describe("GET /admin/v1/pending", () => {
  test("shows invites and requests with resourceName, role, invitedBy; state= filters; pages walk", async () => {
    const team = await create("olivia", "team", "Pending Team");
    const album = await create("olivia", "album", "Pending Album", "discoverable");
    // A few ms apart, so "newest first" has one answer (ties are ordered by id).
    await act("olivia", team, "invite", { userId: "bob", role: "reader" });
    await Bun.sleep(3);
    await act("olivia", album, "invite", { userId: "carol", role: "admin" });
    await Bun.sleep(3);
    await act("bob", album, "request", { role: "reader" });

    const all = await pendingOn([team, album]);
    for (const p of all) {
      expect(Object.keys(p).sort()).toEqual(
        ["createdAt", "invitedBy", "resourceId", "resourceName", "role", "state", "userId"].sort(),
      );
      expect(p.createdAt).toMatch(ISO);
    }
    const strip = ({ createdAt: _c, ...p }: Pending) => p;
    expect(all.map(strip)).toEqual([
      // newest first
      {
        resourceId: album,
        resourceName: "Pending Album",
        userId: "bob",
        role: "reader",
        state: "requested",
        invitedBy: null,
      },
      {
        resourceId: album,
        resourceName: "Pending Album",
        userId: "carol",
        role: "admin",
        state: "invited",
        invitedBy: "olivia",
      },
      {
        resourceId: team,
        resourceName: "Pending Team",
        userId: "bob",
        role: "reader",
        state: "invited",
        invitedBy: "olivia",
      },
    ]);
    expect((await pendingOn([team, album], "?state=invited")).map((p) => p.userId)).toEqual(["carol", "bob"]);
    const requested = await pendingOn([team, album], "?state=requested");
    expect(requested.map((p) => [p.resourceId, p.userId, p.state])).toEqual([[album, "bob", "requested"]]);
    expect((await admin("/admin/v1/pending?state=active")).status).toBe(400);

    // Every pending row of the gateway, one per page, no repeats, the same order as one big page.
    const walked = await allPages<Pending>("/admin/v1/pending", "pending");
    const whole = (await admin<{ pending: Pending[] }>("/admin/v1/pending?limit=200")).body.pending;
    expect(walked).toEqual(whole);
    expect(new Set(walked.map((p) => `${p.resourceId}/${p.userId}`)).size).toBe(walked.length);
    const walkedInvites = await allPages<Pending>("/admin/v1/pending?state=invited", "pending");
    expect(walkedInvites.every((p) => p.state === "invited")).toBe(true);
    expect(walkedInvites.length).toBe(whole.filter((p) => p.state === "invited").length);

    // What the users themselves see agrees.
    const bobInvited = await as<{ resources: Array<{ id: string }> }>("bob", "/v1/resources?state=invited");
    expect(bobInvited.body.resources.map((r) => r.id)).toContain(team);
    const bobRequested = await as<{ resources: Array<{ id: string }> }>(
      "bob",
      "/v1/resources?state=requested",
    );
    expect(bobRequested.body.resources.map((r) => r.id)).toContain(album);
  });
});

describe("DELETE /admin/v1/pending/:resourceId/:userId", () => {
  test("cancels an invite: 404 on repeat, gone for the user, audited as member.cancelled", async () => {
    const team = await create("olivia", "team", "Cancel Team");
    await act("olivia", team, "invite", { userId: "bob", role: "writer" });
    const before = (await admin<{ pending: { invited: number } }>("/admin/v1/overview")).body.pending.invited;

    expect(await admin(`/admin/v1/pending/${team}/bob`, { method: "DELETE" })).toEqual({
      status: 200,
      body: { ok: true },
    });
    const again = await admin(`/admin/v1/pending/${team}/bob`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "not_found", error: expect.any(String) });

    const bobInvited = await as<{ resources: Array<{ id: string }> }>("bob", "/v1/resources?state=invited");
    expect(bobInvited.body.resources.map((r) => r.id)).not.toContain(team);
    expect((await as("bob", `/v1/resources/${team}`)).status).toBe(404);
    expect(await pendingOn([team])).toEqual([]);
    expect((await roster(team)).members.map((m) => m.userId)).toEqual(["olivia"]);
    expect((await admin<{ pending: { invited: number } }>("/admin/v1/overview")).body.pending.invited).toBe(
      before - 1,
    );
    expect(await events("member.cancelled", team)).toEqual([
      {
        type: "member.cancelled",
        actor: "admin",
        resourceId: team,
        userId: "bob",
        data: JSON.stringify({ was: "invited" }),
      },
    ]);
    // bob is a non-member again: he may be invited anew.
    await act("olivia", team, "invite", { userId: "bob", role: "reader" });
    expect((await pendingOn([team])).map((p) => [p.userId, p.role])).toEqual([["bob", "reader"]]);
  });

  test("cancels a request; an active member, an unknown resource or user is 404 and changes nothing", async () => {
    const album = await create("olivia", "album", "Cancel Album", "discoverable");
    await act("carol", album, "request");
    expect(await admin(`/admin/v1/pending/${album}/carol`, { method: "DELETE" })).toEqual({
      status: 200,
      body: { ok: true },
    });
    const carolRequested = await as<{ resources: Array<{ id: string }> }>(
      "carol",
      "/v1/resources?state=requested",
    );
    expect(carolRequested.body.resources.map((r) => r.id)).not.toContain(album);
    expect(await events("member.cancelled", album)).toEqual([
      expect.objectContaining({
        actor: "admin",
        userId: "carol",
        data: JSON.stringify({ was: "requested" }),
      }),
    ]);

    for (const path of [
      `/admin/v1/pending/${album}/olivia`, // the owner, active
      `/admin/v1/pending/${album}/nobody`,
      "/admin/v1/pending/0190d7a0-0000-7000-8000-00000000dead/carol",
    ]) {
      const res = await admin(path, { method: "DELETE" });
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 404,
        code: "not_found",
      });
    }
    expect((await roster(album)).members).toEqual([
      expect.objectContaining({ userId: "olivia", role: "owner", state: "active" }),
    ]);
  });
});

describe("GET /admin/v1/resources and /:id/members", () => {
  test("every app's resources with appId, memberCount and createdAt; type= and query= filter", async () => {
    const team = await create("olivia", "team", "Zeta Squad");
    const album = await create("olivia", "album", "Holiday 100%_Pics", "discoverable");
    await act("olivia", team, "invite", { userId: "carol", role: "writer" });
    await act("carol", team, "accept");
    await act("bob", album, "join");
    await act("carol", album, "join");

    const walked = await allPages<AdminResource>("/admin/v1/resources", "resources");
    expect(new Set(walked.map((r) => r.id)).size).toBe(walked.length);
    const whole = (
      await admin<{ resources: AdminResource[]; nextCursor: null }>("/admin/v1/resources?limit=200")
    ).body;
    expect(whole.nextCursor).toBeNull();
    expect(walked).toEqual(whole.resources);
    const total = (await admin<{ resources: number }>("/admin/v1/overview")).body.resources;
    expect(walked.length).toBe(total);
    const byId = new Map(walked.map((r) => [r.id, r]));
    for (const r of walked) expect(r.createdAt).toMatch(ISO);
    const createdAt = walked.map((r) => r.createdAt);
    expect([...createdAt].sort().reverse()).toEqual(createdAt);

    expect(byId.get(team)).toEqual({
      id: team,
      appId: "test",
      type: "team",
      name: "Zeta Squad",
      visibility: "members",
      discoverable: false,
      memberCount: 2,
      createdAt: expect.stringMatching(ISO),
    });
    expect(byId.get(album)).toMatchObject({
      appId: "test",
      visibility: "public",
      discoverable: true,
      memberCount: 3,
    });
    // The admin row carries the public ResourceView.
    const view = await as<Record<string, unknown>>("olivia", `/v1/resources/${album}`);
    expect(byId.get(album)).toMatchObject(view.body);
    // Both apps: their `_app` resources and the other app's static.
    const apps = walked.filter((r) => r.type === "_app");
    expect(apps.map((r) => [r.appId, r.name]).sort()).toEqual([
      ["other", "other"],
      ["test", "test"],
    ]);
    expect(apps.find((r) => r.appId === "test")!.memberCount).toBe(3); // three consents
    expect(walked.find((r) => r.appId === "other" && r.type === "feed")).toMatchObject({
      name: "Global Feed",
      memberCount: 0,
    });

    const teams = (await admin<{ resources: AdminResource[] }>("/admin/v1/resources?type=team&limit=200"))
      .body.resources;
    expect(teams.length).toBeGreaterThan(0);
    expect(teams.every((r) => r.type === "team")).toBe(true);
    expect(teams.map((r) => r.id)).toContain(team);
    const q = async (query: string, type?: string) =>
      (
        await admin<{ resources: AdminResource[] }>(
          `/admin/v1/resources?query=${encodeURIComponent(query)}${type ? `&type=${type}` : ""}`,
        )
      ).body.resources.map((r) => r.id);
    expect(await q("zETA sq")).toEqual([team]);
    expect(await q("zeta", "album")).toEqual([]);
    expect(await q("100%_p")).toEqual([album]);
    expect(await q("%")).toEqual([album]); // `%` matches itself, never as a wildcard
    expect(await q("_")).toEqual([album]);
    expect(await q("global feed")).toEqual([walked.find((r) => r.type === "feed")!.id]);
  });

  test("the roster with roles, states and since; 404 for an unknown resource", async () => {
    const started = Date.now();
    const team = await create("olivia", "team", "Roster Team");
    await Bun.sleep(3); // the roster is ordered by when each row was made
    await act("olivia", team, "invite", { userId: "bob", role: "admin" });
    await Bun.sleep(3);
    await act("olivia", team, "invite", { userId: "carol", role: "reader" });
    await act("carol", team, "accept");
    const { members } = await roster(team);
    expect(members.map(({ since: _s, ...m }) => m)).toEqual([
      { userId: "olivia", role: "owner", state: "active" },
      { userId: "bob", role: "admin", state: "invited" },
      { userId: "carol", role: "reader", state: "active" },
    ]);
    for (const m of members) {
      expect(m.since).toMatch(ISO);
      expect(Date.parse(m.since)).toBeGreaterThanOrEqual(started - 5);
      expect(Date.parse(m.since)).toBeLessThanOrEqual(Date.now());
    }
    // The same members the owner sees through the public API.
    const pub = await as<{ members: Array<{ userId: string; state: string }> }>(
      "olivia",
      `/v1/resources/${team}/members`,
    );
    expect(pub.body.members.map((m) => m.userId).sort()).toEqual(members.map((m) => m.userId).sort());

    const missing = await admin("/admin/v1/resources/0190d7a0-0000-7000-8000-00000000beef/members");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "not_found", error: expect.any(String) });
  });

  test("the `_app` roster holds every consented user as an active writer", async () => {
    const app = (
      await admin<{ resources: AdminResource[] }>("/admin/v1/resources?type=_app")
    ).body.resources.find((r) => r.appId === "test")!;
    const { members } = await roster(app.id);
    expect(members.map(({ since: _s, ...m }) => m).sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
      { userId: "bob", role: "writer", state: "active" },
      { userId: "carol", role: "writer", state: "active" },
      { userId: "olivia", role: "writer", state: "active" },
    ]);
  });
});
