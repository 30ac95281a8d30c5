/**
 * The data seam over real sockets (the onMemberRemove policies): rows linked through
 * `POST /admin/v1/data/links`, then each shared table's policy applied on leave and on removal by an
 * admin; the resource-delete cascade; and the seam's write check: auto-join of a non-member of a
 * public resource, refusals for pending callers and members-only resources, reads that never join.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, failWrites, sql } from "../helpers/db.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const CLIENT = "seam-web";
const apps: AppsFile = {
  apps: [
    {
      id: "seam",
      clients: [{ clientId: CLIENT, redirectUris: ["http://127.0.0.1:5999/callback"] }],
      types: {
        room: { visibility: "discoverable" },
        board: { visibility: "unlisted", defaultRole: "reader" },
        team: { visibility: "members" },
      },
      sharedTables: {
        notes: { onMemberRemove: "remove" },
        posts: { onMemberRemove: "hide" },
        photos: { onMemberRemove: "retain" },
      },
    },
  ],
};

let running: RunningGateway;
let url: string;
let adminUrl: string;

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
  adminUrl = running.adminUrl;
}, 60_000);
afterAll(() => running.stop());

async function session(userId: string): Promise<Record<string, string>> {
  const { sealed } = await running.gateway.sessions.start(
    {
      accessToken: `at-${userId}-${crypto.randomUUID()}`,
      refreshToken: `rt-${crypto.randomUUID()}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    userId,
    CLIENT,
  );
  return {
    cookie: `${running.gateway.sessions.cookieName}=${sealed}`,
    "x-service-csrf": "1",
    "content-type": "application/json",
  };
}

type Reply = { status: number; body: any };
async function send(
  base: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() } as Reply;
}
const api = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
  send(url, headers, method, path, body);
const admin = (method: string, path: string, body?: unknown) =>
  send(adminUrl, { authorization: "Bearer t", "content-type": "application/json" }, method, path, body);

const link = (resourceId: string, userId: string, table: string, rowId: string, data?: unknown) =>
  admin("POST", "/admin/v1/data/links", { resourceId, table, rowId, userId, data });
const linksOf = async (resourceId: string) => {
  const res = await admin("GET", `/admin/v1/data/links?resourceId=${resourceId}`);
  expect(res.status).toBe(200);
  return res.body as {
    links: Array<{ table: string; rowId: string; contributorId: string; hidden: boolean }>;
    retained: Array<{ table: string; rowId: string; fromUserId: string; data: unknown }>;
  };
};
const byRow = <T extends { table: string; rowId: string }>(rows: T[]) =>
  [...rows].sort((a, b) => `${a.table}/${a.rowId}`.localeCompare(`${b.table}/${b.rowId}`));

async function create(headers: Record<string, string>, type: string, name: string): Promise<string> {
  const res = await api(headers, "POST", "/v1/resources", { type, name });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

/** A room owned by `owner` where `member` has linked one row into each shared table. */
async function roomWithContributions(tag: string) {
  const owner = await session(`${tag}-owner`);
  const member = await session(`${tag}-member`);
  const id = await create(owner, "room", `Policies ${tag}`);
  expect((await api(member, "POST", `/v1/resources/${id}/join`)).status).toBe(200);
  for (const [table, rowId, data] of [
    ["notes", "n1", { text: "a note" }],
    ["posts", "p1", { title: "a post" }],
    ["photos", "f1", { src: "cat.png", w: 640 }],
  ] as const) {
    expect((await link(id, `${tag}-member`, table, rowId, data)).body).toEqual({ ok: true, joined: false });
  }
  // The owner's own contributions are never touched by someone else's departure.
  for (const table of ["notes", "posts", "photos"])
    expect((await link(id, `${tag}-owner`, table, `own-${table}`)).status).toBe(200);
  return { owner, member, id, memberId: `${tag}-member`, ownerId: `${tag}-owner` };
}

