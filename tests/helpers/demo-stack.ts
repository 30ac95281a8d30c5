import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { startDevIdp } from "../../src/devidp/index.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { serveDemo } from "../../src/server/demo.ts";
import { devApps } from "../../src/server/dev-apps.ts";
import { startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "./db.ts";
import { freePort, tempDir } from "./stack.ts";

export const DEMO_CLIENT = "demo-web";
export const DEMO_ADMIN_TOKEN = "demo-admin-token";

/**
 * The development provider and a gateway for pages served from another origin: `redirectUris` are those
 * pages, registered for `clientId` at the provider and in the apps file `apps` builds (it gets the
 * gateway's URL).
 */
export async function startPageStack(options: {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  apps: (gatewayUrl: string) => AppsFile;
  accessTokenTtlSeconds?: number;
}) {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const idp = await startDevIdp({
    clients: [
      { clientId: options.clientId, redirectUris: options.redirectUris, clientName: options.clientName },
    ],
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
  const logs: string[] = [];
  const running = await startGateway({
    config,
    apps: options.apps(url),
    log: (_l, m, f) => logs.push(JSON.stringify({ m, ...f })),
  });
  return {
    idp,
    running,
    url,
    adminUrl: running.adminUrl,
    logs,
    async stop() {
      await running.stop();
      await idp.stop();
    },
  };
}

export async function startDemoStack(options: { accessTokenTtlSeconds?: number } = {}) {
  const demoPort = freePort();
  const demoUrl = `http://127.0.0.1:${demoPort}`;
  const clients = [{ clientId: DEMO_CLIENT, redirectUris: [`${demoUrl}/`] }];
  const stack = await startPageStack({
    ...clients[0]!,
    clientName: "Demo",
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    // The types, statics and budget `gateway dev` registers, so the demo meets what it meets there.
    apps: (url) => ({ apps: [{ ...devApps(url, demoUrl).apps[0]!, clients }] }),
  });
  const demo = serveDemo({ port: demoPort, host: "127.0.0.1", gatewayUrl: stack.url, clientId: DEMO_CLIENT });
  return {
    ...stack,
    demoUrl,
    async stop() {
      await demo.stop(true);
      await stack.stop();
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
