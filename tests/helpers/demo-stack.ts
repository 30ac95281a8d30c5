import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { startDevIdp } from "../../src/devidp/index.ts";
import { loadConfig } from "../../src/server/config.ts";
import { serveDemo } from "../../src/server/demo.ts";
import { devApps } from "../../src/server/dev-apps.ts";
import { startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "./db.ts";
import { freePort, tempDir } from "./stack.ts";

export const DEMO_CLIENT = "demo-web";
export const DEMO_ADMIN_TOKEN = "demo-admin-token";

export async function startDemoStack(options: { accessTokenTtlSeconds?: number } = {}) {
  const port = freePort();
  const demoPort = freePort();
  const url = `http://127.0.0.1:${port}`;
  const demoUrl = `http://127.0.0.1:${demoPort}`;
  const idp = await startDevIdp({
    clients: [{ clientId: DEMO_CLIENT, redirectUris: [`${demoUrl}/`], clientName: "Demo" }],
    consentUrl: `${url}/auth/consent`,
    adminApiKey: "demo-idp-key",
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    quiet: true,
  });
  const config = loadConfig({
    PORT: String(port),
    ADMIN_PORT: String(freePort()),
    ...(await databaseEnv(tempDir(), "gateway.db")),
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_API_KEY: "demo-idp-key",
    COOKIE_SECURE: "false",
    ADMIN_TOKEN: DEMO_ADMIN_TOKEN,
  });
  // The types, statics and budget `gateway dev` registers, so the demo meets what it meets there.
  const [dev] = devApps(url, demoUrl).apps;
  const apps = { apps: [{ ...dev!, clients: [{ clientId: DEMO_CLIENT, redirectUris: [`${demoUrl}/`] }] }] };
  const logs: string[] = [];
  const running = await startGateway({
    config,
    apps,
    log: (_l, m, f) => logs.push(JSON.stringify({ m, ...f })),
  });
  const demo = serveDemo({ port: demoPort, host: "127.0.0.1", gatewayUrl: url, clientId: DEMO_CLIENT });
  return {
    idp,
    running,
    url,
    demoUrl,
    adminUrl: running.adminUrl,
    logs,
    async stop() {
      await demo.stop(true);
      await running.stop();
      await idp.stop();
    },
  };
}

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(tempDir("sg-chromium-"), {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/** One Chromium for several users: each `browser.newContext()` has its own cookie jar and storage. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
}
