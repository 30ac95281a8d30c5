/**
 * Ownership transfer through the real handler (issue 16, item 1): every row of the transfer table
 * (docs/resources.md, "Ownership transfer"), every refusal with the stored state unchanged, the offer ended when
 * its target leaves or is removed, and accepts racing cancels and new offers leaving exactly one owner.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { expectError, type Json, makeKit, type Reply, TEST_APPS } from "../helpers/resources-kit.ts";

const k = await makeKit(TEST_APPS);
afterAll(() => k.gw.gateway.close());

const transfer = (actor: string, id: string, userId: unknown) =>
  k.post(actor, `/v1/resources/${id}/transferOwnership`, { userId });
const acceptOffer = (actor: string, id: string) => k.post(actor, `/v1/resources/${id}/acceptOwnership`);
const declineOffer = (actor: string, id: string) => k.post(actor, `/v1/resources/${id}/declineOwnership`);
const cancelOffer = (actor: string, id: string) => k.post(actor, `/v1/resources/${id}/cancelOwnership`);

/** A team owned by `o` with an admin `a`, a writer `w`, a reader `r`, an invited `inv` and a requester `ask`. */
async function crew(prefix: string, type = "team") {
  const t = await k.create(`${prefix}-o`, type, `${prefix} crew`);
  await k.addMember(`${prefix}-o`, t.id, `${prefix}-a`, "admin");
  await k.addMember(`${prefix}-o`, t.id, `${prefix}-w`, "writer");
  await k.addMember(`${prefix}-o`, t.id, `${prefix}-r`, "reader");
  expect(
    (await k.post(`${prefix}-o`, `/v1/resources/${t.id}/invite`, { userId: `${prefix}-inv` })).status,
  ).toBe(200);
  expect((await k.post(`${prefix}-ask`, `/v1/resources/${t.id}/request`)).status).toBe(200);
  return t.id;
}

/** Who holds which role, as stored, and the resource's owner column. */
async function owners(id: string) {
  const rows = await k.members(id);
  return {
    ownerId: (await k.resource(id)).owner_id,
    owners: rows.filter((m) => m.role === "owner").map((m) => m.user_id),
    roles: Object.fromEntries(rows.map((m) => [m.user_id, `${m.state} ${m.role}`])),
  };
}

const event = (type: string, actor: string, id: string, userId: string, data?: Json) => ({
  type,
  actor,
  resource_id: id,
  user_id: userId,
  data: data === undefined ? null : JSON.stringify(data),
});

