/**
 * The fast path in front of the framework (http/fast-path.ts): where it answers, its answer is the
 * framework's, status, body and headers; where anything is unusual or not cached it declines, and the
 * framework's answer over the real socket is the usual one (refusals included). On PostgreSQL no row
 * is cached, so it declines all but bearer `/v1/me`, and the framework answers. (Budgets: tests/unit/budgets.test.ts, takeNow.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildPublicApp } from "../../src/server/app.ts";
import type { Gateway } from "../../src/server/gateway.ts";
import { fastPath } from "../../src/server/http/fast-path.ts";
import { requestId } from "../../src/server/http/request-context.ts";
import { testEngine } from "../helpers/postgres.ts";
import { APP_ORIGIN, CSRF, OTHER_ORIGIN, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
let gateway: Gateway;
let fast: (request: Request) => Response | undefined;
let framework: { handle(request: Request): Promise<Response> };
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
const local = (path: string, headers: Record<string, string> = {}) =>
  new Request(`${stack.url}${path}`, { headers });

beforeAll(async () => {
  stack = await startStack({ otherApp: true });
  gateway = stack.running.gateway;
  fast = fastPath(gateway);
  framework = buildPublicApp(gateway);
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
  for (const user of ["alice", "bob"])
    for (const path of [
      "/auth/session",
      "/v1/me",
      `/v1/resources/${album}`,
      `/v1/resources/${album}/members`,
    ])
      for (const auth of [{ cookie: creds[user]!.cookie }, { authorization: creds[user]!.bearer }] as Array<
        Record<string, string>
      >)
        await over(path, auth);
}, 60_000);

afterAll(async () => {
  await stack.stop();
}, 30_000);

const comparable = (response: Response) =>
  [...response.headers]
    .filter(([name]) => name !== "date" && name !== "content-length" && name !== "x-request-id")
    .sort();

describe("where the fast path answers, its answer is the framework's", () => {
  const cases = () => [
    ["/auth/session", { cookie: creds.alice!.cookie }],
    ["/v1/me", { cookie: creds.alice!.cookie }],
    ["/v1/me", { authorization: creds.bob!.bearer }],
    [`/v1/resources/${album}`, { authorization: creds.alice!.bearer }],
    [`/v1/resources/${album}`, { cookie: creds.bob!.cookie }], // a public album, bob not a member
    [`/v1/resources/${album}/members`, { authorization: creds.alice!.bearer }],
    ["/v1/me", { authorization: creds.alice!.bearer, origin: APP_ORIGIN }], // a registered origin: CORS
  ];

  test("status, body and headers", async () => {
    for (const [path, headers] of cases() as Array<[string, Record<string, string>]>) {
      const request = local(path, headers);
      const quick = fast(request);
      if (quick === undefined) {
        // PostgreSQL caches no rows: only bearer tokens (their 60 s cache is per process) can be answered.
        expect(testEngine, `${path} ${Object.keys(headers)}`).toBe("postgres");
        expect((await over(path, headers)).status).toBe(200);
        continue;
      }
      expect(quick!.headers.get("x-request-id")).toBe(requestId(request));
      const slow = await framework.handle(local(path, headers));
      expect(quick!.status).toBe(200);
      expect(slow.status).toBe(200);
      expect(await quick!.text()).toBe(await slow.text());
      expect(comparable(quick!)).toEqual(comparable(slow));
    }
  });
});

describe("it declines (undefined) and the framework answers as usual", () => {
  test("a cookie or token never seen, or none", async () => {
    expect(fast(local("/auth/session"))).toBeUndefined();
    expect(fast(local("/v1/me", { authorization: "Bearer never-seen-token" }))).toBeUndefined();
    const res = await over("/v1/me", { authorization: "Bearer never-seen-token" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("unauthenticated");
  });

  test("an origin not registered for the credential's app: 403 origin_not_allowed from the framework", async () => {
    const headers = { authorization: creds.alice!.bearer, origin: OTHER_ORIGIN };
    expect(fast(local("/v1/me", headers))).toBeUndefined();
    const res = await over("/v1/me", headers);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("origin_not_allowed");
  });

  test("a members-only resource for a non-member, an unknown id, another route's name, a query string", async () => {
    const bob = { authorization: creds.bob!.bearer };
    await over(`/v1/resources/${team}`, bob);
    expect(fast(local(`/v1/resources/${team}`, bob))).toBeUndefined();
    expect((await over(`/v1/resources/${team}`, bob)).status).toBe(404);
    expect(fast(local(`/v1/resources/${team}/members`, bob))).toBeUndefined();
    expect((await over(`/v1/resources/${team}/members`, bob)).status).toBe(404);
    expect(fast(local("/v1/resources/0190aaaa-0000-7000-8000-000000000000", bob))).toBeUndefined();
    expect(fast(local("/v1/resources/browse", bob))).toBeUndefined();
    expect(fast(local(`/v1/resources/${album}?x=1`, bob))).toBeUndefined();
    expect(fast(local(`/v1/resources/${album}/`, bob))).toBeUndefined();
    expect(fast(local(`/v1/resources/${encodeURIComponent(album)}%2Fmembers`, bob))).toBeUndefined();
  });

  test("a roster bob may not read (a public album he is not in): 403 from the framework", async () => {
    const bob = { authorization: creds.bob!.bearer };
    expect(fast(local(`/v1/resources/${album}/members`, bob))).toBeUndefined();
    const res = await over(`/v1/resources/${album}/members`, bob);
    expect(res.status).toBe(403);
  });

  test("headers over the limit, a body on a GET, another method", async () => {
    const alice = { authorization: creds.alice!.bearer };
    expect(fast(local("/v1/me", { ...alice, "x-pad": "a".repeat(13_000) }))).toBeUndefined();
    const res = await over("/v1/me", { ...alice, "x-pad": "a".repeat(13_000) });
    expect(res.status).toBe(431);
    expect(fast(new Request(`${stack.url}/v1/me`, { method: "HEAD", headers: alice }))).toBeUndefined();
    expect(
      fast(
        new Request(`${stack.url}/v1/me`, { method: "GET", headers: { ...alice, "content-length": "2" } }),
      ),
    ).toBeUndefined();
  });

  test("after a logout the session is not answered from memory", async () => {
    await signedIn("carol");
    const cookie = { cookie: creds.carol!.cookie };
    expect((await over("/auth/session", cookie)).status).toBe(200);
    if (testEngine === "sqlite") expect(fast(local("/auth/session", cookie))).toBeDefined();
    const out = await over("/auth/logout", { ...CSRF, ...cookie }, { method: "POST" });
    expect(out.status).toBeLessThan(400);
    expect(fast(local("/auth/session", cookie))).toBeUndefined();
    const after = (await (await over("/auth/session", cookie)).json()) as { authenticated: boolean };
    expect(after.authenticated).toBe(false);
  });
});
