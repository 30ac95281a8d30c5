/**
 * The operator's roster actions (POST /admin/v1/resources/:id/setRole and /remove) and GET
 * /admin/v1/resources/:id: the public API's rules with the operator ranked as an owner (never the owner
 * itself, never above the type's grant ceiling, a pending user's invite or request is cancelled), the
 * same stored change and the same event as the public API, acting as `admin`; the members see the change
 * through the public API. Bad input (malformed JSON, wrong types, unknown ids) is a 4xx `{error, code}`
 * and changes nothing in the database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, type Json, type Kit, makeKit, type Reply } from "../helpers/resources-kit.ts";

const TOKEN = "roster-admin-token";
const UNKNOWN_ID = "0190d7a0-0000-7000-8000-00000000dead";

let kit: Kit;
beforeAll(async () => {
  kit = await makeKit(undefined, { ADMIN_TOKEN: TOKEN });
  await kit.users("olivia", "bob", "carol", "dave", "erin");
});
afterAll(() => kit.gw.gateway.close());

async function admin(method: string, path: string, body?: unknown, rawBody?: string): Promise<Reply> {
  const res = await kit.gw.admin(path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, text };
}

/** A members-only team owned by olivia with bob (writer) and carol (reader) active, dave invited. */
async function team(type = "team") {
  const { id } = await kit.create("olivia", type, `Roster ${type} ${crypto.randomUUID().slice(0, 6)}`);
  await kit.addMember("olivia", id, "bob", "writer");
  await kit.addMember("olivia", id, "carol", "reader");
  expect((await kit.post("olivia", `/v1/resources/${id}/invite`, { userId: "dave" })).status).toBe(200);
  return id;
}

/** Expects a refusal that changed no row of resources, members or events. */
async function refused(call: () => Promise<Reply>, status: number, code: string) {
  const before = await kit.snapshot();
  expectError(await call(), status, code);
  expect(await kit.snapshot()).toEqual(before);
}

describe("POST /admin/v1/resources/:id/setRole", () => {
  test("changes an active member's role: stored, audited like the public API, seen by the members", async () => {
    const id = await team();
    const reply = await admin("POST", `/admin/v1/resources/${id}/setRole`, { userId: "bob", role: "admin" });
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 200,
      body: { ok: true, role: "admin" },
    });
    expect(await kit.member(id, "bob")).toMatchObject({ role: "admin", state: "active" });
    expect(await kit.lastEvent(id)).toEqual({
      type: "member.role_changed",
      actor: "admin",
      resource_id: id,
      user_id: "bob",
      data: JSON.stringify({ role: "admin" }),
    });
    // The same change through the public API writes the same event but for its actor.
    expect(
      (await kit.post("olivia", `/v1/resources/${id}/setRole`, { userId: "carol", role: "writer" })).status,
    ).toBe(200);
    const publicEvent = await kit.lastEvent(id);
    expect((await kit.events(id)).at(-2)).toEqual({
      ...publicEvent!,
      actor: "admin",
      user_id: "bob",
      data: JSON.stringify({ role: "admin" }),
    });
    // The members see it: bob is now an admin (he may invite), the roster says so.
    const roster = await kit.roster("carol", id);
    expect(roster.find((m) => m.userId === "bob")).toMatchObject({ role: "admin", state: "active" });
    expect(
      (await kit.post("bob", `/v1/resources/${id}/invite`, { userId: "erin", role: "reader" })).status,
    ).toBe(200);
  });

  test("the operator may demote an admin (owner's rank) and works on any app's resources", async () => {
    const { id } = await kit.create("olivia", "team", "Other app team", undefined, "other-web");
    const other = (user: string, action: string, body?: unknown) =>
      kit.post(user, `/v1/resources/${id}/${action}`, body, "other-web");
    expect((await other("olivia", "invite", { userId: "bob", role: "admin" })).status).toBe(200);
    expect((await other("bob", "accept")).status).toBe(200);
    const reply = await admin("POST", `/admin/v1/resources/${id}/setRole`, { userId: "bob", role: "reader" });
    expect(reply.status).toBe(200);
    expect(await kit.member(id, "bob")).toMatchObject({ app_id: "other", role: "reader" });
  });

  test("the public API's refusals: the owner, above the ceiling, an invalid role, not an active member", async () => {
    const id = await team();
    const capped = await team("capped"); // grant ceiling: writer
    const setRole = (resource: string, body: unknown) => () =>
      admin("POST", `/admin/v1/resources/${resource}/setRole`, body);
    await refused(setRole(id, { userId: "olivia", role: "admin" }), 403, "target_is_owner");
    await refused(setRole(capped, { userId: "bob", role: "admin" }), 403, "role_above_ceiling");
    await refused(setRole(id, { userId: "bob", role: "owner" }), 400, "invalid_role");
    await refused(setRole(id, { userId: "bob", role: "superuser" }), 400, "invalid_role");
    await refused(setRole(id, { userId: "dave", role: "writer" }), 404, "not_a_member"); // invited only
    await refused(setRole(id, { userId: "nobody", role: "writer" }), 404, "not_a_member");
    await refused(setRole(UNKNOWN_ID, { userId: "bob", role: "writer" }), 404, "not_found");
    expect(await kit.member(id, "bob")).toMatchObject({ role: "writer" });
  });

  test("bad input: malformed JSON, wrong types, missing fields, an empty body", async () => {
    const id = await team();
    const path = `/admin/v1/resources/${id}/setRole`;
    await refused(() => admin("POST", path, undefined, "{not json"), 400, "invalid_json");
    for (const body of [
      { userId: 5, role: "admin" },
      { userId: "bob", role: 7 },
      { userId: "bob" },
      { role: "admin" },
      { userId: "", role: "admin" },
      { userId: "b\u0000ob", role: "admin" },
      [],
      "bob",
    ]) {
      await refused(() => admin("POST", path, body), 400, "invalid_request");
    }
    await refused(() => admin("POST", path, undefined, ""), 400, "invalid_request");
  });
});