describe("the transfer table, row by row", () => {
  test("no offer → transferOwnership {userId}: one pending offer to that active member, ownership unchanged", async () => {
    const id = await crew("t1");
    const before = await owners(id);
    const reply = await transfer("t1-o", id, "t1-w");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, state: "offered", userId: "t1-w" });
    expect(await k.offer(id)).toEqual({ user_id: "t1-w", offered_by: "t1-o" });
    expect(await k.lastEvent(id)).toEqual(event("ownership.offered", "t1-o", id, "t1-w"));
    expect(await owners(id)).toEqual(before);
    expect(await k.memberCount(id)).toBe(4);
  });

  test("an offer pending → a new offer replaces it; the first target can no longer accept", async () => {
    const id = await crew("t2");
    await transfer("t2-o", id, "t2-w");
    const again = await transfer("t2-o", id, "t2-r");
    expect(again.body).toEqual({ ok: true, state: "offered", userId: "t2-r" });
    expect(await k.offer(id)).toEqual({ user_id: "t2-r", offered_by: "t2-o" });
    expect(await k.lastEvent(id)).toEqual(
      event("ownership.offered", "t2-o", id, "t2-r", { replaces: "t2-w" }),
    );
    expect(await k.db.count("SELECT count(*) FROM ownership_offers WHERE resource_id = ?", id)).toBe(1);
    const before = await k.snapshot();
    expectError(await acceptOffer("t2-w", id), 404, "no_pending_offer");
    expectError(await declineOffer("t2-w", id), 404, "no_pending_offer");
    expect(await k.snapshot()).toEqual(before);
  });

  test("an offer pending → acceptOwnership by its target: the target owns it, the previous owner is an admin, in one step", async () => {
    const id = await crew("t3");
    await transfer("t3-o", id, "t3-w");
    const reply = await acceptOffer("t3-w", id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, role: "owner" });
    expect(await owners(id)).toEqual({
      ownerId: "t3-w",
      owners: ["t3-w"],
      roles: {
        "t3-a": "active admin",
        "t3-ask": "requested writer",
        "t3-inv": "invited writer",
        "t3-o": "active admin",
        "t3-r": "active reader",
        "t3-w": "active owner",
      },
    });
    expect((await k.resource(id)).owner_kind).toBe("user");
    expect(await k.offer(id)).toBeNull();
    expect(await k.lastEvent(id)).toEqual(
      event("ownership.accepted", "t3-w", id, "t3-w", { previousOwner: "t3-o" }),
    );
    expect(await k.memberCount(id)).toBe(4);
    // The roster and every rule follow: the new owner cannot leave, the previous one now may.
    expect((await k.roster("t3-r", id)).find((m) => m.userId === "t3-w")).toEqual({
      userId: "t3-w",
      role: "owner",
      state: "active",
    });
    expectError(await k.post("t3-w", `/v1/resources/${id}/leave`), 403, "owner_cannot_leave");
    expectError(await transfer("t3-o", id, "t3-a"), 403, "forbidden");
    expectError(
      await k.post("t3-o", `/v1/resources/${id}/setRole`, { userId: "t3-w", role: "reader" }),
      403,
      "target_is_owner",
    );
    expect((await k.post("t3-o", `/v1/resources/${id}/leave`)).status).toBe(200);
    expect(await k.memberCount(id)).toBe(3);
    // …and the new owner deletes it (owner only).
    expect((await k.del("t3-w", `/v1/resources/${id}`)).status).toBe(200);
    expect(await k.resource(id)).toBeNull();
  });

  test("an offer pending → declineOwnership by its target: the offer ends, ownership unchanged", async () => {
    const id = await crew("t4");
    await transfer("t4-o", id, "t4-a");
    const before = await owners(id);
    const reply = await declineOffer("t4-a", id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.offer(id)).toBeNull();
    expect(await owners(id)).toEqual(before);
    expect(await k.lastEvent(id)).toEqual(event("ownership.declined", "t4-a", id, "t4-a"));
    expectError(await acceptOffer("t4-a", id), 404, "no_pending_offer");
  });

  test("an offer pending → cancelOwnership by the owner: the offer ends, the target can no longer accept", async () => {
    const id = await crew("t5");
    await transfer("t5-o", id, "t5-r");
    const before = await owners(id);
    const reply = await cancelOffer("t5-o", id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(await k.offer(id)).toBeNull();
    expect(await k.lastEvent(id)).toEqual(event("ownership.cancelled", "t5-o", id, "t5-r"));
    expectError(await acceptOffer("t5-r", id), 404, "no_pending_offer");
    expect(await owners(id)).toEqual(before);
  });

  test("an offer pending → its target leaves: the offer ends with the membership; rejoining does not revive it", async () => {
    const id = await crew("t6");
    await transfer("t6-o", id, "t6-w");
    expect((await k.post("t6-w", `/v1/resources/${id}/leave`)).status).toBe(200);
    expect(await k.offer(id)).toBeNull();
    const types = (await k.events(id)).slice(-2);
    expect(types).toEqual([
      event("ownership.invalidated", "t6-w", id, "t6-w", { reason: "left" }),
      event("member.left", "t6-w", id, "t6-w", { was: "active" }),
    ]);
    await k.addMember("t6-o", id, "t6-w", "writer");
    const before = await k.snapshot();
    expectError(await acceptOffer("t6-w", id), 404, "no_pending_offer");
    expect(await k.snapshot()).toEqual(before);
    expect((await owners(id)).owners).toEqual(["t6-o"]);
  });

  test("an offer pending → its target is removed: the offer ends", async () => {
    const id = await crew("t7");
    await transfer("t7-o", id, "t7-w");
    expect((await k.post("t7-a", `/v1/resources/${id}/remove`, { userId: "t7-w" })).status).toBe(200);
    expect(await k.offer(id)).toBeNull();
    expect((await k.events(id)).slice(-2)).toEqual([
      event("ownership.invalidated", "t7-a", id, "t7-w", { reason: "removed" }),
      event("member.removed", "t7-a", id, "t7-w", { was: "active" }),
    ]);
  });

  test("an offer pending → others leave, roles change: the offer stays and is still accepted", async () => {
    const id = await crew("t8");
    await transfer("t8-o", id, "t8-w");
    expect((await k.post("t8-r", `/v1/resources/${id}/leave`)).status).toBe(200);
    expect((await k.post("t8-o", `/v1/resources/${id}/remove`, { userId: "t8-inv" })).status).toBe(200);
    expect(
      (await k.post("t8-o", `/v1/resources/${id}/setRole`, { userId: "t8-w", role: "reader" })).status,
    ).toBe(200);
    expect(await k.offer(id)).toEqual({ user_id: "t8-w", offered_by: "t8-o" });
    expect((await acceptOffer("t8-w", id)).status).toBe(200);
    expect((await owners(id)).owners).toEqual(["t8-w"]);
    expect((await owners(id)).roles["t8-o"]).toBe("active admin");
  });

  test("an offer pending → the resource is deleted: the offer goes with it", async () => {
    const id = await crew("t9");
    await transfer("t9-o", id, "t9-w");
    expect((await k.del("t9-o", `/v1/resources/${id}`)).status).toBe(200);
    expect(await k.offer(id)).toBeNull();
    expectError(await acceptOffer("t9-w", id), 404, "not_found");
  });

  test("a public resource changes hands the same way; a pending offer is not visible as a role", async () => {
    const board = await k.create("tp-o", "board", "public board");
    expect((await k.post("tp-m", `/v1/resources/${board.id}/join`)).status).toBe(200);
    await transfer("tp-o", board.id, "tp-m");
    expect(await k.roster("tp-m", board.id)).toEqual([
      { userId: "tp-m", role: "writer", state: "active" },
      { userId: "tp-o", role: "owner", state: "active" },
    ]);
    expect((await acceptOffer("tp-m", board.id)).status).toBe(200);
    expect(await k.roster("tp-m", board.id)).toEqual([
      { userId: "tp-m", role: "owner", state: "active" },
      { userId: "tp-o", role: "admin", state: "active" },
    ]);
  });
});