const P1 = (memberId: string, hidden: boolean) => ({
  table: "posts",
  rowId: "p1",
  contributorId: memberId,
  hidden,
});
const F1 = (fromUserId: string) => ({
  table: "photos",
  rowId: "f1",
  fromUserId,
  data: { src: "cat.png", w: 640 },
});
const ownerLinks = (ownerId: string) =>
  ["notes", "photos", "posts"].map((table) => ({
    table,
    rowId: `own-${table}`,
    contributorId: ownerId,
    hidden: false,
  }));

describe.each([
  ["leaves", "leave"],
  ["is removed by the owner", "remove-owner"],
  ["is removed by an admin", "remove-admin"],
] as const)("onMemberRemove when a member %s", (_label, how) => {
  async function depart(ctx: Awaited<ReturnType<typeof roomWithContributions>>, tag: string) {
    if (how === "leave") return api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`);
    if (how === "remove-owner")
      return api(ctx.owner, "POST", `/v1/resources/${ctx.id}/remove`, { userId: ctx.memberId });
    const adminUser = await session(`${tag}-admin`);
    const invite = { userId: `${tag}-admin`, role: "admin" };
    expect((await api(ctx.owner, "POST", `/v1/resources/${ctx.id}/invite`, invite)).status).toBe(200);
    expect((await api(adminUser, "POST", `/v1/resources/${ctx.id}/accept`)).status).toBe(200);
    return api(adminUser, "POST", `/v1/resources/${ctx.id}/remove`, { userId: ctx.memberId });
  }

  test("remove drops links, hide soft-hides, retain copies with the data given at link time", async () => {
    const tag = `pol-${how}`;
    const ctx = await roomWithContributions(tag);
    const before = await linksOf(ctx.id);
    expect(before.links).toHaveLength(6);
    expect(before.retained).toEqual([]);

    expect(await depart(ctx, tag)).toEqual({ status: 200, body: { ok: true } });
    const after = await linksOf(ctx.id);
    expect(byRow(after.links)).toEqual(byRow([...ownerLinks(ctx.ownerId), P1(ctx.memberId, true)]));
    expect(after.retained).toEqual([F1(ctx.memberId)]);
    expect(await memberRow(ctx.id, ctx.memberId)).toBeNull();
  });

  test("after the member rejoins: hidden rows come back, removed ones do not, retained copies stay the resource's", async () => {
    const tag = `rejoin-${how}`;
    const ctx = await roomWithContributions(tag);
    expect((await depart(ctx, tag)).status).toBe(200);
    expect(await api(ctx.member, "POST", `/v1/resources/${ctx.id}/join`)).toEqual({
      status: 200,
      body: { ok: true, state: "active", joined: true },
    });
    const back = await linksOf(ctx.id);
    expect(byRow(back.links)).toEqual(byRow([...ownerLinks(ctx.ownerId), P1(ctx.memberId, false)]));
    expect(back.retained).toEqual([F1(ctx.memberId)]);

    // A second departure copies only what was linked since: the first copy is not made twice.
    expect((await link(ctx.id, ctx.memberId, "photos", "f2", { src: "dog.png" })).body).toEqual({
      ok: true,
      joined: false,
    });
    expect((await api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`)).status).toBe(200);
    const again = await linksOf(ctx.id);
    const f2 = { table: "photos", rowId: "f2", fromUserId: ctx.memberId, data: { src: "dog.png" } };
    expect(again.retained).toEqual([F1(ctx.memberId), f2]);
    expect(again.links.find((l) => l.rowId === "p1")).toEqual(P1(ctx.memberId, true));
  });
});

