/**
 * `bun scripts/screens.ts`: screenshots of the pages a person sees, in Chromium, into docs/screens/.
 * It starts what `gateway dev` starts (the development provider and a gateway in development, with the
 * same apps, on free loopback ports and a throwaway database), plus a gateway with no provider for the
 * "not set up" page, then walks the pages like a person: landing, login, consent, signed in, and each
 * browser-facing error, then the demo app: a message in its card, the delete confirmation, and My devices with a second
 * device signed in. Uses Debian's Chromium (CHROMIUM_PATH to change it); never downloads one.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { startDevIdp } from "../src/devidp/index.ts";
import { loadConfig } from "../src/server/config.ts";
import { serveDemo } from "../src/server/demo.ts";
import { DEMO_CLIENT_ID, DEV_CLIENT_NAMES, devApps } from "../src/server/dev-apps.ts";
import { type RunningGateway, startGateway } from "../src/server/serve.ts";

const OUT = join(import.meta.dir, "../docs/screens");
const WIDTH = 800;

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** An authorization request like an app's (PKCE S256), for the consent page with every standard scope. */
async function authorizeUrl(gatewayUrl: string, clientId: string, redirectUri: string, scope: string) {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state: b64url(crypto.getRandomValues(new Uint8Array(16))),
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  return `${gatewayUrl}/auth/authorize?${query}`;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  console.log(`docs/screens/${name}.png  ${page.url()}`);
}

async function logIn(page: Page, username: string): Promise<void> {
  await page.waitForURL((u) => u.pathname === "/login");
  await page.fill("input[name=username]", username);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/auth/consent"),
    page.press("input[name=username]", "Enter"),
  ]);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), "sg-screens-"));
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const demoPort = freePort();
  const demoUrl = `http://127.0.0.1:${demoPort}`;
  const apps = devApps(url, demoUrl);
  const adminApiKey = "screens-admin-key";
  const idp = await startDevIdp({
    clients: apps.apps.flatMap((app) =>
      app.clients.map((c) => ({
        clientId: c.clientId,
        redirectUris: c.redirectUris,
        clientName: DEV_CLIENT_NAMES[c.clientId],
      })),
    ),
    consentUrl: `${url}/auth/consent`,
    adminApiKey,
    quiet: true,
  });
  const gateways: RunningGateway[] = [];
  let browser: Browser | undefined;
  let demo: ReturnType<typeof serveDemo> | undefined;
  try {
    const env = { ADMIN_PORT: "0", COOKIE_SECURE: "false", SESSION_SECRET: "s".repeat(32) };
    gateways.push(
      await startGateway({
        config: {
          ...loadConfig({
            ...env,
            PORT: String(port),
            DATABASE_PATH: join(dataDir, "dev.db"),
            OIDC_ISSUER: idp.issuer,
            IDP_ADMIN_URL: idp.adminUrl,
            IDP_ADMIN_API_KEY: adminApiKey,
          }),
          development: true,
        },
        apps,
        demoUrl: `${demoUrl}/`,
        log: () => {},
      }),
    );
    // A gateway without an identity provider (no OIDC_ISSUER), as `gateway serve` starts unconfigured.
    const bare = await startGateway({
      config: loadConfig({ ...env, PORT: "0", DATABASE_PATH: join(dataDir, "bare.db") }),
      log: () => {},
    });
    gateways.push(bare);
    demo = serveDemo({ port: demoPort, host: "127.0.0.1", gatewayUrl: url, clientId: DEMO_CLIENT_ID });

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    const context = await browser.newContext({ viewport: { width: WIDTH, height: 560 } });
    const page = await context.newPage();

    await page.goto(`${url}/`);
    await page.waitForSelector("#signin:visible");
    await shoot(page, "landing-signed-out");

    // The consent page for the demo app asking for every standard scope.
    await page.goto(
      await authorizeUrl(url, DEMO_CLIENT_ID, `${demoUrl}/`, "openid offline_access profile email"),
    );
    await page.waitForURL((u) => u.pathname === "/login");
    await shoot(page, "login");
    await logIn(page, "ada");
    await page.waitForSelector("#accept");
    await shoot(page, "consent");

    // Signed in from the landing page (login, consent, back).
    await page.goto(`${url}/`);
    await page.click("#signin");
    await logIn(page, "ada");
    await page.click("#accept");
    await page.waitForSelector("#signout:visible");
    await shoot(page, "landing-signed-in");

    // The errors a browser meets.
    await page.goto(`http://localhost:${port}/`);
    await page.click("#signin:visible");
    await page.waitForSelector("h1:has-text('not registered')");
    await shoot(page, "error-redirect-uri");

    await page.goto(`${url}/auth/consent?consent_challenge=an-expired-challenge`);
    await shoot(page, "error-consent-expired");

    await page.goto(`${bare.publicUrl}/`);
    await page.click("#signin:visible");
    await page.waitForSelector("h1:has-text('not set up')");
    await shoot(page, "error-no-issuer");

    // The demo app (ada's gateway session from the landing page serves it too): an answer said in its
    // card, then Delete's question.
    await page.goto(`${demoUrl}/`);
    await page.waitForSelector("body[data-state=signed-in]");
    await page.fill("#name", "Holiday photos");
    await page.click("#create button[type=submit]");
    await page.waitForSelector("#creating > .done:has-text('Created Holiday photos')");
    await shoot(page, "demo-message");
    await page.click("[data-action=delete]");
    await page.waitForSelector("[data-action=confirm-delete]");
    await shoot(page, "demo-delete-confirmation");
    await page.click("[data-action=cancel-delete]");
    await page.waitForSelector("#resource-panel > .done:has-text('Nothing was deleted')");
    await shoot(page, "demo-delete-kept");

    // A second device of ada's (another browser context signs in through the demo): "My devices".
    const phone = await (await browser.newContext()).newPage();
    await phone.goto(`${demoUrl}/`);
    await phone.waitForSelector("body[data-state=signed-out]");
    await phone.click("#sign-in");
    await phone.waitForURL((u) => u.pathname === "/login");
    await phone.fill("input[name=username]", "ada");
    await Promise.all([
      phone.waitForURL((u) => u.pathname === "/auth/consent" || u.origin === demoUrl),
      phone.press("input[name=username]", "Enter"),
    ]);
    if (new URL(phone.url()).pathname === "/auth/consent") await phone.click("#accept");
    await phone.waitForSelector("body[data-state=signed-in]");
    await page.click("#reload");
    await page.waitForFunction(() => document.querySelectorAll("#devices li").length === 2);
    await page.locator("#my-devices").screenshot({ path: join(OUT, "demo-devices.png") });
    console.log("docs/screens/demo-devices.png  (the demo's My devices card)");
  } finally {
    await browser?.close();
    demo?.stop(true);
    for (const gateway of gateways) await gateway.stop();
    await idp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