describe("every refusal, with nothing stored", () => {
  test("transferOwnership: not the owner, the owner itself, a target that is not an active member, unknown ids", async () => {
    const id = await crew("rx");
    const other = await k.create("rx-elsewhere", "team", "other app team", undefined, "other-web");
    const before = await k.snapshot();
    expectError(await transfer("rx-a", id, "rx-w"), 403, "forbidden");
    expectError(await transfer("rx-w", id, "rx-r"), 403, "forbidden");
    expectError(await transfer("rx-r", id, "rx-w"), 403, "forbidden");
    expectError(await transfer("rx-o", id, "rx-o"), 403, "target_is_owner");
    expectError(await transfer("rx-o", id, "rx-inv"), 404, "not_a_member");
    expectError(await transfer("rx-o", id, "rx-ask"), 404, "not_a_member");
    expectError(await transfer("rx-o", id, "rx-nobody"), 404, "not_a_member");
    // Users who cannot see a members-only resource get the answer of one that does not exist.
    expectError(await transfer("rx-ask", id, "rx-w"), 404, "not_found");
    expectError(await transfer("rx-stranger", id, "rx-w"), 404, "not_found");
    expectError(await transfer("rx-o", Bun.randomUUIDv7(), "rx-w"), 404, "not_found");
    expectError(await transfer("rx-o", "not-a-uuid", "rx-w"), 404, "not_found");
    expectError(await transfer("rx-o", other.id, "rx-w"), 404, "not_found");
    // The invited user sees the resource, but is not its owner.
    expectError(await transfer("rx-inv", id, "rx-w"), 403, "forbidden");
    expect(await k.snapshot()).toEqual(before);
  });

  test("acceptOwnership, declineOwnership: no offer, someone else's offer, not a member", async () => {
    const id = await crew("ry");
    const before = await k.snapshot();
    for (const user of ["ry-w", "ry-o", "ry-a"]) {
      expectError(await acceptOffer(user, id), 404, "no_pending_offer");
      expectError(await declineOffer(user, id), 404, "no_pending_offer");
    }
    expect(await k.snapshot()).toEqual(before);
    await transfer("ry-o", id, "ry-w");
    const offered = await k.snapshot();
    for (const user of ["ry-o", "ry-a", "ry-r", "ry-inv"]) {
      expectError(await acceptOffer(user, id), 404, "no_pending_offer");
      expectError(await declineOffer(user, id), 404, "no_pending_offer");
    }
    expectError(await acceptOffer("ry-stranger", id), 404, "not_found");
    expectError(await acceptOffer("ry-ask", id), 404, "not_found");
    expectError(await acceptOffer("ry-w", Bun.randomUUIDv7()), 404, "not_found");
    expect(await k.snapshot()).toEqual(offered);
  });

  test("cancelOwnership: not the owner (the target included), no offer", async () => {
    const id = await crew("rz");
    const before = await k.snapshot();
    expectError(await cancelOffer("rz-o", id), 404, "no_pending_offer");
    expect(await k.snapshot()).toEqual(before);
    await transfer("rz-o", id, "rz-w");
    const offered = await k.snapshot();
    expectError(await cancelOffer("rz-w", id), 403, "forbidden");
    expectError(await cancelOffer("rz-a", id), 403, "forbidden");
    expectError(await cancelOffer("rz-stranger", id), 404, "not_found");
    expect(await k.snapshot()).toEqual(offered);
  });

  test("_app and app-owned statics never change hands, whoever asks", async () => {
    const app = await k.appResourceId();
    const feed = await k.staticId("feed", "global");
    await k.gw.gateway.membership.joinAppResource("main", "ra-user");
    await k.gw.gateway.membership.joinAppResource("main", "ra-other");
    expect((await k.post("ra-user", `/v1/resources/${feed}/join`)).status).toBe(200);
    expect((await k.post("ra-other", `/v1/resources/${feed}/join`)).status).toBe(200);
    const before = await k.snapshot();
    for (const id of [app, feed]) {
      expectError(await transfer("ra-user", id, "ra-other"), 403, "app_resource_untransferable");
      expectError(await acceptOffer("ra-other", id), 403, "app_resource_untransferable");
      expectError(await declineOffer("ra-other", id), 403, "app_resource_untransferable");
      expectError(await cancelOffer("ra-user", id), 403, "app_resource_untransferable");
    }
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("bad input: always a 4xx {error, code}, the database unchanged", () => {
  const endpoints = ["transferOwnership", "acceptOwnership", "declineOwnership", "cancelOwnership"];

  test("malformed JSON on each of the four routes: 400 invalid_json", async () => {
    const id = await crew("bj");
    await transfer("bj-o", id, "bj-w");
    const before = await k.snapshot();
    for (const action of endpoints)
      for (const body of ["{", '{"userId":', "{'userId':'bj-w'}", "nul", "{}}"])
        for (const user of ["bj-o", "bj-w"])
          expectError(
            await k.call(user, "POST", `/v1/resources/${id}/${action}`, undefined, { rawBody: body }),
            400,
            "invalid_json",
          );
    expect(await k.snapshot()).toEqual(before);
  });

  test("wrong types, missing, empty, oversized and control-character user ids: 400 invalid_request naming userId", async () => {
    const id = await crew("bt");
    const before = await k.snapshot();
    for (const userId of [
      5,
      null,
      ["bt-w"],
      { id: "bt-w" },
      true,
      "",
      "x".repeat(10_000),
      "bt\u0000w",
      "bt\nw",
    ]) {
      const reply = await transfer("bt-o", id, userId);
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error).toContain("userId");
    }
    for (const body of [{}, [], "bt-w", 7])
      expectError(
        await k.call("bt-o", "POST", `/v1/resources/${id}/transferOwnership`, body),
        400,
        "invalid_request",
      );
    expectError(
      await k.call("bt-o", "POST", `/v1/resources/${id}/transferOwnership`, undefined, {
        rawBody: "userId=bt-w",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "unsupported_media_type",
    );
    expect(await k.snapshot()).toEqual(before);
  });

  test("look-alike user ids (bidi override, zero-width, lone surrogate) are 400 naming userId", async () => {
    const id = await crew("bl");
    const before = await k.snapshot();
    for (const text of ["bl-\u202Ew", "bl-\u200Bw", "\u200B", "bl-\u200Dw", "bl-\uD800w", "bl-\u0007w"]) {
      const reply = await k.call("bl-o", "POST", `/v1/resources/${id}/transferOwnership`, undefined, {
        rawBody: JSON.stringify({ userId: text }),
      });
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error).toContain("userId");
    }
    // A look-alike of a member's id (Cyrillic "а" for "a") is simply another user: not a member.
    expectError(await transfer("bl-o", id, "bl-\u0430"), 404, "not_a_member");
    expect(await k.snapshot()).toEqual(before);
  });

  test("a 100 KiB body is 413; no credential is 401; a cookie without CSRF is 403", async () => {
    const id = await crew("bs");
    const before = await k.snapshot();
    const payload = JSON.stringify({ userId: "x".repeat(100 * 1024) });
    for (const action of endpoints) {
      expectError(
        await k.call("bs-o", "POST", `/v1/resources/${id}/${action}`, undefined, { rawBody: payload }),
        413,
        "payload_too_large",
      );
      expectError(
        await k.raw(`/v1/resources/${id}/${action}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ userId: "bs-w" }),
        }),
        401,
        "unauthenticated",
      );
      const headers = { ...(await k.h("bs-o")) };
      delete headers["x-service-csrf"];
      expectError(
        await k.raw(`/v1/resources/${id}/${action}`, {
          method: "POST",
          headers,
          body: JSON.stringify({ userId: "bs-w" }),
        }),
        403,
        "csrf_required",
      );
    }
    expect(await k.snapshot()).toEqual(before);
  });
});

describe("concurrency: exactly one owner, whatever wins", () => {
  /** The invariants of one resource after a race; returns who owns it. */
  async function oneOwner(id: string, original: string): Promise<string> {
    const state = await owners(id);
    expect(state.owners.length).toBe(1);
    expect(state.ownerId).toBe(state.owners[0]);
    const accepted = (await k.events(id)).filter((e) => e.type === "ownership.accepted");
    if (state.ownerId === original) {
      expect(accepted).toEqual([]);
    } else {
      // Ownership moved exactly once, to someone who accepted, and the previous owner is an admin.
      expect(accepted.map((e) => e.user_id)).toEqual([state.ownerId]);
      expect(state.roles[original]).toBe("active admin");
    }
    expect(await k.offer(id)).toBeNull();
    return state.ownerId;
  }

  test("accept and cancel fired together on 20 resources: one wins, the other is refused, one owner each", async () => {
    const teams: string[] = [];
    for (let i = 0; i < 20; i++) {
      const t = await k.create("ca-o", "team", `race ${i}`);
      await k.addMember("ca-o", t.id, `ca-m${i}`, "writer");
      await transfer("ca-o", t.id, `ca-m${i}`);
      teams.push(t.id);
    }
    const replies = await Promise.all(
      teams.flatMap((id, i) => [acceptOffer(`ca-m${i}`, id), cancelOffer("ca-o", id)]),
    );
    for (const [i, id] of teams.entries()) {
      const [accept, cancel] = [replies[2 * i]!, replies[2 * i + 1]!];
      const owner = await oneOwner(id, "ca-o");
      const events = (await k.events(id)).map((e) => e.type).filter((t) => t.startsWith("ownership."));
      if (owner === "ca-o") {
        // The cancel won: the accept found no offer.
        expect(cancel.status).toBe(200);
        expectError(accept, 404, "no_pending_offer");
        expect(events).toEqual(["ownership.offered", "ownership.cancelled"]);
        expect((await owners(id)).roles[`ca-m${i}`]).toBe("active writer");
      } else {
        // The accept won: the cancel came from someone who is no longer the owner.
        expect(owner).toBe(`ca-m${i}`);
        expect(accept.status).toBe(200);
        expectError(cancel, 403, "forbidden");
        expect(events).toEqual(["ownership.offered", "ownership.accepted"]);
      }
      expect(await k.memberCount(id)).toBe(2);
    }
  }, 30_000);

  test("an accept racing a new offer to someone else and that one's accept: never two owners", async () => {
    const teams: string[] = [];
    for (let i = 0; i < 15; i++) {
      const t = await k.create("cb-o", "team", `race b ${i}`);
      await k.addMember("cb-o", t.id, `cb-x${i}`, "writer");
      await k.addMember("cb-o", t.id, `cb-y${i}`, "writer");
      await transfer("cb-o", t.id, `cb-x${i}`);
      teams.push(t.id);
    }
    const replies: Array<[Reply, Reply, Reply]> = await Promise.all(
      teams.map((id, i) =>
        Promise.all([
          acceptOffer(`cb-x${i}`, id),
          transfer("cb-o", id, `cb-y${i}`).then(
            async (offered): Promise<[Reply, Reply]> => [offered, await acceptOffer(`cb-y${i}`, id)],
          ),
        ]).then(([x, [offered, y]]): [Reply, Reply, Reply] => [x, offered, y]),
      ),
    );
    for (const [i, id] of teams.entries()) {
      const [x, offered, y] = replies[i]!;
      const owner = await oneOwner(id, "cb-o");
      // At most one accept succeeded, and only the owner of the moment could offer.
      expect([x.status, y.status].filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      if (x.status === 200) {
        expect(owner).toBe(`cb-x${i}`);
        expectError(offered, 403, "forbidden");
      }
      if (y.status === 200) expect(owner).toBe(`cb-y${i}`);
      expect(await k.memberCount(id)).toBe(3);
    }
  }, 30_000);
});
