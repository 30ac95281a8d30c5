/**
 * The admin listener's guard: every route answers 401 `unauthenticated` without
 * the bearer token or with a wrong one, before its body or parameters are looked at, and 503
 * `admin_disabled` on a gateway started without ADMIN_TOKEN. Over real sockets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import { tempDir } from "../helpers/stack.ts";

const TOKEN = "test-admin-token";
const RID = "0190d7a0-0000-7000-8000-000000000001";

interface Route {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** A body that would be valid with the token (so only the missing token can explain a 401). */
  body?: unknown;
}

const ROUTES: Route[] = [
  { method: "GET", path: "/admin/v1/overview" },
  { method: "GET", path: "/admin/v1/sessions" },
  { method: "GET", path: "/admin/v1/sessions?userId=alice&limit=1" },
  { method: "DELETE", path: "/admin/v1/sessions/some-session-id" },
  { method: "GET", path: "/admin/v1/users/alice" },
  { method: "GET", path: "/admin/v1/pending" },
  { method: "GET", path: "/admin/v1/pending?state=invited" },
  { method: "DELETE", path: `/admin/v1/pending/${RID}/alice` },
  { method: "GET", path: "/admin/v1/resources" },
  { method: "GET", path: "/admin/v1/resources?type=team&query=x" },
  { method: "GET", path: `/admin/v1/resources/${RID}/members` },
  { method: "GET", path: `/admin/v1/resources/${RID}` },
  { method: "POST", path: `/admin/v1/resources/${RID}/setRole`, body: { userId: "alice", role: "reader" } },
  { method: "POST", path: `/admin/v1/resources/${RID}/remove`, body: { userId: "alice" } },
  { method: "DELETE", path: "/admin/v1/users/alice/sessions" },
  { method: "GET", path: "/admin/v1/audit?userId=alice" },
  { method: "GET", path: "/admin/v1/events" },
  { method: "POST", path: "/admin/v1/apps/auth-app/deploy", body: { id: "auth-app", clients: [] } },
  { method: "POST", path: "/admin/v1/data/authorize-write", body: { resourceId: RID, userId: "alice" } },
  {
    method: "POST",
    path: "/admin/v1/data/links",
    body: { resourceId: RID, table: "posts", rowId: "r1", userId: "alice" },
  },
  { method: "GET", path: `/admin/v1/data/links?resourceId=${RID}` },
  { method: "GET", path: "/metrics" },
];

