/** Creating resources and reading them: POST /v1/resources, GET list, GET /:id, GET /static, views, `_app`. */
import { afterAll, describe, expect, test } from "bun:test";
import { expectError, expectView, type Json, makeKit, TEST_APPS, UUID_V7 } from "../helpers/resources-kit.ts";

const k = await makeKit(TEST_APPS);
afterAll(() => k.gw.gateway.close());

describe("POST /v1/resources (lifecycle: (none) → exists)", () => {
  test("the caller becomes the active owner; view, row, member row and event", async () => {
    const reply = await k.post("cr-alice", "/v1/resources", { type: "team", name: "  Core team  " });
    expect(reply.status).toBe(200);
    expectView(reply.body, false);
    expect(reply.body).toMatchObject({
      type: "team",
      name: "Core team",
      visibility: "members",
      discoverable: false,
    });
    expect(reply.body.id).toMatch(UUID_V7);
    const id = reply.body.id;
    const row = await k.resource(id);
    expect(row).toMatchObject({
      app_id: "main",
      type: "team",
      name: "Core team",
      owner_id: "cr-alice",
      member_count: 1,
    });
    expect(await k.members(id)).toEqual([
      {
        resource_id: id,
        user_id: "cr-alice",
        app_id: "main",
        role: "owner",
        state: "active",
        invited_by: null,
      },
    ]);
    expect(await k.events(id)).toEqual([
      {
        type: "resource.created",
        actor: "cr-alice",
        resource_id: id,
        user_id: "cr-alice",
        data: JSON.stringify({ type: "team" }),
      },
    ]);
    expect(await k.roster("cr-alice", id)).toEqual([{ userId: "cr-alice", role: "owner", state: "active" }]);
  });

  test.each([
    ["members", "members", false],
    ["unlisted", "public", false],
    ["discoverable", "public", true],
  ])("visibility %s compiles to the stored pair (%s, %s)", async (enumValue, visibility, discoverable) => {
    const view = await k.create("cr-vis", "team", `vis ${enumValue}`, enumValue);
    expect(view).toMatchObject({ visibility, discoverable });
    const row = await k.resource(view.id);
    expect({ visibility: row.visibility, discoverable: Boolean(row.discoverable) }).toEqual({
      visibility,
      discoverable,
    });
    const got = await k.get("cr-vis", `/v1/resources/${view.id}`);
    expect(got.body).toMatchObject({ visibility, discoverable, memberCount: 1 });
  });

  test.each([
    ["team", "members", false],
    ["board", "public", false],
    ["album", "public", true],
  ])("without visibility, type %s takes its declared default", async (type, visibility, discoverable) => {
    const view = await k.create("cr-def", type, `default ${type}`);
    expect(view).toMatchObject({ type, visibility, discoverable });
  });

  test("a name of exactly 200 characters (after trimming) is accepted", async () => {
    const name = "n".repeat(200);
    const view = await k.create("cr-long", "team", `   ${name}\t `);
    expect(view.name).toBe(name);
  });

  test("reserved type: 403 reserved_type, nothing stored", async () => {
    await k.users("cr-res");
    const before = await k.snapshot();
    expectError(
      await k.post("cr-res", "/v1/resources", { type: "feed", name: "mine" }),
      403,
      "reserved_type",
    );
    expectError(
      await k.post("cr-res", "/v1/resources", { type: "_app", name: "mine" }),
      403,
      "reserved_type",
    );
    expect(await k.snapshot()).toEqual(before);
  });

  test("unknown type: 404 unknown_type, nothing stored", async () => {
    await k.users("cr-unk");
    await k.h("cr-unk", "other-web");
    const before = await k.snapshot();
    expectError(
      await k.post("cr-unk", "/v1/resources", { type: "spaceship", name: "x" }),
      404,
      "unknown_type",
    );
    // A type of another app is unknown in the caller's app.
    expectError(
      await k.post("cr-unk", "/v1/resources", { type: "capped", name: "x" }, "other-web"),
      404,
      "unknown_type",
    );
    expect(await k.snapshot()).toEqual(before);
  });

  test.each(["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"])(
    "type %s (an Object.prototype key) is unknown: 404 unknown_type, nothing stored",
    async (type) => {
      await k.users("cr-proto");
      const before = await k.snapshot();
      expectError(await k.post("cr-proto", "/v1/resources", { type, name: "proto" }), 404, "unknown_type");
      expect(await k.snapshot()).toEqual(before);
    },
  );
});

