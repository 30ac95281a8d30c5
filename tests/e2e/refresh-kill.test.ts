/**
 * `kill -9` inside the rotation grace: the gateway runs as its own process (`main.ts serve`), a tab
 * refreshes, the process is killed without a chance to flush anything, and a new process answers the
 * previous cookie with the current session (the grace lives on the session row, sealed).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DevIdp, startDevIdp } from "../../src/devidp/index.ts";
import { Browser } from "../helpers/browser.ts";
import { databaseEnv } from "../helpers/db.ts";
import { CLIENT_ID, CSRF, freePort, type Stack, signIn, tempDir } from "../helpers/stack.ts";

let idp: DevIdp;
let url = "";
let env: Record<string, string> = {};
let child: ReturnType<typeof Bun.spawn> | undefined;

async function serve(): Promise<void> {
  child = Bun.spawn(["bun", "src/server/main.ts", "serve"], { env, stdout: "pipe", stderr: "pipe" });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error("the gateway did not start");
}

beforeAll(async () => {
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  const dir = tempDir();
  idp = await startDevIdp({
    clients: [{ clientId: CLIENT_ID, redirectUris: [`${url}/callback`] }],
    consentUrl: `${url}/auth/consent`,
    adminApiKey: "kill-key",
    quiet: true,
  });
  const appsFile = join(dir, "apps.json");
  writeFileSync(
    appsFile,
    JSON.stringify({
      apps: [{ id: "kill", clients: [{ clientId: CLIENT_ID, redirectUris: [`${url}/callback`] }] }],
    }),
  );
  env = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    ADMIN_PORT: String(freePort()),
    ...(await databaseEnv(dir, "gateway.db")),
    GATEWAY_CONFIG: appsFile,
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_URL: idp.adminUrl,
    IDP_ADMIN_API_KEY: "kill-key",
    COOKIE_SECURE: "false",
  };
  await serve();
}, 60_000);
afterAll(async () => {
  child?.kill(9);
  await idp?.stop();
}, 30_000);

test("kill -9 inside the grace: the new process answers the previous cookie with the current session", async () => {
  const stack = { url, idp, redirectUri: `${url}/callback` } as unknown as Stack;
  const { browser, token } = await signIn(stack, "killed-kim", new Browser());
  expect(token.status).toBe(200);
  const previous = browser.cookieHeader(url);
  const first = await fetch(`${url}/auth/refresh`, {
    method: "POST",
    headers: { ...CSRF, cookie: previous },
    body: "{}",
  });
  expect(first.status).toBe(200);
  const current = first.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  child!.kill(9);
  await child!.exited;
  await serve();
  const again = await fetch(`${url}/auth/refresh`, {
    method: "POST",
    headers: { ...CSRF, cookie: previous },
    body: "{}",
  });
  expect(again.status).toBe(200);
  expect(
    again.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; "),
  ).toBe(current);
  const session = await fetch(`${url}/auth/session`, { headers: { cookie: current } });
  expect(await session.json()).toEqual({ authenticated: true, user_id: "killed-kim" });
  expect(idp.calls["token:refresh_token"]).toBe(1);
}, 60_000);
