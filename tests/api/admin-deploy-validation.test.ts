/**
 * `POST /admin/v1/apps/:id/deploy` takes "one app of the apps file": a body the
 * apps file would refuse at start-up is refused with 400 `invalid_request` (§8) and leaves nothing
 * behind: no deployment row, no event, no resource, the apps in force untouched, and the gateway
 * still starts on the same database. Over real sockets, no provider needed.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { tempDir } from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token", "content-type": "application/json" };

const FILE: AppsFile = {
  apps: [
    { id: "first", clients: [{ clientId: "first-web", redirectUris: ["http://127.0.0.1:5101/cb"] }] },
    { id: "second", clients: [{ clientId: "second-web", redirectUris: ["http://127.0.0.1:5102/cb"] }] },
    { id: "third", clients: [{ clientId: "third-web", redirectUris: ["http://127.0.0.1:5103/cb"] }] },
  ],
};
const ORIGINS = ["http://127.0.0.1:5101", "http://127.0.0.1:5102", "http://127.0.0.1:5103"];

let gw: RunningGateway;
let database: Record<string, string> = {};
const start = () =>
  startGateway({
    config: loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...database,
      COOKIE_SECURE: "false",
      ADMIN_TOKEN: "test-admin-token",
    }),
    apps: FILE,
    log: () => {},
  });

// A fresh gateway per test: a refused deploy must not be able to leak into the next test.
beforeEach(async () => {
  database = await databaseEnv(tempDir("sg-admin-deploy-"));
  gw = await start();
});
afterEach(async () => {
  await gw.stop();
});

async function deploy(id: string, body: unknown) {
  const res = await fetch(`${gw.adminUrl}/admin/v1/apps/${id}/deploy`, {
    method: "POST",
    headers: ADMIN,
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const counts = async () =>
  (await sql(gw.gateway.storage).get(
    "SELECT (SELECT count(*) FROM deployments) AS deployments, (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM resources) AS resources",
  )) as { deployments: number; events: number; resources: number };
/** The CORS preflight answers for registered origins only: a window on the apps in force. */
async function allowed(origin: string): Promise<boolean> {
  const res = await fetch(`${gw.publicUrl}/auth/refresh`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-service-csrf",
    },
  });
  await res.arrayBuffer();
  return res.headers.get("access-control-allow-origin") === origin;
}
async function appsInForce(): Promise<string[]> {
  const res = await fetch(`${gw.adminUrl}/admin/v1/resources?type=_app`, { headers: ADMIN });
  const body = (await res.json()) as { resources: Array<{ appId: string }> };
  return body.resources.map((r) => r.appId).sort();
}

/** Refused, nothing written, every registered origin still allowed, and a valid deploy still works. */
async function expectRefusedCleanly(result: { status: number; body: Record<string, unknown> }) {
  expect(result.status).toBe(400);
  expect(result.body).toMatchObject({ code: "invalid_request", error: expect.any(String) });
}

describe("a deploy body the apps file would refuse", () => {
  test("an unknown field is 400 invalid_request, not silently dropped", async () => {
    const before = await counts();
    const result = await deploy("third", {
      ...FILE.apps[2]!,
      statcs: [{ type: "feed", slug: "x", name: "X" }],
    });
    await expectRefusedCleanly(result);
    expect(await counts()).toEqual(before);
  });

  test("a redirect URI that is not an absolute URL is 400 and leaves the apps in force untouched", async () => {
    const before = await counts();
    const result = await deploy("second", {
      id: "second",
      clients: [{ clientId: "second-web", redirectUris: ["not a url"] }],
    });
    await expectRefusedCleanly(result);
    expect(await counts()).toEqual(before);
    for (const origin of ORIGINS)
      expect({ origin, allowed: await allowed(origin) }).toEqual({ origin, allowed: true });
    // The registry is intact: the next valid deploy succeeds.
    const next = await deploy("fourth", {
      id: "fourth",
      clients: [{ clientId: "fourth-web", redirectUris: ["http://127.0.0.1:5104/cb"] }],
    });
    expect(next.status).toBe(200);
    expect(await allowed("http://127.0.0.1:5104")).toBe(true);
  });

  test("a new app with an invalid URI is 400: no deployment, no `_app` resource", async () => {
    const before = await counts();
    const result = await deploy("broken", {
      id: "broken",
      clients: [
        { clientId: "broken-web", redirectUris: ["http://127.0.0.1:5105/cb"], origins: ["::nope::"] },
      ],
    });
    await expectRefusedCleanly(result);
    expect(await counts()).toEqual(before);
    expect(await appsInForce()).not.toContain("broken");
    // Nothing recorded that would stop the gateway from starting again on the same database.
    await gw.stop();
    gw = await start();
    expect((await fetch(`${gw.publicUrl}/healthz`)).status).toBe(200);
    for (const origin of ORIGINS) expect(await allowed(origin)).toBe(true);
    expect(await appsInForce()).toEqual(["first", "second", "third"]);
  });

  test("a client id that another app owns is refused (the file refuses a client appearing twice)", async () => {
    const before = await counts();
    const result = await deploy("thief", {
      id: "thief",
      clients: [{ clientId: "first-web", redirectUris: ["http://127.0.0.1:5106/cb"] }],
    });
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(await counts()).toEqual(before);
    expect(gw.gateway.apps.lookupClient("first-web")?.app.id).toBe("first");
    expect(await allowed("http://127.0.0.1:5106")).toBe(false);
  });
});