describe("GET /v1/resources (the caller's resources)", () => {
  test("lists active memberships of the caller's app, newest first, filtered by type", async () => {
    const a = await k.create("ls-ann", "team", "ls one");
    const b = await k.create("ls-ann", "board", "ls two");
    const c = await k.create("ls-ann", "team", "ls three");
    await k.create("ls-ann", "team", "other app", undefined, "other-web");
    await k.create("ls-bob", "team", "not mine");
    const all = await k.get("ls-ann", "/v1/resources");
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(["resources"]);
    expect(all.body.resources.map((r: Json) => r.id)).toEqual([c.id, b.id, a.id]);
    for (const view of all.body.resources) expectView(view, false);
    const teams = await k.get("ls-ann", "/v1/resources?type=team");
    expect(teams.body.resources.map((r: Json) => r.id)).toEqual([c.id, a.id]);
    expect((await k.get("ls-ann", "/v1/resources?type=album")).body).toEqual({ resources: [] });
    const other = await k.get("ls-ann", "/v1/resources", "other-web");
    expect(other.body.resources.map((r: Json) => r.name)).toEqual(["other app"]);
  });

  test("state=invited and state=requested list pending ones; state=active is the default", async () => {
    const invitedTo = await k.create("ls-own", "team", "ls invited");
    const requestedTo = await k.create("ls-own", "team", "ls requested");
    expect(
      (await k.post("ls-own", `/v1/resources/${invitedTo.id}/invite`, { userId: "ls-pen" })).status,
    ).toBe(200);
    expect((await k.post("ls-pen", `/v1/resources/${requestedTo.id}/request`)).status).toBe(200);
    const ids = async (q: string) =>
      (await k.get("ls-pen", `/v1/resources${q}`)).body.resources.map((r: Json) => r.id);
    expect(await ids("")).toEqual([]);
    expect(await ids("?state=active")).toEqual([]);
    expect(await ids("?state=invited")).toEqual([invitedTo.id]);
    expect(await ids("?state=requested")).toEqual([requestedTo.id]);
    expect(await ids("?state=requested&type=board")).toEqual([]);
  });
});