describe("policies and rejoin paths", () => {
  test("a rejoin through an auto-joining link also unhides the member's rows", async () => {
    const ctx = await roomWithContributions("autorejoin");
    expect((await api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`)).status).toBe(200);
    expect((await link(ctx.id, ctx.memberId, "notes", "n2")).body).toEqual({ ok: true, joined: true });
    const now = await linksOf(ctx.id);
    expect(now.links.find((l) => l.rowId === "p1")?.hidden).toBe(false);
    expect(now.links.map((l) => l.rowId)).not.toContain("n1");
    expect(now.links.map((l) => l.rowId)).toContain("n2");
  });

  test("pending users withdrawing or cancelled apply no policy; an unconfigured table defaults to remove", async () => {
    const ctx = await roomWithContributions("pending");
    expect((await link(ctx.id, ctx.memberId, "misc", "m1")).status).toBe(200);
    await api(ctx.owner, "POST", `/v1/resources/${ctx.id}/invite`, { userId: "pending-guest" });
    const cancel = await api(ctx.owner, "POST", `/v1/resources/${ctx.id}/remove`, {
      userId: "pending-guest",
    });
    expect(cancel.status).toBe(200);
    // A requester withdraws by leaving, even from a members-only resource.
    const team = await create(ctx.owner, "team", "Closed");
    const requester = await session("pending-req");
    expect((await api(requester, "POST", `/v1/resources/${team}/request`)).status).toBe(200);
    expect(await api(requester, "POST", `/v1/resources/${team}/leave`)).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect((await linksOf(ctx.id)).links).toHaveLength(7);
    expect((await api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`)).status).toBe(200);
    expect((await linksOf(ctx.id)).links.map((l) => l.rowId)).not.toContain("m1");
  });

  test("deleting the resource drops its links and retained copies", async () => {
    const ctx = await roomWithContributions("delete");
    expect((await api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`)).status).toBe(200);
    expect((await linksOf(ctx.id)).retained).toHaveLength(1);
    const deleted = await api(ctx.owner, "DELETE", `/v1/resources/${ctx.id}`);
    expect(deleted).toEqual({ status: 200, body: { ok: true } });
    const gone = await admin("GET", `/admin/v1/data/links?resourceId=${ctx.id}`);
    expect(gone).toMatchObject({ status: 404, body: { code: "not_found" } });
    // A link against the deleted resource is a 404 and stores nothing.
    expect((await link(ctx.id, ctx.ownerId, "notes", "late")).status).toBe(404);
    for (const table of ["resource_links", "retained_rows", "members"])
      expect(await rowsFor(table, ctx.id)).toBe(0);
  });

  test("10 simultaneous leaves of one member: one succeeds, the policy runs once", async () => {
    const ctx = await roomWithContributions("leave-race");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(404)]);
    const after = await linksOf(ctx.id);
    expect(after.retained).toHaveLength(1);
    expect(after.links.filter((l) => l.contributorId === ctx.memberId)).toEqual([P1(ctx.memberId, true)]);
  });

  test("links racing leaves: a visible link always belongs to an active member", async () => {
    const owner = await session("race-owner");
    const id = await create(owner, "room", "Race");
    const users = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    const heads = await Promise.all(users.map((u) => session(u)));
    const results = await Promise.all(
      users.flatMap((u, i) => [
        link(id, u, "posts", `post-${u}`),
        api(heads[i]!, "POST", `/v1/resources/${id}/leave`),
        link(id, u, "photos", `photo-${u}`, { n: i }),
        link(id, u, "notes", `note-${u}`),
        api(heads[i]!, "POST", `/v1/resources/${id}/leave`),
      ]),
    );
    expect(results.every((r) => r.status === 200 || r.body.code === "not_a_member")).toBe(true);
    const { links, retained } = await linksOf(id);
    for (const l of links.filter((x) => !x.hidden))
      expect(await memberState(id, l.contributorId)).toBe("active");
    for (const l of links.filter((x) => x.hidden)) {
      expect(l.table).toBe("posts");
      expect(await memberState(id, l.contributorId)).toBeNull();
    }
    for (const r of retained) expect(r.table).toBe("photos");
    const states = await Promise.all(users.map((u) => memberState(id, u)));
    const active = states.filter((state) => state === "active").length;
    expect(await memberCount(owner, id)).toBe(active + 1);
  });
});

const rowsFor = async (table: string, resourceId: string) =>
  (
    (await sql(running.gateway.storage).get(
      `SELECT count(*) AS n FROM ${table} WHERE resource_id = ?`,
      resourceId,
    )) as {
      n: number;
    }
  ).n;
const memberRow = async (resourceId: string, userId: string) =>
  (await sql(running.gateway.storage).get(
    "SELECT role, state FROM members WHERE resource_id = ? AND user_id = ?",
    resourceId,
    userId,
  )) as { role: string; state: string } | null;
const memberState = async (resourceId: string, userId: string) =>
  (await memberRow(resourceId, userId))?.state ?? null;
const eventCount = async (resourceId: string, type: string, userId: string) =>
  (
    (await sql(running.gateway.storage).get(
      "SELECT count(*) AS n FROM events WHERE resource_id = ? AND type = ? AND user_id = ?",
      resourceId,
      type,
      userId,
    )) as { n: number }
  ).n;
const memberCount = async (headers: Record<string, string>, id: string) => {
  const res = await api(headers, "GET", `/v1/resources/${id}`);
  expect(res.status).toBe(200);
  return res.body.memberCount as number;
};
describe.each([
  ["a link", "link"],
  ["authorize-write alone", "authorize"],
] as const)("the seam's write check through %s", (_label, via) => {
  const write = (resourceId: string, userId: string, rowId: string) =>
    via === "link"
      ? link(resourceId, userId, "notes", rowId, { by: userId })
      : admin("POST", "/admin/v1/data/authorize-write", { resourceId, userId });
  const linked = async (resourceId: string, userId: string) =>
    (await linksOf(resourceId)).links.filter((l) => l.contributorId === userId).length;

  test.each([
    ["discoverable", "room", "writer"],
    ["unlisted", "board", "reader"],
  ] as const)(
    "a non-member of a %s resource auto-joins at the type's defaultRole, once",
    async (_v, type, role) => {
      const owner = await session(`aj-${via}-${type}-owner`);
      const id = await create(owner, type, `Auto ${type}`);
      const user = `aj-${via}-${type}-user`;
      expect(await memberCount(owner, id)).toBe(1);
      const first = await write(id, user, "r1");
      expect(first).toEqual({
        status: 200,
        body: via === "link" ? { ok: true, joined: true } : { allowed: true, role, joined: true },
      });
      expect(await memberRow(id, user)).toEqual({ role, state: "active" });
      expect(await memberCount(owner, id)).toBe(2);
      expect(await eventCount(id, "member.auto_joined", user)).toBe(1);
      const second = await write(id, user, "r2");
      expect(second).toEqual({
        status: 200,
        body: via === "link" ? { ok: true, joined: false } : { allowed: true, role, joined: false },
      });
      expect(await memberCount(owner, id)).toBe(2);
      expect(await eventCount(id, "member.auto_joined", user)).toBe(1);
      expect(await linked(id, user)).toBe(via === "link" ? 2 : 0);
      // The owner writes as the owner and never "joins".
      expect((await write(id, `aj-${via}-${type}-owner`, "r3")).body).toMatchObject({ joined: false });
    },
  );

  test("20 simultaneous first writes by one non-member join exactly once", async () => {
    const owner = await session(`race1-${via}-owner`);
    const id = await create(owner, "room", "Race once");
    const user = `race1-${via}-user`;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => write(id, user, `row-${i}`)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.joined === true)).toHaveLength(1);
    expect(await memberCount(owner, id)).toBe(2);
    expect(await eventCount(id, "member.auto_joined", user)).toBe(1);
  });

  test("a pending (invited or requested) user is refused 403 pending_membership; nothing is linked or joined", async () => {
    const owner = await session(`pend-${via}-owner`);
    const id = await create(owner, "room", "Pending");
    const invited = `pend-${via}-invited`;
    const requester = `pend-${via}-requester`;
    expect((await api(owner, "POST", `/v1/resources/${id}/invite`, { userId: invited })).status).toBe(200);
    expect((await api(await session(requester), "POST", `/v1/resources/${id}/request`)).status).toBe(200);
    for (const [user, state] of [
      [invited, "invited"],
      [requester, "requested"],
    ] as const) {
      const res = await write(id, user, "x");
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: "pending_membership", error: expect.any(String) });
      expect(await memberRow(id, user)).toEqual({ role: "writer", state });
      expect(await linked(id, user)).toBe(0);
      expect(await eventCount(id, "member.auto_joined", user)).toBe(0);
    }
    expect(await memberCount(owner, id)).toBe(1);
  });

  test("a non-member of a members-only resource is refused 403 forbidden; nothing is linked or joined", async () => {
    const owner = await session(`mo-${via}-owner`);
    const id = await create(owner, "team", "Members only");
    const user = `mo-${via}-user`;
    const res = await write(id, user, "x");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "forbidden" });
    expect(await memberRow(id, user)).toBeNull();
    expect(await linked(id, user)).toBe(0);
    expect(await memberCount(owner, id)).toBe(1);
    expect((await write(crypto.randomUUID(), user, "x")).status).toBe(404);
  });
});

test("reads never join: GET /:id and GET /:id/members by a non-member leave the resource unchanged", async () => {
  const owner = await session("reads-owner");
  const id = await create(owner, "room", "Read me");
  const reader = await session("reads-user");
  const view = await api(reader, "GET", `/v1/resources/${id}`);
  expect(view).toMatchObject({ status: 200, body: { id, memberCount: 1 } });
  expect((await api(reader, "GET", `/v1/resources/${id}/members`)).status).toBe(403);
  expect(await linksOf(id)).toEqual({ links: [], retained: [] });
  expect(await memberRow(id, "reads-user")).toBeNull();
  expect(await memberCount(owner, id)).toBe(1);
});

describe("ownership of a linked row never moves", () => {
  test("linking a row another member linked is 409 already_linked: its contributor, its policy and the auto-join stay as they were", async () => {
    const ctx = await roomWithContributions("relink");
    const before = await linksOf(ctx.id);
    // A non-member of this public room tries to take the member's post: the auto-join rolls back too.
    const taken = await link(ctx.id, "relink-thief", "posts", "p1", { title: "mine now" });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: "already_linked" });
    expect(await memberRow(ctx.id, "relink-thief")).toBeNull();
    // The owner (a member) cannot take it either.
    expect((await link(ctx.id, ctx.ownerId, "posts", "p1")).status).toBe(409);
    expect(await linksOf(ctx.id)).toEqual(before);
    // The member's own re-link is idempotent: same contributor, still one row.
    expect((await link(ctx.id, ctx.memberId, "posts", "p1", { title: "edited" })).status).toBe(200);
    expect((await linksOf(ctx.id)).links.filter((l) => l.rowId === "p1")).toEqual([P1(ctx.memberId, false)]);
    // So the member's `hide` policy still applies when they leave.
    expect((await api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`)).status).toBe(200);
    expect((await linksOf(ctx.id)).links.filter((l) => l.rowId === "p1")).toEqual([P1(ctx.memberId, true)]);
  });
});

