/**
 * Resources hardening: who reads the `_app` roster, what a requester sees, who owns app resources,
 * budget shares, built-in types and redirect-URI schemes at validation, and look-alike text. Each
 * refusal asserts its status, its `{error, code}` and that the database did not change.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppsFileError, parseAppsFile } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import { awayFromMinuteEdge, expectError, type Kit, makeKit, TEST_APPS } from "../helpers/resources-kit.ts";
import { tempDir } from "../helpers/stack.ts";

const k = await makeKit(TEST_APPS);
const kits: Kit[] = [k];
afterAll(() => {
  for (const kit of kits) kit.gw.gateway.close();
});

describe("the _app roster is a list of the app's users", () => {
  test("a writer of _app (every consenting user) cannot list the app's users: 403, nothing changes", async () => {
    const appId = await k.appResourceId();
    await k.gw.gateway.membership.joinAppResource("main", "app-writer");
    await k.gw.gateway.membership.joinAppResource("main", "app-other");
    expect(await k.member(appId, "app-writer")).toMatchObject({ role: "writer", state: "active" });
    const before = await k.snapshot();
    expectError(await k.get("app-writer", `/v1/resources/${appId}/members`), 403, "forbidden");
    expect(await k.snapshot()).toEqual(before);
  });

  test("an admin of _app reads its roster; rosters of other resources are unchanged for writers", async () => {
    const appId = await k.appResourceId();
    await k.gw.gateway.membership.joinAppResource("main", "app-admin");
    await k.db.run(
      "UPDATE members SET role = 'admin' WHERE resource_id = ? AND user_id = 'app-admin'",
      appId,
    );
    // Nobody is made admin of _app through the API (the app owns it); an operator can, in the database.
    const roster = await k.get("app-admin", `/v1/resources/${appId}/members`);
    expect(roster.status).toBe(200);
    expect(roster.body.members.map((m: { userId: string }) => m.userId)).toContain("app-writer");
    const team = await k.create("ro-owner", "team", "roster team");
    await k.addMember("ro-owner", team.id, "ro-writer", "writer");
    expect((await k.get("ro-writer", `/v1/resources/${team.id}/members`)).status).toBe(200);
  });
});

describe("a requester sees only what a non-member may", () => {
  test("the state=requested list shows a members-only resource as id and type only", async () => {
    const secret = await k.create("rq-owner", "team", "Secret plans of rq-owner");
    const open = await k.create("rq-owner", "board", "Open board");
    expect((await k.post("rq-asker", `/v1/resources/${secret.id}/request`, {})).status).toBe(200);
    expect((await k.post("rq-asker", `/v1/resources/${open.id}/request`, {})).status).toBe(200);
    const listed = await k.get("rq-asker", "/v1/resources?state=requested");
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("Secret plans");
    const byId = Object.fromEntries(listed.body.resources.map((r: { id: string }) => [r.id, r]));
    expect(byId[secret.id]).toEqual({ id: secret.id, type: "team" });
    expect(byId[open.id]).toMatchObject({ id: open.id, name: "Open board" }); // anyone may GET a public one
    expectError(await k.get("rq-asker", `/v1/resources/${secret.id}`), 404, "not_found");
    // Accepted, the member sees it all.
    expect(
      (await k.post("rq-owner", `/v1/resources/${secret.id}/accept`, { userId: "rq-asker" })).status,
    ).toBe(200);
    const active = await k.get("rq-asker", "/v1/resources");
    expect(active.body.resources.find((r: { id: string }) => r.id === secret.id)).toMatchObject({
      name: "Secret plans of rq-owner",
    });
  });
});

describe("app-owned resources have no user owner", () => {
  test("a user whose subject is app:<appId> cannot delete that app's statics or _app: 403, nothing changes", async () => {
    const feed = await k.staticId("feed", "global");
    const appRes = await k.appResourceId();
    await k.users("app:main");
    const before = await k.snapshot();
    expectError(await k.del("app:main", `/v1/resources/${feed}`), 403, "forbidden");
    expectError(await k.del("app:main", `/v1/resources/${appRes}`), 403, "app_resource_undeletable");
    expect(await k.snapshot()).toEqual(before);
    expect(await k.resource(feed)).toMatchObject({ owner_kind: "app", owner_id: "app:main" });
  });

  test("that user still owns what they create", async () => {
    const mine = await k.create("app:main", "team", "made by a user named app:main");
    expect(await k.resource(mine.id)).toMatchObject({ owner_kind: "user", owner_id: "app:main" });
    expect((await k.del("app:main", `/v1/resources/${mine.id}`)).status).toBe(200);
  });
});

describe("one user takes only a share of the app's budget", () => {
  const APPS: AppsFile = {
    apps: [
      {
        id: "metered",
        clients: [{ clientId: "metered-web", redirectUris: ["http://localhost/cb"] }],
        budget: { requestsPerMinute: 8, userShare: 0.25 },
        types: { team: {} },
      },
    ],
  };

  test("past a userShare of a quarter a user gets 429 while others still get through", async () => {
    const b = await makeKit(APPS);
    kits.push(b);
    await b.users("share-hog", "share-other");
    await b.h("share-hog", "metered-web");
    await b.h("share-other", "metered-web");
    await awayFromMinuteEdge();
    for (let i = 0; i < 2; i++)
      expect((await b.get("share-hog", "/v1/resources", "metered-web")).status).toBe(200);
    const before = await b.snapshot();
    const refused = await b.post("share-hog", "/v1/resources", { type: "team", name: "hog" }, "metered-web");
    expectError(refused, 429, "budget_exceeded");
    expect(refused.body.error).toContain("share");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await b.snapshot()).toEqual(before);
    // The refused calls were not charged to the app: another user has the rest of the minute.
    for (let i = 0; i < 5; i++) await b.get("share-hog", "/v1/resources", "metered-web");
    expect((await b.get("share-other", "/v1/resources", "metered-web")).status).toBe(200);
  });

  test("userShare is validated: (0, 1]", () => {
    const app = (userShare: number) => ({
      apps: [{ id: "x", clients: [], budget: { requestsPerMinute: 10, userShare } }],
    });
    expect(() => parseAppsFile(app(0))).toThrow(AppsFileError);
    expect(() => parseAppsFile(app(1.5))).toThrow(AppsFileError);
    expect(parseAppsFile(app(1)).apps[0]!.budget?.userShare).toBe(1);
  });
});

describe("validation of the apps file and deploys", () => {
  const base = (patch: Record<string, unknown>) => ({
    apps: [{ id: "v", clients: [{ clientId: "v-web", redirectUris: ["https://v.example/cb"] }], ...patch }],
  });
  const client = (uri: string, origins?: string[]) =>
    base({ clients: [{ clientId: "v-web", redirectUris: [uri], ...(origins ? { origins } : {}) }] });

  test.each([
    "javascript:alert(1)",
    "data:text/html,hi",
    "file:///etc/passwd",
    "vbscript:x",
    "blob:https://a/b",
  ])("a redirect URI %s is refused", (uri) => {
    expect(() => parseAppsFile(client(uri))).toThrow(/scheme, which is refused/);
  });

  test("a custom-scheme redirect URI (native app) is accepted but never becomes a CORS origin", async () => {
    const file = parseAppsFile(client("com.example.app:/cb")) as AppsFile;
    const running = await startGateway({
      config: loadConfig({
        PORT: "0",
        ADMIN_PORT: "0",
        ...(await databaseEnv(tempDir(), "g.db")),
        COOKIE_SECURE: "false",
      }),
      apps: file,
      log: () => {},
    });
    try {
      const res = await fetch(`${running.publicUrl}/auth/session`, { headers: { origin: "null" } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(running.gateway.apps.isAllowedOrigin("null")).toBe(false);
    } finally {
      await running.stop();
    }
  });

  test.each(["https://a.example/path", "null", "ftp://a.example", "https://a.example/"])(
    "an origin %s is refused",
    (origin) => {
      expect(() => parseAppsFile(client("https://v.example/cb", [origin]))).toThrow(
        /must be an http\(s\) origin/,
      );
    },
  );

  test("a static of the built-in type _app is refused (it would make the app's resource public)", () => {
    expect(() =>
      parseAppsFile(
        base({ statics: [{ type: "_app", slug: "_app", name: "x", visibility: "discoverable" }] }),
      ),
    ).toThrow(/built-in type "_app"/);
    expect(() => parseAppsFile(base({ statics: [{ type: "_mine", slug: "s", name: "x" }] }))).toThrow(
      AppsFileError,
    );
  });

  test("types beginning with _ are reserved; _app may set only defaultRole and grantCeiling", () => {
    expect(() => parseAppsFile(base({ types: { _mine: {} } }))).toThrow(/reserved for the gateway/);
    expect(() => parseAppsFile(base({ types: { _app: { visibility: "discoverable" } } }))).toThrow(/_app/);
    expect(() => parseAppsFile(base({ types: { _app: { reserved: false } } }))).toThrow(/_app/);
    expect(
      parseAppsFile(base({ types: { _app: { defaultRole: "reader", grantCeiling: "writer" } } })),
    ).toBeTruthy();
  });

  test("a deploy with a static _app is 400 and changes nothing; _app stays members-only", async () => {
    const d = await makeKit(TEST_APPS, { ADMIN_TOKEN: "deploy-token" });
    kits.push(d);
    const before = await d.snapshot();
    const res = await d.gw.admin("/admin/v1/apps/main/deploy", {
      method: "POST",
      headers: { authorization: "Bearer deploy-token", "content-type": "application/json" },
      body: JSON.stringify({
        ...TEST_APPS.apps[0],
        statics: [{ type: "_app", slug: "_app", name: "main", visibility: "discoverable" }],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_request" });
    expect(await d.snapshot()).toEqual(before);
    expect(await d.resource(await d.appResourceId())).toMatchObject({
      visibility: "members",
      discoverable: 0,
    });
  });
});

describe("look-alike text", () => {
  const created = (name: string) => k.post("la-user", "/v1/resources", { type: "team", name });

  test.each([
    ["a bidi override", "invoice\u202Efdp.exe"],
    ["only a zero-width space", "\u200B"],
    ["a zero-width space inside", "ad\u200Bmin"],
    ["a BOM inside", "a\uFEFFb"],
    ["a lone high surrogate", "bad\uD800name"],
    ["a lone low surrogate", "bad\uDC00name"],
    ["a joiner at the end", "word\u200D"],
    ["a control character inside", "a\u0007b"],
  ])("a name with %s is 400 invalid_request, nothing stored", async (_label, name) => {
    await k.users("la-user");
    const before = await k.snapshot();
    const reply = await k.call("la-user", "POST", "/v1/resources", undefined, {
      rawBody: `{"type":"team","name":${JSON.stringify(name)}}`,
    });
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error).toContain("name");
    expect(await k.snapshot()).toEqual(before);
  });

  test("joiners inside an emoji sequence are fine; names are stored in NFC", async () => {
    const family = await created("\u{1F468}\u200D\u{1F469}\u200D\u{1F467} family");
    expect(family.status).toBe(200);
    const decomposed = await created("Cafe\u0301");
    expect(decomposed.status).toBe(200);
    expect(decomposed.body.name).toBe("Caf\u00E9");
    expect((await k.resource(decomposed.body.id)).name).toBe("Caf\u00E9");
  });

  test("the 200-character limit counts characters: 150 or 200 emoji are accepted, 201 refused", async () => {
    expect((await created("\u{1F600}".repeat(150))).status).toBe(200);
    expect((await created("\u{1F600}".repeat(200))).status).toBe(200);
    const before = await k.snapshot();
    expectError(await created("\u{1F600}".repeat(201)), 400, "invalid_request");
    expect(await k.snapshot()).toEqual(before);
  });

  test.each([
    ["invite", (id: string) => [`/v1/resources/${id}/invite`, { userId: "mal\u202Elory" }]],
    ["invite (zero-width)", (id: string) => [`/v1/resources/${id}/invite`, { userId: "\u200B" }]],
    ["invite (lone surrogate)", (id: string) => [`/v1/resources/${id}/invite`, { userId: "x\uD800" }]],
    ["setRole", (id: string) => [`/v1/resources/${id}/setRole`, { userId: "a\u2066b", role: "reader" }]],
    ["remove", (id: string) => [`/v1/resources/${id}/remove`, { userId: "a\u200Fb" }]],
    ["accept", (id: string) => [`/v1/resources/${id}/accept`, { userId: "a\u2060b" }]],
    ["reject", (id: string) => [`/v1/resources/${id}/reject`, { userId: "a\u061Cb" }]],
  ] as Array<[string, (id: string) => [string, unknown]]>)(
    "a user id with format characters or lone surrogates in %s is 400, nothing changes",
    async (_label, make) => {
      const team = await k.create("la-owner", "team", "look-alike team");
      const [path, body] = make(team.id);
      const before = await k.snapshot();
      const reply = await k.call("la-owner", "POST", path, undefined, { rawBody: JSON.stringify(body) });
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error).toContain("userId");
      expect(await k.snapshot()).toEqual(before);
    },
  );

  test("a browse query or a type with a format or control character is 400 (never reaches the index)", async () => {
    expectError(
      await k.get("la-user", `/v1/resources/browse?query=${encodeURIComponent("a\u0000b")}`),
      400,
      "invalid_request",
    );
    expectError(
      await k.get("la-user", `/v1/resources/browse?query=${encodeURIComponent("a\u202Eb")}`),
      400,
      "invalid_request",
    );
    expectError(
      await k.get("la-user", `/v1/resources?type=${encodeURIComponent("team\u200B")}`),
      400,
      "invalid_request",
    );
  });
});
