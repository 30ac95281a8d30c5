/** Authentication, CSRF and per-app budgets on the /v1/resources endpoints. */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { awayFromMinuteEdge, expectError, makeKit, TEST_APPS } from "../helpers/resources-kit.ts";

const k = await makeKit(TEST_APPS);
afterAll(() => k.gw.gateway.close());

let team = "";
let board = "";
const setup = (async () => {
  team = (await k.create("au-o", "team", "auth team")).id;
  board = (await k.create("au-o", "board", "auth board")).id;
  await k.addMember("au-o", team, "au-w", "writer");
})();

/** Every endpoint, as (method, path, body) called by the owner of `team`. */
const endpoints = (): Array<[string, string, unknown]> => [
  ["POST", "/v1/resources", { type: "team", name: "x" }],
  ["GET", "/v1/resources", undefined],
  ["GET", "/v1/resources/browse", undefined],
  ["GET", "/v1/resources/static?type=feed&slug=global", undefined],
  ["GET", `/v1/resources/${team}`, undefined],
  ["DELETE", `/v1/resources/${team}`, undefined],
  ["GET", `/v1/resources/${team}/members`, undefined],
  ["POST", `/v1/resources/${team}/invite`, { userId: "au-new" }],
  ["POST", `/v1/resources/${board}/request`, {}],
  ["POST", `/v1/resources/${team}/accept`, {}],
  ["POST", `/v1/resources/${team}/reject`, {}],
  ["POST", `/v1/resources/${board}/join`, undefined],
  ["POST", `/v1/resources/${team}/leave`, undefined],
  ["POST", `/v1/resources/${team}/setRole`, { userId: "au-w", role: "reader" }],
  ["POST", `/v1/resources/${team}/remove`, { userId: "au-w" }],
];

describe("authentication", () => {
  test.each([
    ["no credential", {}],
    ["a garbage cookie", { cookie: "sg_session=not-a-sealed-cookie" }],
    [
      "a tampered JWE cookie",
      { cookie: "sg_session=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.BBBB.CCCC" },
    ],
    ["a bearer token with no provider configured", { authorization: "Bearer abc.def" }],
    ["a Basic authorization header", { authorization: "Basic YTpi" }],
    ["an empty bearer", { authorization: "Bearer " }],
  ] as Array<[string, Record<string, string>]>)(
    "%s: 401 unauthenticated on every endpoint, nothing changes",
    async (_l, auth) => {
      await setup;
      const before = await k.snapshot();
      for (const [method, path, body] of endpoints()) {
        const reply = await k.raw(path, {
          method,
          headers: { "content-type": "application/json", "x-service-csrf": "1", ...auth },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expectError(reply, 401, "unauthenticated");
      }
      expect(await k.snapshot()).toEqual(before);
    },
  );

  test("an ended session (after logout) is refused from the next request on", async () => {
    const headers = await k.h("au-leaver");
    expect((await k.get("au-leaver", "/v1/resources")).status).toBe(200);
    const out = await k.raw("/auth/logout", { method: "POST", headers, body: "{}" });
    expect(out.status).toBe(200);
    expectError(await k.raw("/v1/resources", { headers }), 401, "unauthenticated");
    expectError(
      await k.raw("/v1/resources", {
        method: "POST",
        headers,
        body: JSON.stringify({ type: "team", name: "x" }),
      }),
      401,
      "unauthenticated",
    );
  });

  test("an expired access token in a live session: 401 (the SDK refreshes and retries)", async () => {
    const { sealed } = await k.gw.gateway.sessions.start(
      { accessToken: "at-expired", refreshToken: "rt-x", idToken: undefined, expiresIn: 0, scope: "openid" },
      "au-expired",
      "web",
    );
    const reply = await k.raw("/v1/resources", {
      headers: { cookie: `${k.gw.gateway.sessions.cookieName}=${sealed}` },
    });
    expectError(reply, 401, "unauthenticated");
  });
});

describe("CSRF", () => {
  test.each([
    ["missing", undefined],
    ["0", "0"],
    ["true", "true"],
    ["empty", ""],
    ["yes", "yes"],
  ])(
    "cookie POST/DELETE with X-Service-Csrf %s: 403 csrf_required on every state-changing endpoint",
    async (_l, value) => {
      await setup;
      const cookie = (await k.h("au-o")).cookie ?? "";
      const before = await k.snapshot();
      for (const [method, path, body] of endpoints()) {
        if (method === "GET") continue;
        const headers: Record<string, string> = { cookie, "content-type": "application/json" };
        if (value !== undefined) headers["x-service-csrf"] = value;
        const reply = await k.raw(path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expectError(reply, 403, "csrf_required");
      }
      expect(await k.snapshot()).toEqual(before);
      expect(await k.resource(team)).not.toBeNull();
    },
  );

  test("cookie GETs need no CSRF header", async () => {
    await setup;
    const cookie = (await k.h("au-o")).cookie ?? "";
    for (const [method, path] of endpoints()) {
      if (method !== "GET") continue;
      const reply = await k.raw(path, { headers: { cookie } });
      expect(reply.status).toBe(200);
    }
  });
});

describe("budgets", () => {
  const BUDGET_APPS: AppsFile = {
    apps: [
      {
        id: "metered",
        clients: [{ clientId: "metered-web", redirectUris: ["http://localhost/cb"] }],
        // A whole share per user: this test is about the app's budget alone (shares are tested below).
        budget: { requestsPerMinute: 5, userShare: 1 },
        types: { team: {} },
      },
      {
        id: "free",
        clients: [{ clientId: "free-web", redirectUris: ["http://localhost/free"] }],
        types: { team: {} },
      },
    ],
  };

  test("the 6th call in a minute is 429 budget_exceeded with Retry-After, and changes nothing", async () => {
    const b = await makeKit(BUDGET_APPS);
    try {
      await b.h("bu-a", "metered-web");
      await b.h("bu-b", "metered-web");
      await b.h("bu-a", "free-web");
      await awayFromMinuteEdge();
      const ok = [
        await b.post("bu-a", "/v1/resources", { type: "team", name: "one" }, "metered-web"),
        await b.get("bu-a", "/v1/resources", "metered-web"),
        await b.get("bu-b", "/v1/resources", "metered-web"),
        await b.get("bu-a", "/v1/resources/browse", "metered-web"),
        await b.post("bu-b", "/v1/resources", { type: "team", name: "two" }, "metered-web"),
      ];
      for (const reply of ok) expect(reply.status).toBe(200);
      const before = await b.snapshot();
      const sixth = await b.post("bu-a", "/v1/resources", { type: "team", name: "three" }, "metered-web");
      expectError(sixth, 429, "budget_exceeded");
      const retryAfter = Number(sixth.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The budget is the app's, whoever calls; another app is not affected.
      expectError(await b.get("bu-b", "/v1/resources", "metered-web"), 429, "budget_exceeded");
      expect(await b.snapshot()).toEqual(before);
      expect((await b.get("bu-a", "/v1/resources", "free-web")).status).toBe(200);
      const names = await b.db.all(
        "SELECT name FROM resources WHERE app_id = 'metered' AND type = 'team' ORDER BY name",
      );
      expect(names).toEqual([{ name: "one" }, { name: "two" }]);
    } finally {
      b.gw.gateway.close();
    }
  });

  test("an app without a budget is not limited", async () => {
    const b = await makeKit(BUDGET_APPS);
    try {
      for (let i = 0; i < 20; i++)
        expect((await b.get("bu-free", "/v1/resources", "free-web")).status).toBe(200);
    } finally {
      b.gw.gateway.close();
    }
  });
});
