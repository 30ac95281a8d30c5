/**
 * DELETE /admin/v1/users/:id/sessions (revoke all of a user's sessions) and GET /admin/v1/audit (the
 * audit log, newest first, filtered and paged): every live session of that user ends at once (the cookie
 * is refused on the next request), each audited as the single revoke is, and no one else's; the audit
 * list shows exactly the event rows, filters by type, user (acted on or acting) and resource, and walks
 * its pages without a repeat. Bad input is a 400 `{error, code}` that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sessionFor } from "../helpers/in-process.ts";
import { expectError, type Json, type Kit, makeKit, type Reply } from "../helpers/resources-kit.ts";

const TOKEN = "user-admin-token";

let kit: Kit;
beforeAll(async () => {
  kit = await makeKit(undefined, { ADMIN_TOKEN: TOKEN });
});
afterAll(() => kit.gw.gateway.close());

async function admin(method: string, path: string): Promise<Reply> {
  const res = await kit.gw.admin(path, { method, headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, text };
}

const liveSessions = (userId: string) =>
  kit.db.all<{ id: string }>(
    "SELECT id FROM sessions WHERE user_id = ? AND ended_at IS NULL ORDER BY id",
    userId,
  );

describe("DELETE /admin/v1/users/:id/sessions", () => {
  test("ends every live session of the user, audited one by one; the cookies are refused at once", async () => {
    const first = await sessionFor(kit.gw, "rita");
    const second = await sessionFor(kit.gw, "rita", "other-web");
    const bystander = await sessionFor(kit.gw, "sam");
    const ids = (await liveSessions("rita")).map((s) => s.id);
    expect(ids.length).toBe(2);
    expect((await kit.raw("/v1/resources", { headers: first })).status).toBe(200);

    const reply = await admin("DELETE", "/admin/v1/users/rita/sessions");
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 200,
      body: { ok: true, revoked: 2 },
    });
    expect(await liveSessions("rita")).toEqual([]);
    expect((await liveSessions("sam")).length).toBe(1);
    for (const headers of [first, second]) {
      expectError(await kit.raw("/v1/resources", { headers }), 401, "unauthenticated");
    }
    expect((await kit.raw("/v1/resources", { headers: bystander })).status).toBe(200);
    const ended = await kit.db.all(
      "SELECT actor, user_id, data FROM events WHERE type = 'session.ended' AND user_id = 'rita' ORDER BY id",
    );
    expect(
      ended.map((e) => [e.actor, e.user_id, JSON.parse(e.data).sessionId, JSON.parse(e.data).reason]),
    ).toEqual(expect.arrayContaining(ids.map((id) => ["admin", "rita", id, "revoked"])));
    expect(ended.length).toBe(2);
    // The sessions list no longer has them; the user detail shows none.
    expect((await admin("GET", "/admin/v1/users/rita")).body.sessions).toEqual([]);

    // Again: nothing live is left, nothing is written.
    const before = await kit.eventCount();
    expect((await admin("DELETE", "/admin/v1/users/rita/sessions")).body).toEqual({ ok: true, revoked: 0 });
    expect(await kit.eventCount()).toBe(before);
  });

  test("a user with more than a page of sessions loses them all", async () => {
    for (let i = 0; i < 105; i++) await sessionFor(kit.gw, "busy");
    expect((await admin("DELETE", "/admin/v1/users/busy/sessions")).body).toEqual({ ok: true, revoked: 105 });
    expect(await liveSessions("busy")).toEqual([]);
  });

  test("a user never seen: nothing to revoke; a bad id is 400 and changes nothing", async () => {
    expect((await admin("DELETE", "/admin/v1/users/never-seen/sessions")).body).toEqual({
      ok: true,
      revoked: 0,
    });
    await sessionFor(kit.gw, "tess");
    const before = await kit.eventCount();
    for (const bad of ["%E0%A4%A", "a%0Ab", "%00", "x".repeat(300)]) {
      expectError(await admin("DELETE", `/admin/v1/users/${bad}/sessions`), 400, "invalid_request");
    }
    expect((await liveSessions("tess")).length).toBe(1);
    expect(await kit.eventCount()).toBe(before);
  });
});

describe("GET /admin/v1/audit", () => {
  test("the event rows newest first, with their fields; filters by type, user and resource", async () => {
    await kit.users("uma", "vic");
    const { id } = await kit.create("uma", "team", "Audited team");
    await kit.addMember("uma", id, "vic", "reader");
    const rows = await kit.db.all(
      "SELECT id, type, actor, user_id, resource_id FROM events ORDER BY id DESC",
    );

    const all = await admin("GET", "/admin/v1/audit?limit=100");
    expect(all.status).toBe(200);
    expect(
      all.body.events.slice(0, 5).map((e: Json) => [e.id, e.type, e.actor, e.userId, e.resourceId]),
    ).toEqual(rows.slice(0, 5).map((r) => [r.id, r.type, r.actor, r.user_id, r.resource_id]));
    expect(all.body.events[0]).toEqual({
      id: rows[0]!.id,
      type: "member.accepted",
      actor: "vic",
      resourceId: id,
      userId: "vic",
      data: { role: "reader" },
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const byResource = await admin("GET", `/admin/v1/audit?resourceId=${id}`);
    expect(byResource.body.events.map((e: Json) => e.type)).toEqual([
      "member.accepted",
      "member.invited",
      "resource.created",
    ]);
    const byType = await admin("GET", "/admin/v1/audit?type=member.invited&limit=100");
    expect(byType.body.events.length).toBeGreaterThan(0);
    expect(byType.body.events.every((e: Json) => e.type === "member.invited")).toBe(true);
    // A user's events: those about them and those they made (uma invited vic).
    const uma = await admin("GET", "/admin/v1/audit?userId=uma&limit=100");
    const umaRows = rows.filter((r) => r.user_id === "uma" || r.actor === "uma").map((r) => r.id);
    expect(uma.body.events.map((e: Json) => e.id)).toEqual(umaRows);
    expect(uma.body.events.some((e: Json) => e.userId === "vic" && e.actor === "uma")).toBe(true);
    const both = await admin("GET", `/admin/v1/audit?userId=vic&type=member.invited&resourceId=${id}`);
    expect(both.body.events.map((e: Json) => [e.type, e.userId])).toEqual([["member.invited", "vic"]]);
    expect((await admin("GET", "/admin/v1/audit?userId=nobody")).body).toEqual({
      events: [],
      nextCursor: null,
    });
  });

  test("pages walk every row once, newest first, and agree with one big page", async () => {
    const ids = (await kit.db.all("SELECT id FROM events ORDER BY id DESC")).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(100); // more than one full page
    const walked: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply = await admin(
        "GET",
        `/admin/v1/audit?limit=30${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.events.length).toBeLessThanOrEqual(30);
      walked.push(...page.body.events);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(walked.map((e) => e.id)).toEqual(ids);
    expect(walked.slice(0, 100)).toEqual((await admin("GET", "/admin/v1/audit?limit=100")).body.events);
  });

  test("bad input: limit, a cursor it did not give, a control character", async () => {
    const resourcesCursor = (await admin("GET", "/admin/v1/resources?limit=1")).body.nextCursor;
    expect(resourcesCursor).toBeString();
    for (const query of [
      "limit=0",
      "limit=x",
      "cursor=nonsense",
      `cursor=${encodeURIComponent(resourcesCursor)}`,
      "userId=",
      "type=a%0Ab",
      "resourceId=%00",
    ]) {
      expectError(await admin("GET", `/admin/v1/audit?${query}`), 400, "invalid_request");
    }
  });
});

describe("query: a case-insensitive substring search on the sessions, pending and audit lists", () => {
  test("matches any of the row's ids and words, `%` and `_` as themselves; a control character is 400", async () => {
    await sessionFor(kit.gw, "Quincy_Search", "other-web");
    await sessionFor(kit.gw, "quincy-2");
    await sessionFor(kit.gw, "q%nobody");
    const sessions = async (query: string) =>
      (await admin("GET", `/admin/v1/sessions?limit=100&query=${encodeURIComponent(query)}`)).body.sessions
        .map((s: Json) => s.userId)
        .sort();
    expect(await sessions("QUINCY")).toEqual(["Quincy_Search", "quincy-2"]);
    expect(await sessions("cy_s")).toEqual(["Quincy_Search"]); // `_` is not a wildcard
    expect(await sessions("%")).toEqual(["q%nobody"]);
    expect(await sessions("other-w")).toEqual(["Quincy_Search"]); // the client id
    const id = (await liveSessions("quincy-2"))[0]!.id;
    expect(await sessions(id.slice(3, 12))).toEqual(["quincy-2"]); // the session id

    const { id: resourceId } = await kit.create("uma", "team", "Searchable Crew");
    expect((await kit.post("uma", `/v1/resources/${resourceId}/invite`, { userId: "wendy" })).status).toBe(
      200,
    );
    const pending = async (query: string) =>
      (await admin("GET", `/admin/v1/pending?query=${encodeURIComponent(query)}`)).body.pending.map(
        (p: Json) => [p.resourceName, p.userId],
      );
    expect(await pending("searchable crew")).toEqual([["Searchable Crew", "wendy"]]);
    expect(await pending("WEND")).toEqual([["Searchable Crew", "wendy"]]);
    expect(await pending("uma")).toContainEqual(["Searchable Crew", "wendy"]); // the inviter
    expect(await pending("no-such-thing")).toEqual([]);

    const audit = async (query: string) =>
      (await admin("GET", `/admin/v1/audit?limit=100&query=${encodeURIComponent(query)}`)).body.events;
    const byResource = await audit(resourceId.slice(-12));
    expect(byResource.map((e: Json) => e.type)).toEqual(["member.invited", "resource.created"]);
    const byType = await audit("MEMBER.INVITED");
    expect(byType.length).toBeGreaterThan(0);
    expect(byType.every((e: Json) => e.type === "member.invited")).toBe(true);
    expect((await audit("wendy")).map((e: Json) => [e.type, e.userId])).toEqual([
      ["member.invited", "wendy"],
    ]);

    for (const path of ["sessions", "pending", "audit"]) {
      expectError(await admin("GET", `/admin/v1/${path}?query=a%0Ab`), 400, "invalid_request");
      expectError(await admin("GET", `/admin/v1/${path}?query=${"x".repeat(201)}`), 400, "invalid_request");
    }
  });
});
