/**
 * Account deletion (issue 16, items 3–6) through the real handlers: `DELETE /admin/v1/users/:id` with
 * each onOwnerDelete policy seen through the data seam, owned resources passed on by the stated rule or
 * deleted, memberships, invites, offers and sessions ended with exact counts, the ledger and the audit
 * log pseudonymized, the user's cookie refused at once, a repeat that changes nothing, bad input that
 * changes nothing, and membership changes naming the deleted user refused afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { grantWelcomeCredit } from "../../src/server/credits/ledger.ts";
import { expectError, type Json, makeKit, TEST_APPS } from "../helpers/resources-kit.ts";

const ADMIN_TOKEN = "deletion-admin-token";
const APPS: AppsFile = {
  apps: [
    {
      ...TEST_APPS.apps[0]!,
      sharedTables: {
        notes: { onOwnerDelete: "remove", onMemberRemove: "hide" },
        photos: { onOwnerDelete: "tombstone" },
        posts: { onOwnerDelete: "retain" },
      },
    },
    ...TEST_APPS.apps.slice(1),
  ],
};
const k = await makeKit(APPS, { ADMIN_TOKEN });
afterAll(() => k.gw.gateway.close());

const adminCall = async (method: string, path: string, body?: unknown) => {
  const res = await k.gw.admin(path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Json) : undefined,
    text,
    headers: res.headers,
  };
};
const link = (resourceId: string, table: string, rowId: string, userId: string, data?: unknown) =>
  adminCall("POST", "/admin/v1/data/links", { resourceId, table, rowId, userId, data });

/** Every resource's stored member_count equals its active rows; no row, owner, offer or link names `user`. */
async function expectNoTrace(user: string): Promise<void> {
  const wrong = await k.db.all(
    `SELECT r.id, r.member_count AS n, (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.state = 'active') AS active
     FROM resources r`,
  );
  for (const row of wrong)
    expect({ id: row.id, n: Number(row.n) }).toEqual({ id: row.id, n: Number(row.active) });
  const traces = await k.db.get(
    `SELECT (SELECT count(*) FROM members WHERE user_id = ?1 OR invited_by = ?1)
       + (SELECT count(*) FROM resources WHERE owner_id = ?1)
       + (SELECT count(*) FROM ownership_offers WHERE user_id = ?1 OR offered_by = ?1)
       + (SELECT count(*) FROM resource_links WHERE contributor_id = ?1)
       + (SELECT count(*) FROM retained_rows WHERE from_user_id = ?1)
       + (SELECT count(*) FROM credits WHERE user_id = ?1)
       + (SELECT count(*) FROM events WHERE user_id = ?1 OR actor = ?1 OR data LIKE ?2) AS n`,
    user,
    `%"${user}"%`,
  );
  expect(Number(traces!.n)).toBe(0);
  // Every resource has exactly one active owner row, the one its owner_id names.
  const owners = await k.db.all(
    `SELECT r.id, r.owner_id AS "ownerId", (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.role = 'owner') AS n,
       (SELECT user_id FROM members m WHERE m.resource_id = r.id AND m.role = 'owner') AS "owner"
     FROM resources r WHERE r.owner_kind = 'user'`,
  );
  for (const row of owners)
    expect({ n: Number(row.n), owner: row.owner }).toEqual({ n: 1, owner: row.ownerId });
}

const D = "del-d";
const ids: Json = {};
let dCookie: Record<string, string> = {};
let report: Json;
let preview: Json;

