/**
 * A user's data export (issue 16, item 7): `GET /v1/me/export` for the user and
 * `GET /admin/v1/users/:id/export` for operators give the same document, with every section filled for
 * a user who has memberships in each state, pending invites and ownership offers both ways, credits,
 * linked, hidden and retained rows, and audit events; nothing of anyone else's; and no token, token
 * hash or cookie anywhere in it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { grantWelcomeCredit } from "../../src/server/credits/ledger.ts";
import { expectError, type Json, makeKit, TEST_APPS } from "../helpers/resources-kit.ts";

const ADMIN_TOKEN = "export-admin-token";
const APPS: AppsFile = {
  apps: [
    {
      ...TEST_APPS.apps[0]!,
      sharedTables: { photos: { onMemberRemove: "retain" }, posts: { onMemberRemove: "hide" } },
    },
    ...TEST_APPS.apps.slice(1),
  ],
};
const k = await makeKit(APPS, { ADMIN_TOKEN });
afterAll(() => k.gw.gateway.close());

const admin = async (method: string, path: string, body?: unknown) => {
  const res = await k.gw.admin(path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};
const link = (resourceId: string, table: string, rowId: string, userId: string, data?: unknown) =>
  admin("POST", "/admin/v1/data/links", { resourceId, table, rowId, userId, data });

const U = "ex-u";
const TOKENS = { access: `at-secret-${crypto.randomUUID()}`, refresh: `rt-secret-${crypto.randomUUID()}` };
let cookie = "";
const ids: Record<string, string> = {};

beforeAll(async () => {
  // A session whose tokens we know, and a second one that has ended.
  const started = await k.gw.gateway.sessions.start(
    {
      accessToken: TOKENS.access,
      refreshToken: TOKENS.refresh,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    U,
    "web",
  );
  cookie = `${k.gw.gateway.sessions.cookieName}=${started.sealed}`;
  await k.users(U, "ex-other");
  // Owned, with a pending offer made by U and a pending invite sent by U.
  ids.owned = (await k.create(U, "team", "U's team")).id;
  await k.addMember(U, ids.owned, "ex-m", "writer");
  await k.post(U, `/v1/resources/${ids.owned}/transferOwnership`, { userId: "ex-m" });
  await k.post(U, `/v1/resources/${ids.owned}/invite`, { userId: "ex-invitee", role: "reader" });
  // Active member (as admin), with an offer made to U.
  ids.member = (await k.create("ex-o", "team", "Someone's team")).id;
  await k.addMember("ex-o", ids.member, U, "admin");
  await k.post("ex-o", `/v1/resources/${ids.member}/transferOwnership`, { userId: U });
  // Invited to one, asked to join another.
  ids.invited = (await k.create("ex-o", "project", "A project")).id;
  await k.post("ex-o", `/v1/resources/${ids.invited}/invite`, { userId: U });
  ids.requested = (await k.create("ex-o", "team", "Asked")).id;
  await k.post(U, `/v1/resources/${ids.requested}/request`, { role: "reader" });
  // Linked rows: two tables in a public board; then rows retained from a board U left.
  ids.board = (await k.create("ex-o", "board", "Board")).id;
  expect((await link(ids.board, "posts", "post-1", U, { text: "hello" })).status).toBe(200);
  expect((await link(ids.board, "photos", "photo-1", U)).status).toBe(200);
  expect((await link(ids.board, "posts", "post-other", "ex-other")).status).toBe(200);
  ids.left = (await k.create("ex-o", "board", "Left board")).id;
  expect((await link(ids.left, "photos", "photo-kept", U, { caption: "kept" })).status).toBe(200);
  expect((await k.post(U, `/v1/resources/${ids.left}/leave`)).status).toBe(200);
  expect(await grantWelcomeCredit(k.gw.gateway.storage, k.gw.gateway.deleted, U, 5_000_000)).toBe(true);
  expect(await grantWelcomeCredit(k.gw.gateway.storage, k.gw.gateway.deleted, "ex-other", 5_000_000)).toBe(
    true,
  );
  // The kit's session for U (not the one whose cookie this file uses) ends by an operator's revoke.
  const kitSession = await k.db.get(
    "SELECT id FROM sessions WHERE user_id = ? AND id <> ?",
    U,
    started.row.id,
  );
  expect(await k.gw.gateway.sessions.revoke(kitSession!.id, "admin")).toBeTruthy();
}, 60_000);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("GET /v1/me/export and GET /admin/v1/users/:id/export", () => {
  test("every section is present and filled for a user with memberships, pending rows, links and credits", async () => {
    const reply = await k.raw("/v1/me/export", { headers: { cookie } });
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(Object.keys(doc).sort()).toEqual(
      [
        "userId",
        "exportedAt",
        "sessions",
        "memberships",
        "resourcesOwned",
        "invitesSent",
        "ownershipOffers",
        "credits",
        "links",
        "retained",
        "events",
      ].sort(),
    );
    expect(doc.userId).toBe(U);
    expect(doc.exportedAt).toMatch(ISO);
    // Sessions: both, one ended by the operator; times only.
    expect(doc.sessions.length).toBe(2);
    for (const s of doc.sessions)
      expect(Object.keys(s).sort()).toEqual(
        ["id", "clientId", "createdAt", "lastSeenAt", "expiresAt", "endedAt", "endReason"].sort(),
      );
    expect(doc.sessions.map((s: Json) => s.endReason).sort()).toEqual([null, "revoked"].sort());
    // Memberships in each state, with roles.
    const byResource = Object.fromEntries(
      doc.memberships.map((m: Json) => [m.resourceId, `${m.state} ${m.role}`]),
    );
    expect(byResource).toEqual({
      [ids.owned!]: "active owner",
      [ids.member!]: "active admin",
      [ids.invited!]: "invited reader",
      [ids.requested!]: "requested reader",
      [ids.board!]: "active writer",
    });
    expect(doc.memberships.find((m: Json) => m.resourceId === ids.invited)).toMatchObject({
      invitedBy: "ex-o",
      type: "project",
      name: "A project",
      appId: "main",
    });
    expect(doc.resourcesOwned).toEqual([
      {
        id: ids.owned,
        appId: "main",
        type: "team",
        name: "U's team",
        memberCount: 2,
        createdAt: expect.stringMatching(ISO),
      },
    ]);
    expect(doc.invitesSent).toEqual([
      { resourceId: ids.owned, userId: "ex-invitee", role: "reader", createdAt: expect.stringMatching(ISO) },
    ]);
    expect(doc.ownershipOffers).toEqual({
      received: [{ resourceId: ids.member, offeredBy: "ex-o", createdAt: expect.stringMatching(ISO) }],
      made: [{ resourceId: ids.owned, userId: "ex-m", createdAt: expect.stringMatching(ISO) }],
    });
    expect(doc.credits).toEqual({
      balanceUsd: 5,
      entries: [{ kind: "welcome", amountUsd: 5, createdAt: expect.stringMatching(ISO) }],
    });
    // Linked rows per resource and table: U's only.
    expect(doc.links).toEqual([
      {
        resourceId: ids.board,
        table: "photos",
        rows: [{ rowId: "photo-1", hidden: false, data: null, createdAt: expect.stringMatching(ISO) }],
      },
      {
        resourceId: ids.board,
        table: "posts",
        rows: [
          { rowId: "post-1", hidden: false, data: { text: "hello" }, createdAt: expect.stringMatching(ISO) },
        ],
      },
    ]);
    expect(doc.retained).toEqual([
      {
        resourceId: ids.left,
        table: "photos",
        rowId: "photo-kept",
        data: { caption: "kept" },
        createdAt: expect.stringMatching(ISO),
      },
    ]);
    // The audit events about U, as subject or actor, oldest first; none about others only.
    const types = doc.events.map((e: Json) => e.type);
    for (const type of [
      "session.created",
      "session.ended",
      "resource.created",
      "member.invited",
      "member.accepted",
      "member.requested",
      "member.auto_joined",
      "member.left",
      "ownership.offered",
      "credit.welcome",
    ])
      expect(types).toContain(type);
    for (const e of doc.events) expect(e.userId === U || e.actor === U).toBe(true);
    expect(doc.events.map((e: Json) => e.id)).toEqual(
      [...doc.events.map((e: Json) => e.id)].sort((a: number, b: number) => a - b),
    );
    expect(JSON.stringify(doc)).not.toContain("ex-other");
  });

  test("no token, token hash, sealed value or cookie anywhere in it", async () => {
    const reply = await k.raw("/v1/me/export", { headers: { cookie } });
    const secrets = [TOKENS.access, TOKENS.refresh, cookie.split("=")[1]!];
    const rows = await k.db.all(
      "SELECT refresh_hash, refresh_sealed, previous_refresh_hash, current_cookie FROM sessions WHERE user_id = ?",
      U,
    );
    for (const row of rows)
      for (const value of Object.values(row)) if (typeof value === "string") secrets.push(value);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const secret of secrets) expect(reply.text).not.toContain(secret);
    expect(reply.text).not.toMatch(/token|refresh_|cookie|sealed/i);
  });

  test("the operator's export of that user is the same document", async () => {
    const mine = (await k.raw("/v1/me/export", { headers: { cookie } })).body;
    const theirs = await admin("GET", `/admin/v1/users/${U}/export`);
    expect(theirs.status).toBe(200);
    expect({ ...theirs.body, exportedAt: null }).toEqual({ ...mine, exportedAt: null });
  });

  test("a user the service knows nothing about: every section empty", async () => {
    const reply = await admin("GET", "/admin/v1/users/ex-nobody/export");
    expect(reply.status).toBe(200);
    expect({ ...reply.body, exportedAt: null }).toEqual({
      userId: "ex-nobody",
      exportedAt: null,
      sessions: [],
      memberships: [],
      resourcesOwned: [],
      invitesSent: [],
      ownershipOffers: { received: [], made: [] },
      credits: { balanceUsd: 0, entries: [] },
      links: [],
      retained: [],
      events: [],
    });
  });

  test("refusals: no credential 401, no admin token 401, a control character in the id 400", async () => {
    expectError(await k.raw("/v1/me/export"), 401, "unauthenticated");
    const res = await k.gw.admin(`/admin/v1/users/${U}/export`);
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("unauthenticated");
    const bad = await admin("GET", "/admin/v1/users/ex%00u/export");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
  });
});