describe("POST /admin/v1/resources/:id/remove", () => {
  test("removes an active member: gone, counted, audited like the public API, and the member sees it", async () => {
    const id = await team();
    expect(await kit.memberCount(id)).toBe(3);
    const reply = await admin("POST", `/admin/v1/resources/${id}/remove`, { userId: "bob" });
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: { ok: true } });
    expect(await kit.member(id, "bob")).toBeNull();
    expect(await kit.memberCount(id)).toBe(2);
    expect(await kit.lastEvent(id)).toEqual({
      type: "member.removed",
      actor: "admin",
      resource_id: id,
      user_id: "bob",
      data: JSON.stringify({ was: "active" }),
    });
    // The public API's remove of carol writes the same event for its actor.
    expect((await kit.post("olivia", `/v1/resources/${id}/remove`, { userId: "carol" })).status).toBe(200);
    const publicEvent = await kit.lastEvent(id);
    expect((await kit.events(id)).at(-2)).toEqual({ ...publicEvent!, actor: "admin", user_id: "bob" });
    // bob no longer sees the members-only resource; the owner's roster lacks him.
    expect((await kit.get("bob", `/v1/resources/${id}`)).status).toBe(404);
    expect((await kit.roster("olivia", id)).map((m) => m.userId)).toEqual(["dave", "olivia"]);
  });

  test("a pending user's invite is cancelled (counted nowhere), and they may be invited again", async () => {
    const id = await team();
    const reply = await admin("POST", `/admin/v1/resources/${id}/remove`, { userId: "dave" });
    expect(reply.status).toBe(200);
    expect(await kit.member(id, "dave")).toBeNull();
    expect(await kit.memberCount(id)).toBe(3);
    expect(await kit.lastEvent(id)).toMatchObject({
      type: "member.removed",
      actor: "admin",
      user_id: "dave",
      data: JSON.stringify({ was: "invited" }),
    });
    const invited = await kit.get("dave", "/v1/resources?state=invited");
    expect(invited.body.resources.map((r: Json) => r.id)).not.toContain(id);
    expect((await kit.post("olivia", `/v1/resources/${id}/invite`, { userId: "dave" })).status).toBe(200);
  });

  test("refusals change nothing: the owner, an unknown user or resource, bad input", async () => {
    const id = await team();
    const path = `/admin/v1/resources/${id}/remove`;
    await refused(() => admin("POST", path, { userId: "olivia" }), 403, "target_is_owner");
    await refused(() => admin("POST", path, { userId: "nobody" }), 404, "not_a_member");
    await refused(
      () => admin("POST", `/admin/v1/resources/${UNKNOWN_ID}/remove`, { userId: "bob" }),
      404,
      "not_found",
    );
    await refused(() => admin("POST", path, undefined, '{"userId": "bob"'), 400, "invalid_json");
    for (const body of [{ userId: 42 }, {}, { userId: null }, { userId: "x".repeat(300) }]) {
      await refused(() => admin("POST", path, body), 400, "invalid_request");
    }
    expect((await kit.members(id)).map((m) => m.user_id)).toEqual(["bob", "carol", "dave", "olivia"]);
  });
});

describe("the onMemberRemove policies", () => {
  test("apply to the operator's removal as to the public API's", async () => {
    const seamKit = await makeKit(
      {
        apps: [
          {
            id: "main",
            clients: [{ clientId: "web", redirectUris: ["http://localhost/cb"] }],
            types: { room: { visibility: "discoverable" } },
            sharedTables: { notes: { onMemberRemove: "remove" }, posts: { onMemberRemove: "hide" } },
          },
        ],
      },
      { ADMIN_TOKEN: TOKEN },
    );
    try {
      const { id } = await seamKit.create("olivia", "room", "Policy room", "discoverable");
      const link = (table: string, rowId: string) =>
        seamKit.gw.admin("/admin/v1/data/links", {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ resourceId: id, table, rowId, userId: "bob" }),
        });
      expect((await link("notes", "n1")).status).toBe(200); // bob joins on his first write
      expect((await link("posts", "p1")).status).toBe(200);
      const remove = await seamKit.gw.admin(`/admin/v1/resources/${id}/remove`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ userId: "bob" }),
      });
      expect(remove.status).toBe(200);
      const links = await (
        await seamKit.gw.admin(`/admin/v1/data/links?resourceId=${id}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json();
      expect(links.links).toEqual([{ table: "posts", rowId: "p1", contributorId: "bob", hidden: true }]);
      expect(await seamKit.member(id, "bob")).toBeNull();
    } finally {
      seamKit.gw.gateway.close();
    }
  });
});

describe("GET /admin/v1/resources/:id", () => {
  test("one resource as the list shows it; 404 for an unknown id", async () => {
    const id = await team();
    const one = await admin("GET", `/admin/v1/resources/${id}`);
    expect(one.status).toBe(200);
    const listed = (await admin("GET", "/admin/v1/resources?type=team&limit=100")).body.resources.find(
      (r: Json) => r.id === id,
    );
    expect(one.body).toEqual(listed);
    expect(one.body).toMatchObject({
      id,
      appId: "main",
      type: "team",
      visibility: "members",
      memberCount: 3,
    });
    expectError(await admin("GET", `/admin/v1/resources/${UNKNOWN_ID}`), 404, "not_found");
  });
});
