/**
 * Membership under real concurrency, over real sockets on 127.0.0.1: the 50-pending-invites cap per
 * inviter per app, 100 simultaneous joins, and join/leave storms. Every request is a real fetch fired
 * at once (Promise.all); the single serialized writer (BEGIN IMMEDIATE) must keep every invariant.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const APP = "conc";
const CLIENT = "conc-web";
const apps: AppsFile = {
  apps: [
    {
      id: APP,
      clients: [{ clientId: CLIENT, redirectUris: ["http://127.0.0.1:5999/callback"] }],
      types: { team: { visibility: "members" }, room: { visibility: "discoverable" } },
    },
    {
      id: "other",
      clients: [{ clientId: "other-web", redirectUris: ["http://127.0.0.1:5998/callback"] }],
      types: { team: { visibility: "members" } },
    },
  ],
};

let running: RunningGateway;
let url: string;

beforeAll(async () => {
  running = await startGateway({
    config: loadConfig({
      PORT: String(freePort()),
      ADMIN_PORT: String(freePort()),
      ...(await databaseEnv(tempDir(), "g.db")),
      COOKIE_SECURE: "false",
      ADMIN_TOKEN: "t",
    }),
    apps,
    log: () => {},
  });
  url = running.publicUrl;
}, 60_000);
afterAll(() => running.stop());

/** Headers carrying a real sealed session cookie for `userId` (what POST /auth/token would set). */
async function session(userId: string, clientId = CLIENT): Promise<Record<string, string>> {
  const { sealed } = await running.gateway.sessions.start(
    {
      accessToken: `at-${userId}-${crypto.randomUUID()}`,
      refreshToken: `rt-${crypto.randomUUID()}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    userId,
    clientId,
  );
  return {
    cookie: `${running.gateway.sessions.cookieName}=${sealed}`,
    "x-service-csrf": "1",
    "content-type": "application/json",
  };
}

const sessions = (prefix: string, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => session(`${prefix}${i}`)));

async function call(
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function create(headers: Record<string, string>, type: string, name: string): Promise<string> {
  const res = await call(headers, "POST", "/v1/resources", { type, name });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

const one = async <T>(text: string, ...params: Array<string | number>): Promise<T> =>
  (await sql(running.gateway.storage).get(text, ...params)) as T;
const count = async (text: string, ...params: Array<string | number>) =>
  sql(running.gateway.storage).count(text, ...params);

/** The invariants that must hold for any resource at rest. */
async function expectConsistent(resourceId: string, ownerId: string) {
  const owners = (await sql(running.gateway.storage).all(
    "SELECT user_id AS userId FROM members WHERE resource_id = ? AND role = 'owner'",
    resourceId,
  )) as Array<{ userId: string }>;
  expect(owners).toEqual([{ userId: ownerId }]);
  expect(
    await count(
      "SELECT count(*) AS n FROM (SELECT user_id FROM members WHERE resource_id = ? GROUP BY user_id HAVING count(*) > 1) AS d",
      resourceId,
    ),
  ).toBe(0);
  const stored = (
    await one<{ member_count: number }>("SELECT member_count FROM resources WHERE id = ?", resourceId)
  ).member_count;
  expect(stored).toBe(
    await count("SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'active'", resourceId),
  );
  return stored;
}

const events = async (resourceId: string, type: string) =>
  await count("SELECT count(*) AS n FROM events WHERE resource_id = ? AND type = ?", resourceId, type);

const tally = (results: Array<{ status: number }>) => {
  const out: Record<number, number> = {};
  for (const r of results) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
};

describe("pending-invite cap under 60 simultaneous invites", () => {
  test("exactly 50 succeed, 10 get 429 too_many_pending_invites; the cap frees up after an accept", async () => {
    const admin = await session("cap-admin");
    const resources = [
      await create(admin, "team", "Cap A"),
      await create(admin, "team", "Cap B"),
      await create(admin, "room", "Cap C"),
    ];
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call(admin, "POST", `/v1/resources/${resources[i % 3]}/invite`, { userId: `cap-user-${i}` }),
      ),
    );
    expect(tally(results)).toEqual({ 200: 50, 429: 10 });
    for (const r of results) {
      if (r.status === 200) expect(r.body).toEqual({ ok: true, state: "invited" });
      else expect(r.body).toMatchObject({ code: "too_many_pending_invites", error: expect.any(String) });
    }
    expect(
      await count(
        "SELECT count(*) AS n FROM members WHERE app_id = ? AND invited_by = ? AND state = 'invited'",
        APP,
        "cap-admin",
      ),
    ).toBe(50);
    expect(await count("SELECT count(*) AS n FROM members WHERE state = 'invited'")).toBe(50);
    expect(
      await count("SELECT count(*) AS n FROM events WHERE type = 'member.invited' AND actor = 'cap-admin'"),
    ).toBe(50);

    // Still capped: one more (sequential) invite is refused, on any resource of the app.
    const extra = await create(admin, "team", "Cap D");
    const refused = await call(admin, "POST", `/v1/resources/${extra}/invite`, { userId: "cap-late" });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("too_many_pending_invites");

    // The cap is per inviter: another admin in the same app invites freely.
    const second = await session("cap-admin-2");
    const theirs = await create(second, "team", "Cap E");
    expect((await call(second, "POST", `/v1/resources/${theirs}/invite`, { userId: "cap-x" })).status).toBe(
      200,
    );

    // ...and per app: the same user id in another app is not capped by the first app's invites.
    const elsewhere = await session("cap-admin", "other-web");
    const otherRes = await create(elsewhere, "team", "Other app");
    expect(
      (await call(elsewhere, "POST", `/v1/resources/${otherRes}/invite`, { userId: "cap-y" })).status,
    ).toBe(200);

    // One invitee accepts: the admin may invite exactly one more.
    const invited = await one<{ resource_id: string; user_id: string }>(
      "SELECT resource_id, user_id FROM members WHERE invited_by = 'cap-admin' AND app_id = ? AND state = 'invited' LIMIT 1",
      APP,
    );
    const invitee = await session(invited.user_id);
    const accepted = await call(invitee, "POST", `/v1/resources/${invited.resource_id}/accept`);
    expect(accepted).toEqual({ status: 200, body: { ok: true, state: "active" } });
    const [a, b] = await Promise.all([
      call(admin, "POST", `/v1/resources/${extra}/invite`, { userId: "cap-late" }),
      call(admin, "POST", `/v1/resources/${extra}/invite`, { userId: "cap-later" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    expect(
      await count(
        "SELECT count(*) AS n FROM members WHERE app_id = ? AND invited_by = 'cap-admin' AND state = 'invited'",
        APP,
      ),
    ).toBe(50);
    for (const id of resources) await expectConsistent(id, "cap-admin");
  });
});

describe("100 simultaneous joins of one discoverable resource", () => {
  test("all answer 200; memberCount is exactly 101 and agrees with the active rows", async () => {
    const owner = await session("join-owner");
    const id = await create(owner, "room", "Popular room");
    const joiners = await sessions("joiner-", 100);
    const results = await Promise.all(joiners.map((h) => call(h, "POST", `/v1/resources/${id}/join`)));
    expect(tally(results)).toEqual({ 200: 100 });
    for (const r of results) expect(r.body).toEqual({ ok: true, state: "active", joined: true });

    const view = await call(owner, "GET", `/v1/resources/${id}`);
    expect(view.status).toBe(200);
    expect(view.body.memberCount).toBe(101);
    expect(await expectConsistent(id, "join-owner")).toBe(101);
    expect(await events(id, "member.joined")).toBe(100);
    const roles = await sql(running.gateway.storage).all(
      "SELECT role, count(*) AS n FROM members WHERE resource_id = ? GROUP BY role ORDER BY role",
      id,
    );
    expect(roles).toEqual([
      { role: "owner", n: 1 },
      { role: "writer", n: 100 },
    ]);
    const roster = await call(owner, "GET", `/v1/resources/${id}/members`);
    expect(roster.body.members).toHaveLength(101);
    expect(new Set(roster.body.members.map((m: { userId: string }) => m.userId)).size).toBe(101);
  });
});

describe("join and leave storms", () => {
  test("50 users join/leave/join/leave while one user joins 20 times at once and the owner tries to leave", async () => {
    const owner = await session("storm-owner");
    const id = await create(owner, "room", "Stormy");
    const users = await sessions("storm-", 50);
    const repeat = await session("storm-repeat");
    const ownerSnapshots: number[] = [];
    let storming = true;
    const watcher = (async () => {
      while (storming) {
        const roster = await call(owner, "GET", `/v1/resources/${id}/members`);
        const members = roster.body.members as Array<{ userId: string; role: string }>;
        ownerSnapshots.push(members.filter((m) => m.role === "owner").length);
        expect(new Set(members.map((m) => m.userId)).size).toBe(members.length);
      }
    })();
    const cycles = users.map(async (h) => {
      const out: number[] = [];
      for (const path of ["join", "leave", "join", "leave"])
        out.push((await call(h, "POST", `/v1/resources/${id}/${path}`)).status);
      return out;
    });
    const repeats = Array.from({ length: 20 }, () => call(repeat, "POST", `/v1/resources/${id}/join`));
    const ownerLeaves = Array.from({ length: 5 }, () => call(owner, "POST", `/v1/resources/${id}/leave`));
    const [cycleResults, repeatResults, ownerResults] = await Promise.all([
      Promise.all(cycles),
      Promise.all(repeats),
      Promise.all(ownerLeaves),
    ]);
    storming = false;
    await watcher;

    for (const statuses of cycleResults) expect(statuses).toEqual([200, 200, 200, 200]);
    expect(tally(repeatResults)).toEqual({ 200: 20 });
    for (const r of ownerResults)
      expect(r).toMatchObject({ status: 403, body: { code: "owner_cannot_leave" } });
    expect(ownerSnapshots.length).toBeGreaterThan(0);
    expect(new Set(ownerSnapshots)).toEqual(new Set([1]));

    expect(await expectConsistent(id, "storm-owner")).toBe(2); // the owner + storm-repeat
    expect(await events(id, "member.joined")).toBe(100 + 1); // a repeated join changes nothing and logs nothing
    expect(await events(id, "member.left")).toBe(100);
    const view = await call(owner, "GET", `/v1/resources/${id}`);
    expect(view.body.memberCount).toBe(2);
  });

  test("unordered storm: join, leave and join fired at once per user keep the counts honest", async () => {
    const owner = await session("chaos-owner");
    const id = await create(owner, "room", "Chaos");
    const users = await sessions("chaos-", 40);
    const ops = users.flatMap((h) =>
      ["join", "leave", "join", "leave", "join"].map((op) =>
        call(h, "POST", `/v1/resources/${id}/${op}`).then((r) => ({ op, ...r })),
      ),
    );
    const results = await Promise.all(ops);
    for (const r of results) {
      if (r.op === "join") expect(r.status).toBe(200);
      else expect([200, 404]).toContain(r.status);
      if (r.status === 404) expect(r.body.code).toBe("not_a_member");
    }
    const leaves = results.filter((r) => r.op === "leave" && r.status === 200).length;
    const active = await expectConsistent(id, "chaos-owner");
    expect(await events(id, "member.left")).toBe(leaves);
    // Every real join is logged once; what is still active is what joined minus what left.
    expect((await events(id, "member.joined")) - (await events(id, "member.left"))).toBe(active - 1);
    const view = await call(owner, "GET", `/v1/resources/${id}`);
    expect(view.body.memberCount).toBe(active);
  });
});
