/** setRole, remove, the 50-pending-invites cap, and DELETE (lifecycle: exists → deleted). */
import { afterAll, describe, expect, test } from "bun:test";
import { expectError, type Json, makeKit, TEST_APPS } from "../helpers/resources-kit.ts";

const k = await makeKit(TEST_APPS, { ADMIN_TOKEN: "resources-admin-token" });
afterAll(() => k.gw.gateway.close());

const setRole = (actor: string, id: string, userId: string, role: string) =>
  k.post(actor, `/v1/resources/${id}/setRole`, { userId, role });
const remove = (actor: string, id: string, userId: string) =>
  k.post(actor, `/v1/resources/${id}/remove`, { userId });

/** A team owned by `o`, with an admin `a`, writers `w1`, `w2` and a reader `r`. */
async function crew(prefix: string, type = "team") {
  const t = await k.create(`${prefix}-o`, type, `${prefix} crew`);
  const role = (r: string) => (type === "capped" && r === "admin" ? undefined : r);
  if (role("admin")) await k.addMember(`${prefix}-o`, t.id, `${prefix}-a`, "admin");
  await k.addMember(`${prefix}-o`, t.id, `${prefix}-w1`, "writer");
  await k.addMember(`${prefix}-o`, t.id, `${prefix}-w2`, "writer");
  await k.addMember(`${prefix}-o`, t.id, `${prefix}-r`, "reader");
  return t.id;
}

