/**
 * Trust per app in a real browser (Debian's Chromium): in a browser signed in through app A, a page on
 * app B's origin can neither read A's data nor act with or end A's session (the default SameSite=Lax
 * cookie is sent, since both origins are same-site with the gateway); and an opaque origin (a
 * sandboxed frame sends `Origin: null`) never gets a CORS grant, even with a native app's custom-scheme
 * redirect URI in the apps file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { launchBrowser } from "../helpers/demo-stack.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const page = (title: string) =>
  new Response(`<!doctype html><title>${title}</title><body>${title}</body>`, {
    headers: { "content-type": "text/html" },
  });

let gateway: RunningGateway;
let context: BrowserContext;
let appA: ReturnType<typeof Bun.serve>;
let appB: ReturnType<typeof Bun.serve>;
let originA = "";
let originB = "";
let sessionId = "";
let teamId = "";

beforeAll(async () => {
  appA = Bun.serve({ port: freePort(), hostname: "127.0.0.1", fetch: () => page("app A") });
  appB = Bun.serve({ port: freePort(), hostname: "127.0.0.1", fetch: () => page("app B") });
  originA = `http://127.0.0.1:${appA.port}`;
  originB = `http://127.0.0.1:${appB.port}`;
  const apps: AppsFile = {
    apps: [
      {
        id: "a",
        clients: [
          { clientId: "a-web", redirectUris: [`${originA}/cb`] },
          { clientId: "a-native", redirectUris: ["com.example.app:/cb"] },
        ],
        types: { team: {} },
      },
      { id: "b", clients: [{ clientId: "b-web", redirectUris: [`${originB}/cb`] }], types: { team: {} } },
    ],
  };
  gateway = await startGateway({
    config: loadConfig({
      PORT: String(freePort()),
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      COOKIE_SECURE: "false",
    }),
    apps,
    log: () => {},
  });
  // Signed in through app A: a real session row and sealed cookie, as POST /auth/token makes them.
  const { row, sealed } = await gateway.gateway.sessions.start(
    { accessToken: "at-a", refreshToken: "rt-a", idToken: undefined, expiresIn: 3600, scope: "openid" },
    "alice",
    "a-web",
  );
  sessionId = row.id;
  context = await launchBrowser();
  await context.addCookies([
    { name: "sg_session", value: sealed, domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" },
  ]);
  const created = await fetch(`${gateway.publicUrl}/v1/resources`, {
    method: "POST",
    headers: { cookie: `sg_session=${sealed}`, "x-service-csrf": "1", "content-type": "application/json" },
    body: JSON.stringify({ type: "team", name: "A's private team" }),
  });
  teamId = ((await created.json()) as { id: string }).id;
}, 60_000);
afterAll(async () => {
  await context?.close();
  await gateway?.stop();
  appA?.stop(true);
  appB?.stop(true);
}, 30_000);

/** Runs the three calls from a page; each is "read:<body>" or "blocked:<error name>". */
function attempt(p: Page) {
  return p.evaluate(
    async ({ url, team }) => {
      const results: string[] = [];
      const calls: Array<[string, RequestInit]> = [
        [`${url}/v1/resources`, { credentials: "include" }],
        [
          `${url}/v1/resources/${team}/invite`,
          {
            method: "POST",
            credentials: "include",
            headers: { "content-type": "application/json", "x-service-csrf": "1" },
            body: JSON.stringify({ userId: "mallory" }),
          },
        ],
        [
          `${url}/auth/logout`,
          { method: "POST", credentials: "include", headers: { "x-service-csrf": "1" } },
        ],
      ];
      for (const [target, init] of calls) {
        try {
          const res = await fetch(target, init);
          results.push(`read:${res.status}:${await res.text()}`);
        } catch (error) {
          results.push(`blocked:${(error as Error).name}`);
        }
      }
      return results;
    },
    { url: gateway.publicUrl, team: teamId },
  );
}

const invites = () =>
  sql(gateway.gateway.storage).get("SELECT count(*) AS n FROM members WHERE user_id = 'mallory'");

describe("a page on another app's origin, in a browser signed in through app A", () => {
  test("cannot read A's resources, invite into them, or sign A out", async () => {
    const p = await context.newPage();
    await p.goto(`${originB}/`);
    expect(await attempt(p)).toEqual(["blocked:TypeError", "blocked:TypeError", "blocked:TypeError"]);
    expect(await invites()).toEqual({ n: 0 });
    expect((await gateway.gateway.store.fresh(sessionId))!.endedAt).toBeNull();
    await p.close();
  }, 30_000);

  test("A's own page reads A's resources with the same cookie", async () => {
    const p = await context.newPage();
    await p.goto(`${originA}/`);
    const body = await p.evaluate(
      async (url) => (await fetch(`${url}/v1/resources`, { credentials: "include" })).json(),
      gateway.publicUrl,
    );
    expect(body).toEqual({ resources: [expect.objectContaining({ id: teamId, name: "A's private team" })] });
    await p.close();
  }, 30_000);
});

describe("an opaque origin (Origin: null)", () => {
  test("a sandboxed frame on A's page gets no CORS grant, though A has a custom-scheme redirect URI", async () => {
    const p = await context.newPage();
    await p.goto(`${originA}/`);
    const outcome = await p.evaluate(async (url) => {
      const frame = document.createElement("iframe");
      frame.sandbox.add("allow-scripts");
      frame.srcdoc = `<script>
        (async () => {
          const out = [];
          for (const init of [{ credentials: "include" }, {}]) {
            try { const r = await fetch(${JSON.stringify(`${url}/auth/session`)}, init); out.push("read:" + await r.text()); }
            catch (e) { out.push("blocked:" + e.name); }
          }
          parent.postMessage(out, "*");
        })();
      </script>`;
      const message = new Promise((resolve) => window.addEventListener("message", (e) => resolve(e.data)));
      document.body.append(frame);
      return message;
    }, gateway.publicUrl);
    expect(outcome).toEqual(["blocked:TypeError", "blocked:TypeError"]);
    await p.close();
  }, 30_000);
});
