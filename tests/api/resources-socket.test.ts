/**
 * The main resource lifecycle over a real socket on 127.0.0.1 (Bun.serve via startGateway), with real
 * sealed session cookies and the CSRF header: create → invite → accept → setRole → remove → delete.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import {
  expectError,
  expectView,
  type Json,
  type Reply,
  TEST_APPS,
  UUID_V7,
} from "../helpers/resources-kit.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

let running: RunningGateway;
const cookies = new Map<string, string>();

beforeAll(async () => {
  running = await startGateway({
    config: loadConfig({
      PORT: String(freePort()),
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      COOKIE_SECURE: "false",
    }),
    apps: TEST_APPS,
    log: () => {},
  });
}, 60_000);
afterAll(async () => {
  await running.stop();
}, 30_000);

async function cookieFor(userId: string): Promise<string> {
  let cookie = cookies.get(userId);
  if (!cookie) {
    const { sealed } = await running.gateway.sessions.start(
      {
        accessToken: `at-${userId}`,
        refreshToken: `rt-${userId}`,
        idToken: undefined,
        expiresIn: 3600,
        scope: "openid",
      },
      userId,
      "web",
    );
    cookie = `${running.gateway.sessions.cookieName}=${sealed}`;
    cookies.set(userId, cookie);
  }
  return cookie;
}

async function call(
  user: string | null,
  method: string,
  path: string,
  body?: unknown,
  csrf = true,
): Promise<Reply> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (user) headers.cookie = await cookieFor(user);
  if (csrf) headers["x-service-csrf"] = "1";
  const res = await fetch(`${running.publicUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}

const db = () => sql(running.gateway.storage);
const memberRow = async (id: string, user: string) =>
  (await db().get("SELECT role, state FROM members WHERE resource_id = ? AND user_id = ?", id, user)) as Json;

describe("over a real socket (127.0.0.1)", () => {
  test("the listener is on 127.0.0.1", () => {
    expect(running.publicUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test("create → invite → accept → setRole → remove → delete, with cookie + CSRF", async () => {
    const created = await call("sock-o", "POST", "/v1/resources", { type: "team", name: "Socket team" });
    expect(created.status).toBe(200);
    expect(created.headers.get("content-type")).toContain("application/json");
    expectView(created.body, false);
    expect(created.body).toMatchObject({
      type: "team",
      name: "Socket team",
      visibility: "members",
      discoverable: false,
    });
    const id: string = created.body.id;
    expect(id).toMatch(UUID_V7);

    const invite = await call("sock-o", "POST", `/v1/resources/${id}/invite`, {
      userId: "sock-b",
      role: "reader",
    });
    expect(invite.body).toEqual({ ok: true, state: "invited" });
    expect(await memberRow(id, "sock-b")).toEqual({ role: "reader", state: "invited" });
    expect(
      (await call("sock-b", "GET", "/v1/resources?state=invited")).body.resources.map((r: Json) => r.id),
    ).toEqual([id]);

    const accept = await call("sock-b", "POST", `/v1/resources/${id}/accept`);
    expect(accept.body).toEqual({ ok: true, state: "active" });
    expect((await call("sock-b", "GET", `/v1/resources/${id}`)).body.memberCount).toBe(2);

    const setRole = await call("sock-o", "POST", `/v1/resources/${id}/setRole`, {
      userId: "sock-b",
      role: "admin",
    });
    expect(setRole.body).toEqual({ ok: true, role: "admin" });
    const roster = await call("sock-b", "GET", `/v1/resources/${id}/members`);
    expect(roster.status).toBe(200);
    expect([...roster.body.members].sort((a: Json, b: Json) => a.userId.localeCompare(b.userId))).toEqual([
      { userId: "sock-b", role: "admin", state: "active" },
      { userId: "sock-o", role: "owner", state: "active" },
    ]);

    const remove = await call("sock-o", "POST", `/v1/resources/${id}/remove`, { userId: "sock-b" });
    expect(remove.body).toEqual({ ok: true });
    expect(await memberRow(id, "sock-b")).toBeNull();
    expectError(await call("sock-b", "GET", `/v1/resources/${id}`), 404, "not_found");

    const del = await call("sock-o", "DELETE", `/v1/resources/${id}`);
    expect(del.body).toEqual({ ok: true });
    expectError(await call("sock-o", "GET", `/v1/resources/${id}`), 404, "not_found");
    expect((await call("sock-o", "GET", "/v1/resources")).body.resources).toEqual([]);

    const events = (await db().all(
      "SELECT type, actor, user_id FROM events WHERE resource_id = ? ORDER BY id",
      id,
    )) as Json[];
    expect(events.map((e) => [e.type, e.actor, e.user_id])).toEqual([
      ["resource.created", "sock-o", "sock-o"],
      ["member.invited", "sock-o", "sock-b"],
      ["member.accepted", "sock-b", "sock-b"],
      ["member.role_changed", "sock-o", "sock-b"],
      ["member.removed", "sock-o", "sock-b"],
      ["resource.deleted", "sock-o", "sock-o"],
    ]);
  });

  test("ownership over the wire: offer → decline → offer → cancel → offer → accept; refusals change nothing", async () => {
    const id: string = (
      await call("sock-own-o", "POST", "/v1/resources", { type: "team", name: "Hand over" })
    ).body.id;
    await call("sock-own-o", "POST", `/v1/resources/${id}/invite`, { userId: "sock-own-m" });
    await call("sock-own-m", "POST", `/v1/resources/${id}/accept`);
    const offer = () =>
      call("sock-own-o", "POST", `/v1/resources/${id}/transferOwnership`, { userId: "sock-own-m" });
    expect((await offer()).body).toEqual({ ok: true, state: "offered", userId: "sock-own-m" });
    expect((await call("sock-own-m", "POST", `/v1/resources/${id}/declineOwnership`)).body).toEqual({
      ok: true,
    });
    await offer();
    expect((await call("sock-own-o", "POST", `/v1/resources/${id}/cancelOwnership`)).body).toEqual({
      ok: true,
    });
    expectError(
      await call("sock-own-m", "POST", `/v1/resources/${id}/acceptOwnership`),
      404,
      "no_pending_offer",
    );
    expectError(
      await call("sock-own-m", "POST", `/v1/resources/${id}/transferOwnership`, { userId: "sock-own-o" }),
      403,
      "forbidden",
    );
    expectError(
      await call("sock-own-o", "POST", `/v1/resources/${id}/transferOwnership`, '{"userId":'),
      400,
      "invalid_json",
    );
    expectError(
      await call(
        "sock-own-o",
        "POST",
        `/v1/resources/${id}/transferOwnership`,
        { userId: "sock-own-m" },
        false,
      ),
      403,
      "csrf_required",
    );
    expect(await db().get("SELECT count(*) AS n FROM ownership_offers WHERE resource_id = ?", id)).toEqual({
      n: 0,
    });
    await offer();
    const accepted = await call("sock-own-m", "POST", `/v1/resources/${id}/acceptOwnership`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ ok: true, role: "owner" });
    expect(await memberRow(id, "sock-own-m")).toEqual({ role: "owner", state: "active" });
    expect(await memberRow(id, "sock-own-o")).toEqual({ role: "admin", state: "active" });
    expect((await db().get("SELECT owner_id FROM resources WHERE id = ?", id))?.owner_id).toBe("sock-own-m");
    const events = (await db().all(
      "SELECT type, actor, user_id FROM events WHERE resource_id = ? AND type LIKE 'ownership.%' ORDER BY id",
      id,
    )) as Json[];
    expect(events.map((e) => [e.type, e.actor, e.user_id])).toEqual([
      ["ownership.offered", "sock-own-o", "sock-own-m"],
      ["ownership.declined", "sock-own-m", "sock-own-m"],
      ["ownership.offered", "sock-own-o", "sock-own-m"],
      ["ownership.cancelled", "sock-own-o", "sock-own-m"],
      ["ownership.offered", "sock-own-o", "sock-own-m"],
      ["ownership.accepted", "sock-own-m", "sock-own-m"],
    ]);
  });

  test("without the CSRF header a cookie POST or DELETE is 403 csrf_required; without a cookie 401", async () => {
    const created = await call("sock-c", "POST", "/v1/resources", { type: "board", name: "csrf board" });
    const id = created.body.id;
    expectError(
      await call("sock-c", "POST", "/v1/resources", { type: "team", name: "x" }, false),
      403,
      "csrf_required",
    );
    expectError(
      await call("sock-c", "DELETE", `/v1/resources/${id}`, undefined, false),
      403,
      "csrf_required",
    );
    expectError(
      await call("sock-d", "POST", `/v1/resources/${id}/join`, undefined, false),
      403,
      "csrf_required",
    );
    expect(await memberRow(id, "sock-d")).toBeNull();
    expectError(await call(null, "GET", "/v1/resources"), 401, "unauthenticated");
    expectError(await call(null, "POST", `/v1/resources/${id}/join`), 401, "unauthenticated");
    expect((await call("sock-c", "GET", `/v1/resources/${id}`, undefined, false)).status).toBe(200);
  });

  const count = async () => db().count("SELECT count(*) AS n FROM resources");

  test.each([64 * 1024 + 100, 100 * 1024])(
    "a %d-byte body over the wire is 413 with {error, code: payload_too_large}",
    async (size) => {
      const before = await count();
      const huge = JSON.stringify({ type: "team", name: "x".repeat(size) });
      const reply = await call("sock-e", "POST", "/v1/resources", huge);
      expect(reply.status).toBe(413);
      expect(await count()).toBe(before);
      expectError(reply, 413, "payload_too_large");
    },
  );

  test("malformed JSON over the wire is 400 invalid_json; a 10,000-character name 400 invalid_request", async () => {
    const before = await count();
    expectError(await call("sock-e", "POST", "/v1/resources", '{"type":"team",'), 400, "invalid_json");
    const long = await call("sock-e", "POST", "/v1/resources", { type: "team", name: "x".repeat(10_000) });
    expectError(long, 400, "invalid_request");
    expect(await count()).toBe(before);
  });

  test("a NUL or other control character in the browse query is 400 invalid_request, never a 500 from FTS5", async () => {
    await call("sock-nul", "POST", "/v1/resources", { type: "album", name: "abc nul album" });
    for (const query of ["a\u0000bc", "abc\u0000", "\u0000", "ab\u0007cd", "abc\u009f"]) {
      const reply = await call("sock-nul", "GET", `/v1/resources/browse?query=${encodeURIComponent(query)}`);
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error).toContain("query");
    }
    // A raw %00 in the URL, as a client would send it.
    expectError(
      await call("sock-nul", "GET", "/v1/resources/browse?query=abc%00def"),
      400,
      "invalid_request",
    );
    const ok = await call("sock-nul", "GET", `/v1/resources/browse?query=${encodeURIComponent("nul alb")}`);
    expect(ok.status).toBe(200);
    expect(ok.body.resources.map((r: Json) => r.name)).toEqual(["abc nul album"]);
  });

  test("an unknown route under /v1 is 404 not_found with {error, code}", async () => {
    expectError(await call("sock-e", "GET", "/v1/resources/x/y/z"), 404, "not_found");
    expectError(await call("sock-e", "PUT", "/v1/resources/x"), 404, "not_found");
  });
});