describe("a membership change fails as a whole", () => {
  test("the seam failing during a leave (after the member row and the count changed) leaves nothing of it", async () => {
    const ctx = await roomWithContributions("partial");
    const links = await linksOf(ctx.id);
    const count = await memberCount(ctx.owner, ctx.id);
    const stored = () =>
      sql(running.gateway.storage).count("SELECT member_count AS n FROM resources WHERE id = ?", ctx.id);
    const storedBefore = await stored();
    // The `hide` policy's update is the last step of a leave: make it fail.
    const undo = await failWrites(
      running.gateway.storage,
      "fail_hide",
      "UPDATE OF hidden",
      "resource_links",
      "NEW.hidden = true",
    );
    try {
      const leave = await api(ctx.member, "POST", `/v1/resources/${ctx.id}/leave`);
      expect(leave.status).toBe(500);
      expect(leave.body).toMatchObject({ code: "internal" });
    } finally {
      await undo();
    }
    expect(await memberRow(ctx.id, ctx.memberId)).toEqual({ role: "writer", state: "active" });
    expect(await stored()).toBe(storedBefore);
    expect(await memberCount(ctx.owner, ctx.id)).toBe(count);
    expect(await linksOf(ctx.id)).toEqual(links);
    expect(await eventCount(ctx.id, "member.left", ctx.memberId)).toBe(0);
    expect(
      await sql(running.gateway.storage).count(
        "SELECT count(*) AS n FROM retained_rows WHERE resource_id = ?",
        ctx.id,
      ),
    ).toBe(0);
  });
});
