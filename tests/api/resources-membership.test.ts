/** The membership transitions into and out of pending states: invite, request, accept, reject, join, auto-join, leave. */
import { afterAll, describe, expect, test } from "bun:test";
import { expectError, type Json, makeKit, TEST_APPS } from "../helpers/resources-kit.ts";

const k = await makeKit(TEST_APPS, { ADMIN_TOKEN: "resources-admin-token" });
afterAll(() => k.gw.gateway.close());

const ev = (type: string, actor: string, resourceId: string, userId: string, data: unknown) => ({
  type,
  actor,
  resource_id: resourceId,
  user_id: userId,
  data: data === undefined ? null : JSON.stringify(data),
});

describe("invite: (not a member) → invited", () => {
  test("an owner invites at the type's default role; row, roster, event; memberCount unchanged", async () => {
    const t = await k.create("in-own", "team", "invite team");
    const reply = await k.post("in-own", `/v1/resources/${t.id}/invite`, { userId: "in-bob" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, state: "invited" });
    expect(await k.member(t.id, "in-bob")).toMatchObject({
      role: "writer",
      state: "invited",
      invited_by: "in-own",
    });
    expect(await k.roster("in-own", t.id)).toEqual([
      { userId: "in-bob", role: "writer", state: "invited" },
      { userId: "in-own", role: "owner", state: "active" },
    ]);
    expect(await k.memberCount(t.id)).toBe(1);
    expect(await k.lastEvent(t.id)).toEqual(
      ev("member.invited", "in-own", t.id, "in-bob", { role: "writer" }),
    );
    const project = await k.create("in-own", "project", "reader default");
    await k.post("in-own", `/v1/resources/${project.id}/invite`, { userId: "in-bob" });
    expect((await k.member(project.id, "in-bob"))?.role).toBe("reader");
  });

  test("an admin invites at an explicit role up to its own role and the ceiling", async () => {
    const t = await k.create("in-own2", "team", "invite roles");
    await k.addMember("in-own2", t.id, "in-adm", "admin");
    for (const role of ["reader", "writer", "admin"]) {
      const reply = await k.post("in-adm", `/v1/resources/${t.id}/invite`, { userId: `in-${role}`, role });
      expect(reply.body).toEqual({ ok: true, state: "invited" });
      expect(await k.member(t.id, `in-${role}`)).toMatchObject({
        role,
        state: "invited",
        invited_by: "in-adm",
      });
    }
  });

  test("refusals: below admin 403 forbidden, bad role 400 invalid_role, ceiling 403, member 409, pending 409", async () => {
    const t = await k.create("in-own3", "team", "invite refusals");
    await k.addMember("in-own3", t.id, "in-wri", "writer");
    await k.post("in-own3", `/v1/resources/${t.id}/invite`, { userId: "in-pend" });
    await k.post("in-asker", `/v1/resources/${t.id}/request`);
    const capped = await k.create("in-own3", "capped", "writer ceiling");
    const before = await k.snapshot();
    const inv = (user: string, id: string, body: Json) => k.post(user, `/v1/resources/${id}/invite`, body);
    expectError(await inv("in-wri", t.id, { userId: "x1" }), 403, "forbidden");
    expectError(await inv("in-pend", t.id, { userId: "x1" }), 403, "forbidden");
    for (const role of ["owner", "superadmin", "Admin", "guest"])
      expectError(await inv("in-own3", t.id, { userId: "x1", role }), 400, "invalid_role");
    expectError(await inv("in-own3", capped.id, { userId: "x1", role: "admin" }), 403, "role_above_ceiling");
    expectError(await inv("in-own3", t.id, { userId: "in-wri" }), 409, "already_member");
    expectError(await inv("in-own3", t.id, { userId: "in-own3" }), 409, "already_member");
    expectError(await inv("in-own3", t.id, { userId: "in-pend" }), 409, "already_pending");
    expectError(await inv("in-own3", t.id, { userId: "in-asker" }), 409, "already_pending");
    expectError(await inv("in-stranger", t.id, { userId: "x1" }), 404, "not_found");
    expectError(await inv("in-own3", Bun.randomUUIDv7(), { userId: "x1" }), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });

  test("an admin cannot invite above its own role even under a higher ceiling", async () => {
    const t = await k.create("in-own4", "team", "own role cap");
    await k.addMember("in-own4", t.id, "in-adm4", "admin");
    // admin may grant admin (its own role) but a writer-capped type stops it at writer.
    const capped = await k.create("in-own4", "capped", "capped own role");
    await k.addMember("in-own4", capped.id, "in-wr4", "writer");
    expectError(
      await k.post("in-wr4", `/v1/resources/${capped.id}/invite`, { userId: "x", role: "reader" }),
      403,
      "forbidden",
    );
    expectError(
      await k.post("in-own4", `/v1/resources/${capped.id}/invite`, { userId: "x", role: "admin" }),
      403,
      "role_above_ceiling",
    );
    expect(
      (await k.post("in-own4", `/v1/resources/${capped.id}/invite`, { userId: "x", role: "writer" })).status,
    ).toBe(200);
  });
});

describe("request: (not a member) → requested", () => {
  test("a non-member asks, at the default role or a named one, even on a members-only resource", async () => {
    const t = await k.create("rq-own", "team", "request team");
    const r1 = await k.post("rq-a", `/v1/resources/${t.id}/request`);
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ ok: true, state: "requested" });
    const r2 = await k.post("rq-b", `/v1/resources/${t.id}/request`, { role: "admin" });
    expect(r2.body).toEqual({ ok: true, state: "requested" });
    expect(await k.member(t.id, "rq-a")).toMatchObject({
      role: "writer",
      state: "requested",
      invited_by: null,
    });
    expect(await k.member(t.id, "rq-b")).toMatchObject({ role: "admin", state: "requested" });
    expect(await k.lastEvent(t.id)).toEqual(ev("member.requested", "rq-b", t.id, "rq-b", { role: "admin" }));
    expect(await k.memberCount(t.id)).toBe(1);
    expect((await k.roster("rq-own", t.id)).filter((m) => m.state === "requested")).toHaveLength(2);
  });

  test("refusals: member 409 already_member, pending 409 already_pending, bad role 400, unknown id 404", async () => {
    const t = await k.create("rq-own2", "board", "request refusals");
    await k.post("rq-own2", `/v1/resources/${t.id}/invite`, { userId: "rq-inv" });
    await k.post("rq-twice", `/v1/resources/${t.id}/request`);
    const before = await k.snapshot();
    expectError(await k.post("rq-own2", `/v1/resources/${t.id}/request`), 409, "already_member");
    expectError(await k.post("rq-inv", `/v1/resources/${t.id}/request`), 409, "already_pending");
    expectError(await k.post("rq-twice", `/v1/resources/${t.id}/request`), 409, "already_pending");
    expectError(
      await k.post("rq-new", `/v1/resources/${t.id}/request`, { role: "owner" }),
      400,
      "invalid_role",
    );
    expectError(await k.post("rq-new", `/v1/resources/${Bun.randomUUIDv7()}/request`), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("accept", () => {
  test("invited → active: the invited user accepts (no body) at the invited role", async () => {
    const t = await k.create("ac-own", "team", "accept invite");
    await k.post("ac-own", `/v1/resources/${t.id}/invite`, { userId: "ac-bob", role: "reader" });
    const reply = await k.post("ac-bob", `/v1/resources/${t.id}/accept`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, state: "active" });
    expect(await k.member(t.id, "ac-bob")).toMatchObject({ role: "reader", state: "active" });
    expect((await k.get("ac-bob", `/v1/resources/${t.id}`)).body.memberCount).toBe(2);
    expect(await k.lastEvent(t.id)).toEqual(
      ev("member.accepted", "ac-bob", t.id, "ac-bob", { role: "reader" }),
    );
    const mine = await k.get("ac-bob", "/v1/resources");
    expect(mine.body.resources.map((r: Json) => r.id)).toContain(t.id);
    // Accepting with one's own userId is the same as no body; twice: no pending invite.
    expectError(
      await k.post("ac-bob", `/v1/resources/${t.id}/accept`, { userId: "ac-bob" }),
      404,
      "no_pending_invite",
    );
  });

  test("requested → active: an admin accepts {userId} at the requested role (default: the type's defaultRole)", async () => {
    const t = await k.create("ac-own2", "project", "accept request");
    await k.addMember("ac-own2", t.id, "ac-adm", "admin");
    await k.post("ac-r1", `/v1/resources/${t.id}/request`);
    await k.post("ac-r2", `/v1/resources/${t.id}/request`, { role: "writer" });
    const a1 = await k.post("ac-adm", `/v1/resources/${t.id}/accept`, { userId: "ac-r1" });
    expect(a1.body).toEqual({ ok: true, state: "active" });
    expect((await k.post("ac-own2", `/v1/resources/${t.id}/accept`, { userId: "ac-r2" })).status).toBe(200);
    expect(await k.member(t.id, "ac-r1")).toMatchObject({ role: "reader", state: "active" });
    expect(await k.member(t.id, "ac-r2")).toMatchObject({ role: "writer", state: "active" });
    expect(await k.memberCount(t.id)).toBe(4);
    expect((await k.events(t.id)).filter((e) => e.type === "member.accepted").slice(-2)).toEqual([
      ev("member.accepted", "ac-adm", t.id, "ac-r1", { role: "reader" }),
      ev("member.accepted", "ac-own2", t.id, "ac-r2", { role: "writer" }),
    ]);
  });

  test("refusals: no invite 404, no request 404, below admin 403, role above ceiling 403", async () => {
    const t = await k.create("ac-own3", "capped", "accept refusals");
    await k.addMember("ac-own3", t.id, "ac-wri", "writer");
    await k.post("ac-big", `/v1/resources/${t.id}/request`, { role: "admin" });
    await k.post("ac-own3", `/v1/resources/${t.id}/invite`, { userId: "ac-inv" });
    const before = await k.snapshot();
    expectError(await k.post("ac-wri", `/v1/resources/${t.id}/accept`), 404, "no_pending_invite");
    expectError(
      await k.post("ac-own3", `/v1/resources/${t.id}/accept`, { userId: "ac-nobody" }),
      404,
      "no_pending_request",
    );
    expectError(
      await k.post("ac-own3", `/v1/resources/${t.id}/accept`, { userId: "ac-inv" }),
      404,
      "no_pending_request",
    );
    expectError(
      await k.post("ac-wri", `/v1/resources/${t.id}/accept`, { userId: "ac-big" }),
      403,
      "forbidden",
    );
    expectError(
      await k.post("ac-own3", `/v1/resources/${t.id}/accept`, { userId: "ac-big" }),
      403,
      "role_above_ceiling",
    );
    // The requester cannot accept its own request.
    expectError(await k.post("ac-big", `/v1/resources/${t.id}/accept`), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("reject", () => {
  test("the invited user declines: the row is deleted, then may be invited again", async () => {
    const t = await k.create("rj-own", "team", "reject invite");
    await k.post("rj-own", `/v1/resources/${t.id}/invite`, { userId: "rj-bob" });
    const reply = await k.post("rj-bob", `/v1/resources/${t.id}/reject`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.member(t.id, "rj-bob")).toBeNull();
    expect(await k.lastEvent(t.id)).toEqual(
      ev("member.rejected", "rj-bob", t.id, "rj-bob", { was: "invited" }),
    );
    expectError(await k.get("rj-bob", `/v1/resources/${t.id}`), 404, "not_found");
    expect((await k.post("rj-own", `/v1/resources/${t.id}/invite`, { userId: "rj-bob" })).status).toBe(200);
  });

  test("an admin rejects a request: the row is deleted, the user may ask again", async () => {
    const t = await k.create("rj-own2", "team", "reject request");
    await k.post("rj-ask", `/v1/resources/${t.id}/request`);
    const reply = await k.post("rj-own2", `/v1/resources/${t.id}/reject`, { userId: "rj-ask" });
    expect(reply.body).toEqual({ ok: true });
    expect(await k.member(t.id, "rj-ask")).toBeNull();
    expect(await k.lastEvent(t.id)).toEqual(
      ev("member.rejected", "rj-own2", t.id, "rj-ask", { was: "requested" }),
    );
    expect((await k.post("rj-ask", `/v1/resources/${t.id}/request`)).status).toBe(200);
  });

  test("refusals: nothing to decline 404, no such request 404, below admin 403", async () => {
    const t = await k.create("rj-own3", "team", "reject refusals");
    await k.addMember("rj-own3", t.id, "rj-wri", "writer");
    await k.post("rj-ask3", `/v1/resources/${t.id}/request`);
    const before = await k.snapshot();
    expectError(await k.post("rj-wri", `/v1/resources/${t.id}/reject`), 404, "no_pending_invite");
    expectError(await k.post("rj-own3", `/v1/resources/${t.id}/reject`), 404, "no_pending_invite");
    expectError(
      await k.post("rj-own3", `/v1/resources/${t.id}/reject`, { userId: "rj-wri" }),
      404,
      "no_pending_request",
    );
    expectError(
      await k.post("rj-wri", `/v1/resources/${t.id}/reject`, { userId: "rj-ask3" }),
      403,
      "forbidden",
    );
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("join: (not a member) → active on a public resource", () => {
  test.each(["board", "album"])(
    "joins a public %s at the default role; idempotent; memberCount",
    async (type) => {
      const t = await k.create("jn-own", type, `join ${type}`);
      const reply = await k.post("jn-bob", `/v1/resources/${t.id}/join`);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ ok: true, state: "active", joined: true });
      const role = type === "album" ? "reader" : "writer";
      expect(await k.member(t.id, "jn-bob")).toMatchObject({ role, state: "active" });
      expect(await k.lastEvent(t.id)).toEqual(ev("member.joined", "jn-bob", t.id, "jn-bob", { role }));
      const events = (await k.events(t.id)).length;
      const again = await k.post("jn-bob", `/v1/resources/${t.id}/join`);
      // Already a member: the answer says nothing changed, so a page never says "you joined".
      expect(again.body).toEqual({ ok: true, state: "active", joined: false });
      expect((await k.get("jn-bob", `/v1/resources/${t.id}`)).body.memberCount).toBe(2);
      expect(await k.events(t.id)).toHaveLength(events);
      // The owner joining is a no-op too.
      const owner = await k.post("jn-own", `/v1/resources/${t.id}/join`);
      expect(owner.status).toBe(200);
      expect(owner.body).toEqual({ ok: true, state: "active", joined: false });
      expect((await k.member(t.id, "jn-own"))?.role).toBe("owner");
    },
  );

  test("members-only: 403 not_public; pending invite or request: 409 pending_membership", async () => {
    const team = await k.create("jn-own2", "team", "join members-only");
    const board = await k.create("jn-own2", "board", "join pending");
    await k.post("jn-own2", `/v1/resources/${board.id}/invite`, { userId: "jn-inv" });
    await k.post("jn-ask", `/v1/resources/${board.id}/request`);
    await k.post("jn-ask", `/v1/resources/${team.id}/request`);
    const before = await k.snapshot();
    expectError(await k.post("jn-x", `/v1/resources/${team.id}/join`), 403, "not_public");
    expectError(await k.post("jn-inv", `/v1/resources/${board.id}/join`), 409, "pending_membership");
    expectError(await k.post("jn-ask", `/v1/resources/${board.id}/join`), 409, "pending_membership");
    expectError(await k.post("jn-ask", `/v1/resources/${team.id}/join`), 409, "pending_membership");
    expectError(await k.post("jn-x", `/v1/resources/${Bun.randomUUIDv7()}/join`), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("auto-join on first write (data seam, admin listener)", () => {
  const admin = (path: string, body: unknown) =>
    k.gw
      .admin(path, {
        method: "POST",
        headers: { authorization: "Bearer resources-admin-token", "content-type": "application/json" },
        body: JSON.stringify(body),
      })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));

  test("a non-member's first write to a public resource joins it at defaultRole; reads never join", async () => {
    const t = await k.create("aj-own", "album", "auto join");
    expect((await k.get("aj-bob", `/v1/resources/${t.id}`)).status).toBe(200);
    expect(await k.member(t.id, "aj-bob")).toBeNull();
    const first = await admin("/admin/v1/data/authorize-write", { resourceId: t.id, userId: "aj-bob" });
    expect(first).toEqual({ status: 200, body: { allowed: true, role: "reader", joined: true } });
    expect(await k.member(t.id, "aj-bob")).toMatchObject({ role: "reader", state: "active" });
    expect(await k.memberCount(t.id)).toBe(2);
    const second = await admin("/admin/v1/data/authorize-write", { resourceId: t.id, userId: "aj-bob" });
    expect(second.body).toEqual({ allowed: true, role: "reader", joined: false });
  });

  test("members-only: refused; a pending invite or request is never resolved by a write", async () => {
    const team = await k.create("aj-own2", "team", "auto join refused");
    const board = await k.create("aj-own2", "board", "auto join pending");
    await k.post("aj-ask", `/v1/resources/${board.id}/request`);
    const before = await k.snapshot();
    const refused = await admin("/admin/v1/data/authorize-write", { resourceId: team.id, userId: "aj-x" });
    expect(refused).toMatchObject({ status: 403, body: { code: "forbidden" } });
    const pending = await admin("/admin/v1/data/authorize-write", { resourceId: board.id, userId: "aj-ask" });
    expect(pending).toMatchObject({ status: 403, body: { code: "pending_membership" } });
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("leave", () => {
  test("active → membership ended: row gone, memberCount down, event, list no longer shows it", async () => {
    const t = await k.create("lv-own", "team", "leave team");
    await k.addMember("lv-own", t.id, "lv-bob");
    const reply = await k.post("lv-bob", `/v1/resources/${t.id}/leave`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.member(t.id, "lv-bob")).toBeNull();
    expect(await k.memberCount(t.id)).toBe(1);
    expect(await k.lastEvent(t.id)).toEqual(ev("member.left", "lv-bob", t.id, "lv-bob", { was: "active" }));
    expect((await k.get("lv-bob", "/v1/resources")).body.resources.map((r: Json) => r.id)).not.toContain(
      t.id,
    );
    expectError(await k.get("lv-bob", `/v1/resources/${t.id}`), 404, "not_found");
  });

  test("the owner cannot leave: 403 owner_cannot_leave; a non-member of a public resource: 404 not_a_member", async () => {
    const t = await k.create("lv-own2", "board", "leave refusals");
    const before = await k.snapshot();
    expectError(await k.post("lv-own2", `/v1/resources/${t.id}/leave`), 403, "owner_cannot_leave");
    expectError(await k.post("lv-none", `/v1/resources/${t.id}/leave`), 404, "not_a_member");
    expect(await k.snapshot()).toEqual(before);
  });

  test("a pending invitee withdraws by leaving: row deleted, memberCount unchanged", async () => {
    const t = await k.create("lv-own3", "team", "leave invited");
    await k.post("lv-own3", `/v1/resources/${t.id}/invite`, { userId: "lv-inv" });
    const reply = await k.post("lv-inv", `/v1/resources/${t.id}/leave`);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.member(t.id, "lv-inv")).toBeNull();
    expect(await k.memberCount(t.id)).toBe(1);
    expect(await k.lastEvent(t.id)).toEqual(ev("member.left", "lv-inv", t.id, "lv-inv", { was: "invited" }));
  });

  test("a pending requester withdraws by leaving, on a public resource", async () => {
    const t = await k.create("lv-own4", "board", "leave requested public");
    await k.post("lv-ask", `/v1/resources/${t.id}/request`);
    expect((await k.post("lv-ask", `/v1/resources/${t.id}/leave`)).body).toEqual({ ok: true });
    expect(await k.member(t.id, "lv-ask")).toBeNull();
    expect(await k.lastEvent(t.id)).toEqual(
      ev("member.left", "lv-ask", t.id, "lv-ask", { was: "requested" }),
    );
  });

  test("a pending requester withdraws by leaving, on a members-only resource (it could ask, it can withdraw)", async () => {
    const t = await k.create("lv-own5", "team", "leave requested members-only");
    await k.post("lv-ask5", `/v1/resources/${t.id}/request`);
    const reply = await k.post("lv-ask5", `/v1/resources/${t.id}/leave`);
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: { ok: true } });
    expect(await k.member(t.id, "lv-ask5")).toBeNull();
    expect((await k.get("lv-ask5", "/v1/resources?state=requested")).body.resources).toEqual([]);
  });
});