describe("setRole: active → active, role replaced", () => {
  test("the owner promotes and demotes; an admin changes members below it", async () => {
    const id = await crew("sr");
    const up = await setRole("sr-o", id, "sr-r", "writer");
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ ok: true, role: "writer" });
    expect(await k.member(id, "sr-r")).toMatchObject({ role: "writer", state: "active" });
    expect(await k.lastEvent(id)).toEqual({
      type: "member.role_changed",
      actor: "sr-o",
      resource_id: id,
      user_id: "sr-r",
      data: JSON.stringify({ role: "writer" }),
    });
    expect((await setRole("sr-a", id, "sr-w1", "reader")).body).toEqual({ ok: true, role: "reader" });
    expect((await setRole("sr-a", id, "sr-w2", "admin")).body).toEqual({ ok: true, role: "admin" });
    expect((await setRole("sr-o", id, "sr-a", "reader")).body).toEqual({ ok: true, role: "reader" });
    expect(await k.roster("sr-o", id)).toEqual([
      { userId: "sr-a", role: "reader", state: "active" },
      { userId: "sr-o", role: "owner", state: "active" },
      { userId: "sr-r", role: "writer", state: "active" },
      { userId: "sr-w1", role: "reader", state: "active" },
      { userId: "sr-w2", role: "admin", state: "active" },
    ]);
    expect(await k.memberCount(id)).toBe(5);
  });

  test("refusals: owner target, peer, superior, above ceiling, below admin, bad role, pending or unknown target", async () => {
    const id = await crew("sx");
    await k.addMember("sx-o", id, "sx-a2", "admin");
    await k.post("sx-o", `/v1/resources/${id}/invite`, { userId: "sx-inv" });
    const capped = await crew("sc", "capped");
    const before = await k.snapshot();
    expectError(await setRole("sx-a", id, "sx-o", "reader"), 403, "target_is_owner");
    expectError(await setRole("sx-o", id, "sx-o", "admin"), 403, "target_is_owner");
    expectError(await setRole("sx-a", id, "sx-a2", "reader"), 403, "insufficient_rank");
    expectError(await setRole("sx-a", id, "sx-a", "writer"), 403, "insufficient_rank");
    expectError(await setRole("sx-w1", id, "sx-r", "writer"), 403, "forbidden");
    expectError(await setRole("sx-inv", id, "sx-r", "writer"), 403, "forbidden");
    expectError(await setRole("sc-o", capped, "sc-w1", "admin"), 403, "role_above_ceiling");
    for (const role of ["owner", "root", "", "ADMIN"])
      expectError(
        await setRole("sx-o", id, "sx-r", role),
        400,
        role === "" ? "invalid_request" : "invalid_role",
      );
    expectError(await setRole("sx-o", id, "sx-inv", "reader"), 404, "not_a_member");
    expectError(await setRole("sx-o", id, "sx-nobody", "reader"), 404, "not_a_member");
    expectError(await setRole("sx-stranger", id, "sx-r", "reader"), 404, "not_found");
    expectError(await setRole("sx-o", Bun.randomUUIDv7(), "sx-r", "reader"), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("remove: active → membership ended; pending → cancelled", () => {
  test("an admin removes a writer: row gone, memberCount down, event, the removed user loses access", async () => {
    const id = await crew("rm");
    const reply = await remove("rm-a", id, "rm-w1");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.member(id, "rm-w1")).toBeNull();
    expect(await k.memberCount(id)).toBe(4);
    expect(await k.lastEvent(id)).toEqual({
      type: "member.removed",
      actor: "rm-a",
      resource_id: id,
      user_id: "rm-w1",
      data: JSON.stringify({ was: "active" }),
    });
    expectError(await k.get("rm-w1", `/v1/resources/${id}`), 404, "not_found");
    expect((await k.get("rm-w1", "/v1/resources")).body.resources.map((r: Json) => r.id)).not.toContain(id);
    expect((await remove("rm-o", id, "rm-a")).body).toEqual({ ok: true });
    expect((await k.roster("rm-o", id)).map((m) => m.userId)).toEqual(["rm-o", "rm-r", "rm-w2"]);
  });

  test("remove on a pending invite or request cancels it (memberCount unchanged), even an admin-role invite", async () => {
    const id = await crew("rp");
    await k.post("rp-o", `/v1/resources/${id}/invite`, { userId: "rp-inv", role: "admin" });
    await k.post("rp-ask", `/v1/resources/${id}/request`);
    expect((await remove("rp-a", id, "rp-inv")).body).toEqual({ ok: true });
    expect((await remove("rp-a", id, "rp-ask")).body).toEqual({ ok: true });
    expect(await k.member(id, "rp-inv")).toBeNull();
    expect(await k.member(id, "rp-ask")).toBeNull();
    expect(await k.memberCount(id)).toBe(5);
    expect((await k.events(id)).slice(-2).map((e) => [e.type, e.user_id, e.data])).toEqual([
      ["member.removed", "rp-inv", JSON.stringify({ was: "invited" })],
      ["member.removed", "rp-ask", JSON.stringify({ was: "requested" })],
    ]);
    expect((await k.get("rp-inv", "/v1/resources?state=invited")).body.resources).toEqual([]);
  });

  test("refusals: owner target, peer, superior, below admin, unknown target", async () => {
    const id = await crew("rx");
    await k.addMember("rx-o", id, "rx-a2", "admin");
    const before = await k.snapshot();
    expectError(await remove("rx-a", id, "rx-o"), 403, "target_is_owner");
    expectError(await remove("rx-o", id, "rx-o"), 403, "target_is_owner");
    expectError(await remove("rx-a", id, "rx-a2"), 403, "insufficient_rank");
    expectError(await remove("rx-a", id, "rx-a"), 403, "insufficient_rank");
    expectError(await remove("rx-w1", id, "rx-r"), 403, "forbidden");
    expectError(await remove("rx-w1", id, "rx-w2"), 403, "forbidden");
    expectError(await remove("rx-o", id, "rx-nobody"), 404, "not_a_member");
    expectError(await remove("rx-stranger", id, "rx-r"), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("pending invites cap: at most 50 per inviter per app", () => {
  test("the 51st pending invite is 429 too_many_pending_invites; resolving one frees a slot", async () => {
    const a = await k.create("cap-o", "team", "cap one");
    const b = await k.create("cap-o", "board", "cap two");
    for (let i = 0; i < 50; i++) {
      const target = i < 30 ? a.id : b.id;
      const reply = await k.post("cap-o", `/v1/resources/${target}/invite`, { userId: `cap-u${i}` });
      expect(reply.status).toBe(200);
    }
    const before = await k.snapshot();
    expectError(
      await k.post("cap-o", `/v1/resources/${a.id}/invite`, { userId: "cap-x" }),
      429,
      "too_many_pending_invites",
    );
    expectError(
      await k.post("cap-o", `/v1/resources/${b.id}/invite`, { userId: "cap-x" }),
      429,
      "too_many_pending_invites",
    );
    expect(await k.snapshot()).toEqual(before);
    // Another inviter is not affected; an accepted invite frees one slot.
    const c = await k.create("cap-other", "team", "cap three");
    expect((await k.post("cap-other", `/v1/resources/${c.id}/invite`, { userId: "cap-x" })).status).toBe(200);
    expect((await k.post("cap-u0", `/v1/resources/${a.id}/accept`)).status).toBe(200);
    expect((await k.post("cap-o", `/v1/resources/${a.id}/invite`, { userId: "cap-x" })).status).toBe(200);
    expectError(
      await k.post("cap-o", `/v1/resources/${a.id}/invite`, { userId: "cap-y" }),
      429,
      "too_many_pending_invites",
    );
  });

  test("the cap holds under concurrent invites", async () => {
    const t = await k.create("capc-o", "team", "cap concurrent");
    for (let i = 0; i < 45; i++)
      expect((await k.post("capc-o", `/v1/resources/${t.id}/invite`, { userId: `capc-u${i}` })).status).toBe(
        200,
      );
    await k.h("capc-o");
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        k.post("capc-o", `/v1/resources/${t.id}/invite`, { userId: `capc-v${i}` }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of replies.filter((r) => r.status !== 200)) expectError(r, 429, "too_many_pending_invites");
    const pending = (await k.db.get(
      "SELECT count(*) AS n FROM members WHERE invited_by = ? AND state = 'invited'",
      "capc-o",
    )) as Json;
    expect(pending.n).toBe(50);
  });
});

describe("DELETE /v1/resources/:id: exists → deleted", () => {
  test("the owner deletes: members gone, links gone, lists no longer show it, event stays", async () => {
    const id = await crew("dl");
    await k.post("dl-o", `/v1/resources/${id}/invite`, { userId: "dl-inv" });
    const link = await k.gw.admin("/admin/v1/data/links", {
      method: "POST",
      headers: { authorization: "Bearer resources-admin-token", "content-type": "application/json" },
      body: JSON.stringify({ resourceId: id, table: "posts", rowId: "row-1", userId: "dl-w1" }),
    });
    expect(link.status).toBe(200);
    const reply = await k.del("dl-o", `/v1/resources/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.resource(id)).toBeNull();
    expect(await k.members(id)).toEqual([]);
    expect(
      ((await k.db.get("SELECT count(*) AS n FROM resource_links WHERE resource_id = ?", id)) as Json).n,
    ).toBe(0);
    expect(await k.lastEvent(id)).toMatchObject({ type: "resource.deleted", actor: "dl-o", resource_id: id });
    for (const user of ["dl-o", "dl-a", "dl-w1", "dl-r"]) {
      expect((await k.get(user, "/v1/resources")).body.resources.map((r: Json) => r.id)).not.toContain(id);
      expectError(await k.get(user, `/v1/resources/${id}`), 404, "not_found");
    }
    expect((await k.get("dl-inv", "/v1/resources?state=invited")).body.resources).toEqual([]);
    expectError(await k.del("dl-o", `/v1/resources/${id}`), 404, "not_found");
  });

  test("owner only: an admin member 403 forbidden, a stranger to a public resource 403, to a members-only one 404", async () => {
    const id = await crew("dx");
    const board = await k.create("dx-o", "board", "public delete");
    const before = await k.snapshot();
    expectError(await k.del("dx-a", `/v1/resources/${id}`), 403, "forbidden");
    expectError(await k.del("dx-w1", `/v1/resources/${id}`), 403, "forbidden");
    expectError(await k.del("dx-stranger", `/v1/resources/${board.id}`), 403, "forbidden");
    expectError(await k.del("dx-stranger", `/v1/resources/${id}`), 404, "not_found");
    expectError(await k.del("dx-o", `/v1/resources/${Bun.randomUUIDv7()}`), 404, "not_found");
    expect(await k.snapshot()).toEqual(before);
  });

  test("_app: 403 app_resource_undeletable whoever asks (checked first); statics are not the caller's to delete", async () => {
    const appId = await k.appResourceId("main");
    await k.gw.gateway.membership.joinAppResource("main", "dapp-member");
    await k.users("dapp-member", "dapp-stranger");
    const before = await k.snapshot();
    expectError(await k.del("dapp-member", `/v1/resources/${appId}`), 403, "app_resource_undeletable");
    expectError(await k.del("dapp-stranger", `/v1/resources/${appId}`), 403, "app_resource_undeletable");
    const feed = await k.staticId("feed", "global");
    expectError(await k.del("dapp-stranger", `/v1/resources/${feed}`), 403, "forbidden");
    expect(await k.snapshot()).toEqual(before);
    expect(await k.resource(appId)).not.toBeNull();
  });

  test("main lifecycle: create → invite → accept → setRole → remove → delete, with the event trail", async () => {
    const t = await k.create("lc-o", "team", "lifecycle");
    await k.post("lc-o", `/v1/resources/${t.id}/invite`, { userId: "lc-b", role: "reader" });
    await k.post("lc-b", `/v1/resources/${t.id}/accept`);
    await setRole("lc-o", t.id, "lc-b", "admin");
    await remove("lc-o", t.id, "lc-b");
    await k.del("lc-o", `/v1/resources/${t.id}`);
    expect((await k.events(t.id)).map((e) => [e.type, e.actor, e.user_id])).toEqual([
      ["resource.created", "lc-o", "lc-o"],
      ["member.invited", "lc-o", "lc-b"],
      ["member.accepted", "lc-b", "lc-b"],
      ["member.role_changed", "lc-o", "lc-b"],
      ["member.removed", "lc-o", "lc-b"],
      ["resource.deleted", "lc-o", "lc-o"],
    ]);
  });
});