beforeAll(async () => {
  dCookie = await k.h(D);
  await k.users("del-w1", "del-a1", "del-a2", "del-w2", "del-o", "del-y", "del-x");
  // T1: an older writer, then two admins: the older admin inherits (admins before members).
  ids.t1 = (await k.create(D, "team", "T1")).id;
  await k.addMember(D, ids.t1, "del-w1", "writer");
  await k.addMember(D, ids.t1, "del-a1", "admin");
  await k.addMember(D, ids.t1, "del-a2", "admin");
  await k.post(D, `/v1/resources/${ids.t1}/invite`, { userId: "del-y" });
  await k.post(D, `/v1/resources/${ids.t1}/transferOwnership`, { userId: "del-w1" });
  // T2: only a writer left: the writer inherits.
  ids.t2 = (await k.create(D, "team", "T2")).id;
  await k.addMember(D, ids.t2, "del-w2", "writer");
  // T3: nobody else active (a pending invite only): deleted with its cascade.
  ids.t3 = (await k.create(D, "board", "T3")).id;
  await k.post(D, `/v1/resources/${ids.t3}/invite`, { userId: "del-x" });
  expect((await link(ids.t3, "photos", "ph-in-t3", D)).status).toBe(200);
  // B: someone else's board D writes into (each policy), with an offer of ownership to D.
  ids.b = (await k.create("del-o", "board", "B")).id;
  expect((await k.post(D, `/v1/resources/${ids.b}/join`)).status).toBe(200);
  expect((await link(ids.b, "notes", "n-1", D, { t: 1 })).status).toBe(200);
  expect((await link(ids.b, "photos", "ph-1", D, { t: 2 })).status).toBe(200);
  expect((await link(ids.b, "posts", "po-1", D, { t: "kept" })).status).toBe(200);
  expect((await link(ids.b, "notes", "n-other", "del-o")).status).toBe(200);
  await k.post("del-o", `/v1/resources/${ids.b}/setRole`, { userId: D, role: "admin" });
  expect((await k.post("del-o", `/v1/resources/${ids.b}/transferOwnership`, { userId: D })).status).toBe(200);
  // L: a board D left under `hide` (notes): the hidden row goes whatever the policy.
  ids.l = (await k.create("del-o", "board", "L")).id;
  await k.post(D, `/v1/resources/${ids.l}/join`);
  expect((await link(ids.l, "notes", "n-hidden", D)).status).toBe(200);
  expect((await k.post(D, `/v1/resources/${ids.l}/leave`)).status).toBe(200);
  // Pending: invited to P, asked to join R.
  ids.p = (await k.create("del-o", "project", "P")).id;
  await k.post("del-o", `/v1/resources/${ids.p}/invite`, { userId: D });
  ids.r = (await k.create("del-o", "team", "R")).id;
  await k.post(D, `/v1/resources/${ids.r}/request`);
  expect(await grantWelcomeCredit(k.gw.gateway.storage, k.gw.gateway.deleted, D, 5_000_000)).toBe(true);
  preview = await adminCall("GET", `/admin/v1/users/${D}`);
  report = await adminCall("DELETE", `/admin/v1/users/${D}`);
}, 60_000);

