/**
 * The fast path in front of the framework (http/fast-path.ts): where it answers, its answer is the
 * framework's, status, body and headers; where anything is unusual or not cached it declines, and the
 * framework's answer over the real socket is the usual one (refusals included). On PostgreSQL no row
 * is cached and a bearer's deleted-account check reads the database on every call, so it declines
 * everything, and the framework answers. On SQLite the bodiless writes (join, leave) are taken; their
 * refusals are the framework's too, and the stored state is what the framework's write leaves.
 * (Budgets: tests/unit/budgets.test.ts, takeNow.)
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
let fastAny: ReturnType<typeof fastPath>;
/** A read: answered at once, or declined. */
const fast = (request: Request) => fastAny(request) as Response | undefined;
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
  fastAny = fastPath(gateway);
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
  await create("album", "discoverable"); // browse pages of one row have a next page
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
        // PostgreSQL caches no rows, and a bearer's deleted-account check reads the database each call.
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

describe("browse pages", () => {
  test("a page read before: the framework's status, body and headers", async () => {
    const bob = { authorization: creds.bob!.bearer, origin: APP_ORIGIN };
    const first = await over("/v1/resources/browse?type=album&limit=1", bob);
    const { nextCursor } = (await first.json()) as { nextCursor: string };
    expect(nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const paths = [
      "/v1/resources/browse",
      "/v1/resources/browse?type=album&limit=1",
      `/v1/resources/browse?limit=1&type=album&cursor=${nextCursor}`,
      "/v1/resources/browse?query=one",
    ];
    for (const path of paths) {
      expect((await over(path, bob)).status).toBe(200); // read once: cached (SQLite)
      const request = local(path, bob);
      const quick = fast(request);
      if (quick === undefined) {
        expect(testEngine, path).toBe("postgres");
        continue;
      }
      expect(quick.headers.get("x-request-id")).toBe(requestId(request));
      const slow = await framework.handle(local(path, bob));
      expect(quick.status).toBe(200);
      expect(slow.status).toBe(200);
      expect(await quick.text()).toBe(await slow.text());
      expect(comparable(quick)).toEqual(comparable(slow));
    }
  });

  test("parameters it does not take plainly, or a page not read before: the framework answers", async () => {
    const bob = { authorization: creds.bob!.bearer };
    const cases: Array<[string, number]> = [
      ["/v1/resources/browse?type=album&type=team", 200], // the framework takes one of them
      ["/v1/resources/browse?query=a%20b", 200],
      ["/v1/resources/browse?query=a+b", 200],
      ["/v1/resources/browse?type=", 400],
      ["/v1/resources/browse?limit=0", 400],
      ["/v1/resources/browse?cursor=not-a-cursor", 400],
      ["/v1/resources/browse?other=1", 200],
      ["/v1/resources/browse?limit=3&", 200],
      [`/v1/resources/browse?query=${"q".repeat(201)}`, 400],
    ];
    for (const [path, status] of cases) {
      expect((await over(path, bob)).status, path).toBe(status);
      expect(fast(local(path, bob)), path).toBeUndefined();
    }
    expect(fast(local("/v1/resources/browse?type=never-read", bob))).toBeUndefined();
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
    expect(fast(local("/v1/resources/static", bob))).toBeUndefined();
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

describe("the bodiless writes, join and leave", () => {
  const post = (path: string, headers: Record<string, string>) =>
    new Request(`${stack.url}${path}`, { method: "POST", headers });
  const bobId = async () =>
    ((await (await over("/v1/me", { authorization: creds.bob!.bearer })).json()) as { userId: string })
      .userId;
  const stored = async (resource: string, user: string) => ({
    state: (await gateway.membership.store.getMembership(resource, user))?.state ?? null,
    memberCount: (await gateway.membership.store.getResource(resource))?.memberCount,
  });
  /** The fast path's answer (it must take the request) and the framework's, to the same request. */
  const both = async (path: string, headers: Record<string, string>) => {
    const request = post(path, headers);
    const quick = fastAny(request);
    expect(quick, path).toBeInstanceOf(Promise);
    const answered = await quick!;
    expect(answered.headers.get("x-request-id")).toBe(requestId(request));
    return answered;
  };
  const same = async (quick: Response, slow: Response) => {
    expect(quick.status).toBe(slow.status);
    expect(await quick.text()).toBe(await slow.text());
    expect(comparable(quick)).toEqual(comparable(slow));
  };

  test("a join and a leave: the framework's status, body and headers, and the same stored state", async () => {
    // bobId reads /v1/me with the bearer token, and the session with the cookie: both are then cached.
    const bob = await bobId();
    expect((await over("/auth/session", { cookie: creds.bob!.cookie })).status).toBe(200);
    const byBearer = { authorization: creds.bob!.bearer, origin: APP_ORIGIN };
    const byCookie = { cookie: creds.bob!.cookie, ...CSRF, "content-length": "0" };
    if (testEngine !== "sqlite") {
      // PostgreSQL keeps no session in memory, and reads a bearer's deleted-account check on every
      // call: every write goes through the framework.
      for (const headers of [byBearer, byCookie])
        expect(fastAny(post(`/v1/resources/${album}/join`, headers))).toBeUndefined();
      return;
    }
    const ways: Array<Record<string, string>> = [byBearer, byCookie];
    for (const headers of ways) {
      const join = `/v1/resources/${album}/join`;
      const leave = `/v1/resources/${album}/leave`;
      const quickJoin = await both(join, headers);
      expect(quickJoin.status).toBe(200);
      expect(await stored(album, bob)).toEqual({ state: "active", memberCount: 2 });
      const quickLeave = await both(leave, headers);
      expect(quickLeave.status).toBe(200);
      expect(await stored(album, bob)).toEqual({ state: null, memberCount: 1 });
      const slowJoin = await framework.handle(post(join, headers));
      expect(await stored(album, bob)).toEqual({ state: "active", memberCount: 2 });
      const slowLeave = await framework.handle(post(leave, headers));
      expect(await stored(album, bob)).toEqual({ state: null, memberCount: 1 });
      await same(quickJoin, slowJoin);
      await same(quickLeave, slowLeave);
    }
    expect(
      await (await both(`/v1/resources/${album}/join`, { authorization: creds.bob!.bearer })).json(),
    ).toEqual({
      ok: true,
      state: "active",
      joined: true,
    });
    expect((await both(`/v1/resources/${album}/leave`, { authorization: creds.bob!.bearer })).status).toBe(
      200,
    );
  });

  test("after a write, the resource, its roster and browse pages answered from memory show it", async () => {
    if (testEngine !== "sqlite") return; // PostgreSQL caches no roster or page: nothing to go stale
    const bob = await bobId();
    const alice = { authorization: creds.alice!.bearer };
    const roster = `/v1/resources/${album}/members`;
    const page = "/v1/resources/browse?type=album";
    const fromMemory = async (path: string) => {
      await over(path, alice); // read once after any change: cached again
      const quick = fast(local(path, alice));
      expect(quick, path).toBeDefined();
      return (await quick!.json()) as {
        members?: Array<{ userId: string }>;
        resources?: Array<{ id: string; memberCount: number }>;
        memberCount?: number;
      };
    };
    const seen = async () => ({
      bobListed: (await fromMemory(roster)).members!.some((m) => m.userId === bob),
      memberCount: (await fromMemory(page)).resources!.find((r) => r.id === album)!.memberCount,
      resourceCount: (await fromMemory(`/v1/resources/${album}`)).memberCount,
    });
    expect(await seen()).toEqual({ bobListed: false, memberCount: 1, resourceCount: 1 });
    expect(
      (await over(`/v1/resources/${album}/join`, { authorization: creds.bob!.bearer }, { method: "POST" }))
        .status,
    ).toBe(200);
    expect(await seen()).toEqual({ bobListed: true, memberCount: 2, resourceCount: 2 });
    expect(
      (await over(`/v1/resources/${album}/leave`, { authorization: creds.bob!.bearer }, { method: "POST" }))
        .status,
    ).toBe(200);
    expect(await seen()).toEqual({ bobListed: false, memberCount: 1, resourceCount: 1 });
  });

  test("over the socket: a join and a leave answered, the roster follows", async () => {
    const bob = await bobId();
    const auth = { authorization: creds.bob!.bearer };
    const joined = await over(`/v1/resources/${album}/join`, auth, { method: "POST" });
    expect(joined.status).toBe(200);
    expect(await joined.json()).toEqual({ ok: true, state: "active", joined: true });
    expect(joined.headers.get("x-request-id")).toBeTruthy();
    expect(await stored(album, bob)).toEqual({ state: "active", memberCount: 2 });
    const left = await over(`/v1/resources/${album}/leave`, auth, { method: "POST" });
    expect(left.status).toBe(200);
    expect(await stored(album, bob)).toEqual({ state: null, memberCount: 1 });
  });

  test("a refusal: the framework's status, body and headers, and nothing stored", async () => {
    if (testEngine !== "sqlite") return; // PostgreSQL: every write goes through the framework (above)
    const bob = await bobId();
    const headers = { authorization: creds.bob!.bearer, origin: APP_ORIGIN };
    const cases: Array<[string, number, string]> = [
      [`/v1/resources/${team}/join`, 403, "not_public"],
      [`/v1/resources/${album}/leave`, 404, "not_a_member"],
      ["/v1/resources/0190aaaa-0000-7000-8000-000000000000/join", 404, "not_found"],
    ];
    for (const [path, status, code] of cases) {
      const quick = await both(path, headers);
      expect(quick.status, path).toBe(status);
      expect(((await quick.clone().json()) as { code: string }).code).toBe(code);
      await same(quick, await framework.handle(post(path, headers)));
    }
    expect(await stored(team, bob)).toEqual({ state: null, memberCount: 1 });
    expect(await stored(album, bob)).toEqual({ state: null, memberCount: 1 });
  });

  test("it declines what it does not take plainly, and the framework answers as usual", async () => {
    const bob = { authorization: creds.bob!.bearer };
    const join = `/v1/resources/${album}/join`;
    const declined = [
      post(join, { cookie: creds.bob!.cookie }), // no CSRF header
      post(join, { authorization: "Bearer never-seen-token" }),
      post(join, { ...bob, origin: OTHER_ORIGIN }),
      post(`${join}?x=1`, bob),
      post(`${join}/`, bob),
      post(`/v1/resources/${encodeURIComponent(`${album}/`)}join`, bob),
      post("/v1/resources/browse/join", bob),
      post(`/v1/resources/${album}/setRole`, bob),
      new Request(`${stack.url}${join}`, { method: "POST", headers: { ...bob, ...CSRF }, body: "{}" }),
      new Request(`${stack.url}${join}`, { method: "PUT", headers: bob }),
    ];
    for (const request of declined) expect(fastAny(request), request.url).toBeUndefined();
    const csrf = await over(join, { cookie: creds.bob!.cookie }, { method: "POST" });
    expect(csrf.status).toBe(403);
    expect(((await csrf.json()) as { code: string }).code).toBe("csrf_required");
    const badJson = await over(join, { ...bob, ...CSRF }, { method: "POST", body: "{" });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { code: string }).code).toBe("invalid_json");
    expect(await stored(album, await bobId())).toEqual({ state: null, memberCount: 1 });
  });
});