describe("a deploy refused for what it would let a browser or a user do", () => {
  const app = (patch: Record<string, unknown>) => ({ ...FILE.apps[1]!, ...patch });
  const client = (patch: Record<string, unknown>) =>
    app({ clients: [{ clientId: "second-web", redirectUris: ["http://127.0.0.1:5102/cb"], ...patch }] });

  test.each([
    [
      "a javascript: redirect URI",
      client({ redirectUris: ["javascript:alert(document.cookie)"] }),
      "javascript:",
    ],
    ["a data: redirect URI", client({ redirectUris: ["data:text/html,<script>1</script>"] }), "data:"],
    ["a file: redirect URI", client({ redirectUris: ["file:///etc/passwd"] }), "file:"],
    ["a vbscript: redirect URI", client({ redirectUris: ["vbscript:msgbox(1)"] }), "vbscript:"],
    ["a blob: redirect URI", client({ redirectUris: ["blob:https://a.example/1"] }), "blob:"],
    ["an origin with a path", client({ origins: ["https://a.example/app"] }), "https://a.example/app"],
    ["the origin null", client({ origins: ["null"] }), '"null"'],
    ["a custom-scheme origin", client({ origins: ["com.example.app:"] }), "com.example.app:"],
    [
      "a static of type _app",
      app({ statics: [{ type: "_app", slug: "_app", name: "x", visibility: "discoverable" }] }),
      "_app",
    ],
    [
      "a static of another built-in type",
      app({ statics: [{ type: "_feed", slug: "s", name: "x" }] }),
      "_feed",
    ],
    ["a type beginning with _", app({ types: { _feed: {} } }), "_feed"],
    [
      "a static name with an escape sequence",
      app({ types: { feed: {} }, statics: [{ type: "feed", slug: "g", name: "\u001b[31mRed\u001b[0m" }] }),
      "/statics/0/name must not contain control characters",
    ],
    [
      "a static name with a C1 escape (CSI)",
      app({ types: { feed: {} }, statics: [{ type: "feed", slug: "g", name: "Red\u009b2J" }] }),
      "/statics/0/name must not contain control characters",
    ],
    [
      "a static name with a bidi override",
      app({ types: { feed: {} }, statics: [{ type: "feed", slug: "g", name: "Global \u202efeed" }] }),
      "/statics/0/name must not contain invisible format characters",
    ],
    [
      "a static slug with a zero-width space",
      app({ types: { feed: {} }, statics: [{ type: "feed", slug: "g\u200b", name: "Global" }] }),
      "/statics/0/slug must not contain invisible format characters",
    ],
    [
      "a static type with a control character",
      app({ statics: [{ type: "feed\u0007", slug: "g", name: "Global" }] }),
      "/statics/0/type must not contain control characters",
    ],
    ["types._app made visible", app({ types: { _app: { visibility: "discoverable" } } }), "_app"],
    ["types._app made unreserved", app({ types: { _app: { reserved: false } } }), "_app"],
  ])("%s is 400 invalid_request naming it, and changes nothing", async (_label, body, named) => {
    const before = await counts();
    const appResource = await sql(gw.gateway.storage).get(
      "SELECT * FROM resources WHERE app_id = 'second' AND type = '_app'",
    );
    const result = await deploy("second", body);
    expect(result.status).toBe(400);
    expect(Object.keys(result.body).sort()).toEqual(["code", "error"]);
    expect(result.body.code).toBe("invalid_request");
    expect(result.body.error).toContain(named);
    expect(await counts()).toEqual(before);
    expect(
      await sql(gw.gateway.storage).get("SELECT * FROM resources WHERE app_id = 'second' AND type = '_app'"),
    ).toEqual(appResource);
    expect(gw.gateway.apps.app("second")).toEqual(FILE.apps[1]!);
    expect(gw.gateway.apps.isAllowedOrigin("null")).toBe(false);
  });

  test("an origin that is not written as the browser sends it is refused with the form to use", async () => {
    const before = await counts();
    const result = await deploy("second", client({ origins: ["https://App.example:443"] }));
    expect(result.status).toBe(400);
    expect(result.body.code).toBe("invalid_request");
    expect(result.body.error).toContain('write it as "https://app.example"');
    expect(await counts()).toEqual(before);
  });

  test("types._app may set defaultRole and grantCeiling; a custom-scheme redirect URI is fine", async () => {
    const result = await deploy(
      "second",
      app({
        clients: [
          { clientId: "second-web", redirectUris: ["http://127.0.0.1:5102/cb", "com.example.app:/cb"] },
        ],
        types: {
          _app: { defaultRole: "reader", grantCeiling: "writer", visibility: "members", reserved: true },
        },
      }),
    );
    expect(result.status).toBe(200);
    expect(await allowed("http://127.0.0.1:5102")).toBe(true);
    expect(await allowed("null")).toBe(false);
  });
});
