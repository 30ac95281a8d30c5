/**
 * The one request pipeline: the hot reads (a session, /v1/me, a resource, its roster, a browse page)
 * are answered by the framework's own compiled handler, synchronously when everything they need is in
 * memory (SQLite: a caller and rows seen before), with the same answer over the socket: status, body
 * and headers. What memory cannot answer goes the same way and settles later, its refusals written by
 * the same error mapping (status, `{error, code}`, headers), and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildPublicApp } from "../../src/server/app.ts";
import type { Gateway } from "../../src/server/gateway.ts";
import { sql } from "../helpers/db.ts";
import { testEngine } from "../helpers/postgres.ts";
import { APP_ORIGIN, CSRF, OTHER_ORIGIN, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
let gateway: Gateway;
let app: ReturnType<typeof buildPublicApp>;
const creds: Record<string, { cookie: string; bearer: string }> = {};
let album: string;
let team: string;

async function signedIn(user: string) {
  const { browser } = await signIn(stack, user);
  const cookie = browser.cookieHeader(stack.url);
  const opened = await gateway.sealer.unseal(cookie.slice(cookie.indexOf("=") + 1));
  creds[user] = { cookie, bearer: `Bearer ${opened!.at}` };
}

const over = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(`${stack.url}${path}`, { ...init, headers: { ...headers, ...(init.headers as object) } });
const local = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  new Request(`${stack.url}${path}`, { ...init, headers });

beforeAll(async () => {
  stack = await startStack({ otherApp: true });
  gateway = stack.running.gateway;
  app = buildPublicApp(gateway);
  await signedIn("alice");
  await signedIn("bob");
  const create = async (type: string, visibility: string) => {
    const res = await over("/v1/resources", CSRF, {
      method: "POST",
      headers: { cookie: creds.alice!.cookie },
      body: JSON.stringify({ type, name: `${type} one`, visibility }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  album = await create("album", "discoverable");
  team = await create("team", "members");
  // Fill the caches the way traffic does: through the socket.
  for (const path of ["/auth/session", "/v1/me", `/v1/resources/${album}`, `/v1/resources/${album}/members`])
    for (const auth of [{ cookie: creds.alice!.cookie }, { authorization: creds.alice!.bearer }] as Array<
      Record<string, string>
    >)
      await over(path, auth);
  await over("/v1/resources/browse?type=album&limit=1", { authorization: creds.alice!.bearer });
}, 60_000);

afterAll(async () => {
  await stack.stop();
}, 30_000);

const comparable = (response: Response) =>
  [...response.headers]
    .filter(([name]) => name !== "date" && name !== "content-length" && name !== "x-request-id")
    .sort();

const cases = (): Array<[string, Record<string, string>]> => [
  ["/auth/session", { cookie: creds.alice!.cookie }],
  ["/v1/me", { cookie: creds.alice!.cookie }],
  ["/v1/me", { authorization: creds.alice!.bearer }],
  [`/v1/resources/${album}`, { authorization: creds.alice!.bearer }],
  [`/v1/resources/${album}/members`, { authorization: creds.alice!.bearer }],
  ["/v1/resources/browse?type=album&limit=1", { authorization: creds.alice!.bearer }],
  ["/v1/me", { authorization: creds.alice!.bearer, origin: APP_ORIGIN }], // a registered origin: CORS
];

describe("the hot reads", () => {
  test("from memory, the compiled handler answers at once (no promise); on PostgreSQL it reads the database", async () => {
    for (const [path, headers] of cases()) {
      const answer = app.fetch(local(path, headers));
      // PostgreSQL caches no rows, and a bearer's deleted-account check reads the database each call.
      expect(answer instanceof Promise, path).toBe(testEngine === "postgres");
      expect((await answer).status, path).toBe(200);
    }
  });

  test("over the socket: 200, the answer headers, and the same body and headers as in process", async () => {
    for (const [path, headers] of cases()) {
      const socket = await over(path, headers);
      expect(socket.status, path).toBe(200);
      expect(socket.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(socket.headers.get("cache-control")).toBe("no-store");
      expect(socket.headers.get("x-content-type-options")).toBe("nosniff");
      expect(socket.headers.get("x-request-id")).toBeTruthy();
      expect(socket.headers.get("access-control-allow-origin")).toBe(headers.origin ?? null);
      const inProcess = await app.handle(local(path, headers));
      expect(await inProcess.text()).toBe(await socket.text());
      expect(comparable(inProcess)).toEqual(comparable(socket));
    }
    const me = await (await over("/v1/me", { authorization: creds.alice!.bearer })).json();
    expect(me).toMatchObject({ userId: "alice", via: "bearer" });
    const roster = await (
      await over(`/v1/resources/${album}/members`, { cookie: creds.alice!.cookie })
    ).json();
    expect(roster).toMatchObject({ members: [{ userId: "alice", role: "owner", state: "active" }] });
  });
});

describe("refusals, at once or after a wait, are the error mapping's", () => {
  const refused = async (response: Response | Promise<Response>, status: number, code: string) => {
    const answer = await response;
    expect(answer.status).toBe(status);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(((await answer.json()) as { code: string }).code).toBe(code);
  };

  test("an unknown resource (read from the database, then refused) and a members-only one for a non-member", async () => {
    await refused(over("/v1/resources/no-such-id", { authorization: creds.bob!.bearer }), 404, "not_found");
    await refused(
      app.fetch(local("/v1/resources/no-such-id", { authorization: creds.bob!.bearer })),
      404,
      "not_found",
    );
    await refused(over(`/v1/resources/${team}`, { authorization: creds.bob!.bearer }), 404, "not_found");
    await refused(over(`/v1/resources/${team}/members`, { cookie: creds.bob!.cookie }), 404, "not_found");
  });

  test("a roster bob may not read (a public album he is not in): 403 forbidden", async () => {
    await refused(
      over(`/v1/resources/${album}/members`, { authorization: creds.bob!.bearer }),
      403,
      "forbidden",
    );
  });

  test("an origin not registered for the credential's app: 403 without a CORS grant", async () => {
    const answer = await over("/v1/me", { cookie: creds.alice!.cookie, origin: OTHER_ORIGIN });
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    await refused(answer, 403, "origin_not_allowed");
  });

  test("no credential, or a token never seen: 401 unauthenticated", async () => {
    await refused(app.fetch(local("/v1/me")), 401, "unauthenticated");
    await refused(over("/v1/me", { authorization: "Bearer never-seen-token" }), 401, "unauthenticated");
  });

  test("a join refused (already a member of a members-only resource it cannot join): the refusal, nothing stored", async () => {
    const before = await sql(gateway.storage).all(
      "SELECT user_id, state FROM members WHERE resource_id = ?",
      team,
    );
    const answer = await over(
      `/v1/resources/${team}/join`,
      { authorization: creds.bob!.bearer },
      { method: "POST" },
    );
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(
      await sql(gateway.storage).all("SELECT user_id, state FROM members WHERE resource_id = ?", team),
    ).toEqual(before);
  });
});