describe("GET /v1/resources/:id", () => {
  test("an active member sees the view with memberCount (active members only)", async () => {
    const team = await k.create("id-own", "team", "id team");
    await k.addMember("id-own", team.id, "id-mem");
    await k.post("id-own", `/v1/resources/${team.id}/invite`, { userId: "id-inv" });
    await k.post("id-req", `/v1/resources/${team.id}/request`);
    const reply = await k.get("id-mem", `/v1/resources/${team.id}`);
    expect(reply.status).toBe(200);
    expectView(reply.body, true);
    expect(reply.body).toEqual({
      id: team.id,
      type: "team",
      name: "id team",
      visibility: "members",
      discoverable: false,
      memberCount: 2,
    });
  });

  test("the invited user sees a members-only resource; a requester and a stranger get 404 like a missing id", async () => {
    const team = await k.create("id-own2", "team", "id secret");
    await k.post("id-own2", `/v1/resources/${team.id}/invite`, { userId: "id-inv2" });
    await k.post("id-req2", `/v1/resources/${team.id}/request`);
    expect((await k.get("id-inv2", `/v1/resources/${team.id}`)).body).toMatchObject({
      id: team.id,
      memberCount: 1,
    });
    const requester = await k.get("id-req2", `/v1/resources/${team.id}`);
    const stranger = await k.get("id-str2", `/v1/resources/${team.id}`);
    const missing = await k.get("id-str2", `/v1/resources/${Bun.randomUUIDv7()}`);
    for (const r of [requester, stranger, missing]) expectError(r, 404, "not_found");
    expect(stranger.body).toEqual(missing.body);
    expect(requester.body).toEqual(missing.body);
  });

  test("anyone sees a public resource (unlisted or discoverable), without joining", async () => {
    const board = await k.create("id-own3", "board", "id board");
    const album = await k.create("id-own3", "album", "id album");
    for (const r of [board, album]) {
      const reply = await k.get("id-anyone", `/v1/resources/${r.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body.memberCount).toBe(1);
      expect(await k.member(r.id, "id-anyone")).toBeNull();
    }
  });

  test("a resource of another app is 404 for a caller of this app, even when public", async () => {
    const album = await k.create("id-own4", "album", "other app album", undefined, "other-web");
    expectError(await k.get("id-own4", `/v1/resources/${album.id}`), 404, "not_found");
    expect((await k.get("id-own4", `/v1/resources/${album.id}`, "other-web")).status).toBe(200);
  });
});

describe("GET /v1/resources/static and the _app resource", () => {
  test("a discoverable static is found by type and slug; view with memberCount, no slug or owner", async () => {
    const reply = await k.get("st-any", "/v1/resources/static?type=feed&slug=global");
    expect(reply.status).toBe(200);
    expectView(reply.body, true);
    expect(reply.body).toEqual({
      id: await k.staticId("feed", "global"),
      type: "feed",
      name: "Global feed",
      visibility: "public",
      discoverable: true,
      memberCount: 0,
    });
    expect((await k.resource(reply.body.id)).owner_id).toBe("app:main");
  });

  test("no such static: 404 not_found; a members-only static is 404 to a non-member", async () => {
    expectError(await k.get("st-any", "/v1/resources/static?type=feed&slug=nope"), 404, "not_found");
    expectError(await k.get("st-any", "/v1/resources/static?type=nope&slug=global"), 404, "not_found");
    expectError(await k.get("st-any", "/v1/resources/static?type=feed&slug=staff"), 404, "not_found");
    // Statics are per app.
    expectError(
      await k.get("st-any", "/v1/resources/static?type=feed&slug=global", "other-web"),
      404,
      "not_found",
    );
  });

  test("each app has an _app resource (members-only, app-owned) made at start-up; consent joins at defaultRole", async () => {
    for (const appId of ["main", "other"]) {
      const row = await k.resource(await k.appResourceId(appId));
      expect(row).toMatchObject({
        type: "_app",
        visibility: "members",
        discoverable: 0,
        owner_id: `app:${appId}`,
        slug: "_app",
      });
    }
    const id = await k.appResourceId("main");
    expectError(await k.get("st-user", "/v1/resources/static?type=_app&slug=_app"), 404, "not_found");
    expectError(await k.get("st-user", `/v1/resources/${id}`), 404, "not_found");
    const before = (await k.memberCount(id))!;
    expect(await k.gw.gateway.membership.joinAppResource("main", "st-user")).toBe(true);
    const reply = await k.get("st-user", "/v1/resources/static?type=_app&slug=_app");
    expect(reply.body).toEqual({
      id,
      type: "_app",
      name: "main",
      visibility: "members",
      discoverable: false,
      memberCount: before + 1,
    });
    expect(await k.member(id, "st-user")).toMatchObject({ role: "writer", state: "active" });
    expect(await k.lastEvent(id)).toMatchObject({ type: "member.joined", user_id: "st-user" });
    const mine = await k.get("st-user", "/v1/resources?type=_app");
    expect(mine.body.resources.map((r: Json) => r.id)).toEqual([id]);
  });

  test("joining a discoverable static makes the caller an active member at the type's default role", async () => {
    const id = await k.staticId("feed", "global");
    const before = (await k.memberCount(id))!;
    const reply = await k.post("st-joiner", `/v1/resources/${id}/join`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, state: "active", joined: true });
    expect(await k.member(id, "st-joiner")).toMatchObject({ role: "writer", state: "active" });
    expect((await k.get("st-joiner", "/v1/resources/static?type=feed&slug=global")).body.memberCount).toBe(
      before + 1,
    );
  });
});

describe("GET /v1/resources/:id/members", () => {
  test("active members see active and pending entries {userId, role, state} only", async () => {
    const t = await k.create("mb-own", "board", "roster board");
    await k.addMember("mb-own", t.id, "mb-rdr", "reader");
    await k.post("mb-own", `/v1/resources/${t.id}/invite`, { userId: "mb-inv", role: "admin" });
    await k.post("mb-ask", `/v1/resources/${t.id}/request`);
    const reply = await k.get("mb-rdr", `/v1/resources/${t.id}/members`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(["members"]);
    for (const m of reply.body.members) expect(Object.keys(m).sort()).toEqual(["role", "state", "userId"]);
    expect(await k.roster("mb-rdr", t.id)).toEqual([
      { userId: "mb-ask", role: "writer", state: "requested" },
      { userId: "mb-inv", role: "admin", state: "invited" },
      { userId: "mb-own", role: "owner", state: "active" },
      { userId: "mb-rdr", role: "reader", state: "active" },
    ]);
  });

  test("public resource: a non-member or pending user gets 403 forbidden; members-only: 404 not_found", async () => {
    const board = await k.create("mb-own2", "album", "roster public");
    const team = await k.create("mb-own2", "team", "roster private");
    for (const r of [board, team]) {
      await k.post("mb-own2", `/v1/resources/${r.id}/invite`, { userId: "mb-inv2" });
      await k.post("mb-ask2", `/v1/resources/${r.id}/request`);
    }
    for (const user of ["mb-str2", "mb-inv2", "mb-ask2"])
      expectError(await k.get(user, `/v1/resources/${board.id}/members`), 403, "forbidden");
    for (const user of ["mb-str2", "mb-inv2", "mb-ask2"])
      expectError(await k.get(user, `/v1/resources/${team.id}/members`), 404, "not_found");
    expectError(await k.get("mb-str2", `/v1/resources/${Bun.randomUUIDv7()}/members`), 404, "not_found");
    const otherApp = await k.create("mb-own2", "album", "roster other app", undefined, "other-web");
    expectError(await k.get("mb-own2", `/v1/resources/${otherApp.id}/members`), 404, "not_found");
  });
});