describe("DELETE /admin/v1/users/:id", () => {
  test("the answer reports resources passed on (to whom) and deleted, and per shared table the row ids", () => {
    expect(report.status).toBe(200);
    const body = report.body;
    expect(body.userId).toBe(D);
    expect(body.deletedNow).toBe(true);
    expect(body.pseudonym).toMatch(/^deleted:[A-Za-z0-9_-]{22}$/);
    expect(
      [...body.resources.transferred].sort((a: Json, b: Json) => a.resourceId.localeCompare(b.resourceId)),
    ).toEqual(
      [
        { resourceId: ids.t1 as string, to: "del-a1" },
        { resourceId: ids.t2 as string, to: "del-w2" },
      ].sort((a, b) => a.resourceId.localeCompare(b.resourceId)),
    );
    expect(body.resources.deleted).toEqual([ids.t3]);
    expect(body.sharedTables).toEqual({
      notes: { policy: "remove", delete: ["n-1", "n-hidden"], tombstoned: [], retained: [] },
      photos: { policy: "tombstone", delete: ["ph-in-t3"], tombstoned: ["ph-1"], retained: [] },
      posts: { policy: "retain", delete: ["po-1"], tombstoned: [], retained: ["po-1"] },
    });
    // T1, T2, T3 (owner), B (admin), P (invited), R (requested), _app? (never joined here).
    expect(body.membershipsEnded).toBe(6);
    expect(body.invitesCancelled).toBe(1); // del-y in T1; del-x's went with T3
    expect(body.offersEnded).toBe(2);
    expect(body.sessionsEnded).toBe(1);
  });

  test("before it, the user's detail said exactly what would pass on and what would go", () => {
    expect(preview.status).toBe(200);
    expect(preview.body.ifDeleted).toEqual({
      transfer: [
        { resourceId: ids.t1, name: "T1", to: "del-a1" },
        { resourceId: ids.t2, name: "T2", to: "del-w2" },
      ],
      delete: [{ resourceId: ids.t3, name: "T3" }],
    });
    const said = preview.body.ifDeleted as { transfer: Json[]; delete: Json[] };
    expect(said.transfer.map(({ resourceId, to }) => ({ resourceId, to }))).toEqual(
      expect.arrayContaining(report.body.resources.transferred),
    );
    expect(said.transfer).toHaveLength(report.body.resources.transferred.length);
    expect(said.delete.map((r) => r.resourceId)).toEqual(report.body.resources.deleted);
  });

  test("the stored state: heirs own, counts exact, offers and invites gone, nothing names the user", async () => {
    expect((await k.resource(ids.t1)).owner_id).toBe("del-a1");
    expect((await k.member(ids.t1, "del-a1"))!.role).toBe("owner");
    expect((await k.member(ids.t1, "del-a2"))!.role).toBe("admin");
    expect(await k.memberCount(ids.t1)).toBe(3);
    expect(await k.member(ids.t1, "del-y")).toBeNull();
    expect(await k.offer(ids.t1)).toBeNull();
    expect((await k.resource(ids.t2)).owner_id).toBe("del-w2");
    expect(await k.memberCount(ids.t2)).toBe(1);
    expect(await k.resource(ids.t3)).toBeNull();
    expect(await k.member(ids.t3, "del-x")).toBeNull();
    expect(await k.offer(ids.b)).toBeNull();
    expect(await k.memberCount(ids.b)).toBe(1);
    expect(await k.member(ids.p, D)).toBeNull();
    expect(await k.member(ids.r, D)).toBeNull();
    await expectNoTrace(D);
    const pseudonym = report.body.pseudonym;
    expect(
      await k.db.all("SELECT kind, amount_micros AS m FROM credits WHERE user_id = ?", pseudonym),
    ).toEqual([{ kind: "welcome", m: 5_000_000 }]);
    const deleted = await k.db.all(
      "SELECT type, actor, user_id, data FROM events WHERE type = 'user.deleted'",
    );
    expect(deleted.length).toBe(1);
    expect(deleted[0]!.user_id).toBe(pseudonym);
    expect(deleted[0]!.actor).toBe("admin");
    const { userId: _, deletedNow: __, ...stored } = report.body;
    expect(JSON.parse(deleted[0]!.data)).toEqual(stored);
    // The user's earlier events stay, under the pseudonym.
    expect(
      await k.db.count(
        "SELECT count(*) FROM events WHERE user_id = ? AND type = 'resource.created'",
        pseudonym,
      ),
    ).toBe(3);
    const transferredEvent = await k.lastEvent(ids.t2);
    expect(transferredEvent).toMatchObject({ type: "member.deleted", user_id: pseudonym });
  });

  test("each policy through the data seam: tombstoned rows show the deleted-user profile, retained copies stand alone", async () => {
    const links = await adminCall("GET", `/admin/v1/data/links?resourceId=${ids.b}`);
    expect(links.status).toBe(200);
    expect([...links.body.links].sort((a: Json, b: Json) => a.rowId.localeCompare(b.rowId))).toEqual([
      { table: "notes", rowId: "n-other", contributorId: "del-o", hidden: false },
      {
        table: "photos",
        rowId: "ph-1",
        contributorId: null,
        hidden: false,
        contributor: { id: null, displayName: "Deleted user" },
      },
    ]);
    expect(links.body.retained).toEqual([
      { table: "posts", rowId: "po-1", fromUserId: report.body.pseudonym, data: { t: "kept" } },
    ]);
    // Independent: the row id linked again by someone else, then unlinked, leaves the copy as it was.
    expect((await link(ids.b, "posts", "po-1", "del-o", { t: "new" })).status).toBe(200);
    expect(await k.gw.gateway.storage.run("DELETE FROM resource_links WHERE row_id = 'po-1'")).toBe(1);
    expect((await adminCall("GET", `/admin/v1/data/links?resourceId=${ids.b}`)).body.retained).toEqual(
      links.body.retained,
    );
    // A tombstoned row belongs to nobody: no member may take it over.
    expectError(
      { ...(await link(ids.b, "photos", "ph-1", "del-o")), text: "" } as Json,
      409,
      "already_linked",
    );
  });

  test("the user's cookie is refused at once (403 account_deleted), and /auth/session says the account was deleted", async () => {
    expectError(await k.get(D, "/v1/me"), 403, "account_deleted");
    const session = await k.raw("/auth/session", { headers: { cookie: dCookie.cookie! } });
    expect(session.body).toEqual({ authenticated: false, reason: "deleted" });
    expect(await k.db.count("SELECT count(*) FROM sessions WHERE user_id = ? AND ended_at IS NULL", D)).toBe(
      0,
    );
  });

  test("a second delete changes nothing and answers the first report", async () => {
    const before = await k.snapshot();
    const again = await adminCall("DELETE", `/admin/v1/users/${D}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...report.body, deletedNow: false });
    expect(await k.snapshot()).toEqual(before);
  });

  test("deletion is final: a change naming the deleted user is refused and writes nothing", async () => {
    const before = await k.snapshot();
    expectError(await k.post("del-o", `/v1/resources/${ids.p}/invite`, { userId: D }), 404, "user_deleted");
    const linked = await link(ids.b, "notes", "n-late", D);
    // The data service writing for the deleted user: that account is refused.
    expect({ status: linked.status, code: linked.body.code }).toEqual({
      status: 403,
      code: "account_deleted",
    });
    expect(await k.snapshot()).toEqual(before);
  });

  test("bad input: unknown ids, look-alike characters, malformed or control characters → 4xx, nothing changed", async () => {
    const before = await k.snapshot();
    for (const [path, status, code] of [
      ["/admin/v1/users/nobody-ever", 404, "not_found"],
      // U+217E SMALL ROMAN NUMERAL ONE HUNDRED… looks like d; U+0435 CYRILLIC е looks like e.
      [`/admin/v1/users/${encodeURIComponent("ⅾel-o")}`, 404, "not_found"],
      [`/admin/v1/users/${encodeURIComponent("dеl-o")}`, 404, "not_found"],
      ["/admin/v1/users/del-o%00", 400, "invalid_request"],
      ["/admin/v1/users/%E0%A4%A", 400, "invalid_request"],
      [`/admin/v1/users/${"x".repeat(300)}`, 400, "invalid_request"],
    ] as const) {
      const reply = await adminCall("DELETE", path);
      expect({ path, status: reply.status, code: reply.body?.code }).toEqual({ path, status, code });
      expect(Object.keys(reply.body).sort()).toEqual(["code", "error"]);
    }
    expect(await k.snapshot()).toEqual(before);
    expect((await k.resource(ids.b)).owner_id).toBe("del-o");
  });
});

describe("DELETE /v1/me", () => {
  test("needs a sign-in within 10 minutes: an older session is refused and nothing changes", async () => {
    const headers = await k.h("del-self-old");
    await k.create("del-self-old", "team", "Mine");
    const sessionId = (await k.db.get("SELECT id FROM sessions WHERE user_id = ?", "del-self-old"))!.id;
    await k.gw.gateway.storage.run("UPDATE sessions SET created_at = created_at - 600001 WHERE id = $1", [
      sessionId,
    ]);
    await k.gw.gateway.store.fresh(sessionId);
    const before = await k.snapshot();
    const reply = await k.raw("/v1/me", { method: "DELETE", headers });
    expectError(reply, 403, "reauthentication_required");
    expect(await k.snapshot()).toEqual(before);
    expect(await k.db.count("SELECT count(*) FROM deleted_users")).toBe(1);
  });

  test("without the CSRF header: 403 csrf_required, nothing changed", async () => {
    const { "x-service-csrf": _, ...headers } = await k.h("del-self-csrf");
    const before = await k.snapshot();
    expectError(await k.raw("/v1/me", { method: "DELETE", headers }), 403, "csrf_required");
    expect(await k.snapshot()).toEqual(before);
  });

  test("a recent session deletes its own account, clears the cookie, and is refused afterwards", async () => {
    const headers = await k.h("del-self");
    const team = await k.create("del-self", "team", "Solo");
    const reply = await k.raw("/v1/me", { method: "DELETE", headers });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      userId: "del-self",
      deletedNow: true,
      resources: { transferred: [], deleted: [team.id] },
      sessionsEnded: 1,
    });
    expect(reply.headers.getSetCookie().some((c) => /^sg_session=;.*Max-Age=0/i.test(c))).toBe(true);
    const actor = await k.db.get(
      "SELECT actor, user_id FROM events WHERE type = 'user.deleted' AND user_id = ?",
      reply.body.pseudonym,
    );
    expect(actor).toEqual({ actor: reply.body.pseudonym, user_id: reply.body.pseudonym });
    expectError(await k.raw("/v1/me", { method: "DELETE", headers }), 403, "account_deleted");
    await expectNoTrace("del-self");
  });
});