const WRONG: Array<[string, Record<string, string>]> = [
  ["no Authorization header", {}],
  ["a wrong token", { authorization: "Bearer wrong-token" }],
  ["the token minus its last character", { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
  ["the token plus a suffix", { authorization: `Bearer ${TOKEN}x` }],
  ["an empty bearer", { authorization: "Bearer " }],
  ["the right token under Basic", { authorization: `Basic ${btoa(`admin:${TOKEN}`)}` }],
  ["the right token without a scheme", { authorization: TOKEN }],
];

let withToken: RunningGateway;
let disabled: RunningGateway;

async function start(env: Record<string, string>): Promise<RunningGateway> {
  const config = loadConfig({
    PORT: "0",
    ADMIN_PORT: "0",
    ...(await databaseEnv(tempDir("sg-admin-auth-"), "gateway.db")),
    COOKIE_SECURE: "false",
    ...env,
  });
  return startGateway({ config, apps: { apps: [{ id: "test", clients: [] }] }, log: () => {} });
}

beforeAll(async () => {
  [withToken, disabled] = await Promise.all([start({ ADMIN_TOKEN: TOKEN }), start({})]);
}, 60_000);
afterAll(async () => {
  await Promise.all([withToken.stop(), disabled.stop()]);
}, 30_000);

async function call(
  gw: RunningGateway,
  route: Route,
  headers: Record<string, string>,
  body?: string,
): Promise<Response> {
  const raw = body ?? (route.body === undefined ? undefined : JSON.stringify(route.body));
  return fetch(`${gw.adminUrl}${route.path}`, {
    method: route.method,
    headers: raw === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: raw,
  });
}

async function expectError(res: Response, status: number, code: string, what: string) {
  const text = await res.text();
  expect({ what, status: res.status }).toEqual({ what, status });
  expect(res.headers.get("content-type") ?? "").toContain("application/json");
  const body = JSON.parse(text) as { error?: unknown; code?: unknown };
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe("string");
  expect((body.error as string).length).toBeGreaterThan(0);
}

describe("401 unauthenticated without the right bearer token", () => {
  for (const [label, headers] of WRONG) {
    test(`every route, with ${label}`, async () => {
      for (const route of ROUTES) {
        await expectError(
          await call(withToken, route, headers),
          401,
          "unauthenticated",
          `${route.method} ${route.path}`,
        );
      }
    });
  }

  test("auth comes before the body: a malformed or invalid body without the token is 401, with it 400", async () => {
    const posts = ROUTES.filter((r) => r.method === "POST");
    expect(posts.length).toBe(5);
    for (const route of posts) {
      for (const bad of ["{not json", JSON.stringify({ nonsense: true }), ""]) {
        await expectError(
          await call(withToken, route, {}, bad),
          401,
          "unauthenticated",
          `${route.path} ${bad}`,
        );
        await expectError(
          await call(withToken, route, { authorization: "Bearer nope" }, bad),
          401,
          "unauthenticated",
          `${route.path} ${bad}`,
        );
      }
      const malformed = await call(withToken, route, { authorization: `Bearer ${TOKEN}` }, "{not json");
      await expectError(malformed, 400, "invalid_json", route.path);
      const invalid = await call(
        withToken,
        route,
        { authorization: `Bearer ${TOKEN}` },
        JSON.stringify({ nonsense: true }),
      );
      await expectError(invalid, 400, "invalid_request", route.path);
    }
  });

  test("auth comes before the query: an invalid query string without the token is 401", async () => {
    for (const path of [
      "/admin/v1/pending?state=bogus",
      "/admin/v1/sessions?limit=abc",
      "/admin/v1/data/links",
    ]) {
      await expectError(await call(withToken, { method: "GET", path }, {}), 401, "unauthenticated", path);
      const res = await call(withToken, { method: "GET", path }, { authorization: `Bearer ${TOKEN}` });
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
    }
  });

  test("an unknown admin path is 401 without the token and 404 not_found with it", async () => {
    await expectError(
      await call(withToken, { method: "GET", path: "/admin/v1/nothing-here" }, {}),
      401,
      "unauthenticated",
      "unknown path",
    );
    await expectError(
      await call(
        withToken,
        { method: "GET", path: "/admin/v1/nothing-here" },
        { authorization: `Bearer ${TOKEN}` },
      ),
      404,
      "not_found",
      "unknown path",
    );
  });

  test("the event stream without the token is a JSON 401, not a stream", async () => {
    const res = await call(withToken, { method: "GET", path: "/admin/v1/events" }, {});
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type") ?? "").not.toContain("text/event-stream");
    await res.text();
  });

  test("with the right token no route answers 401 or 503 (the control)", async () => {
    for (const route of ROUTES) {
      const res = await call(withToken, route, { authorization: `Bearer ${TOKEN}` });
      if (route.path.endsWith("/events")) await res.body?.cancel();
      else await res.text();
      expect({ route: route.path, status: res.status }).not.toMatchObject({ status: 401 });
      expect(res.status).not.toBe(503);
      expect(res.status).toBeLessThan(500);
    }
  });

  test("the scheme is case-insensitive (RFC 7235): `bearer <token>` is accepted", async () => {
    const res = await call(
      withToken,
      { method: "GET", path: "/admin/v1/overview" },
      { authorization: `bearer ${TOKEN}` },
    );
    expect(res.status).toBe(200);
    await res.text();
  });
});

describe("503 admin_disabled without ADMIN_TOKEN", () => {
  test("every route refuses every call, whatever token it presents", async () => {
    for (const route of ROUTES) {
      const presented: Array<Record<string, string>> = [
        {},
        { authorization: `Bearer ${TOKEN}` },
        { authorization: "Bearer " },
        { authorization: "Bearer undefined" },
      ];
      for (const headers of presented) {
        await expectError(
          await call(disabled, route, headers),
          503,
          "admin_disabled",
          `${route.method} ${route.path}`,
        );
      }
    }
  });

  test("even with a malformed body", async () => {
    const res = await call(
      disabled,
      { method: "POST", path: "/admin/v1/data/links" },
      { authorization: `Bearer ${TOKEN}` },
      "{not json",
    );
    await expectError(res, 503, "admin_disabled", "data/links");
  });

  test("the public listener still works", async () => {
    const res = await fetch(`${disabled.publicUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
