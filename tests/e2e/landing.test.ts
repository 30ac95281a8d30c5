/**
 * The gateway's own landing page in Chromium, under its CSP and framing headers: sign in through the
 * development provider and the consent page (nonce, PKCE, the consent binding cookie), then sign out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { type DevIdp, startDevIdp } from "../../src/devidp/index.ts";
import { loadConfig } from "../../src/server/config.ts";
import { LANDING_CLIENT_ID } from "../../src/server/landing.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import { launchBrowser } from "../helpers/demo-stack.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

let idp: DevIdp;
let gateway: RunningGateway;
let context: BrowserContext;
let url = "";

beforeAll(async () => {
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  idp = await startDevIdp({
    clients: [{ clientId: LANDING_CLIENT_ID, redirectUris: [`${url}/`], clientName: "Landing" }],
    consentUrl: `${url}/auth/consent`,
    adminApiKey: "landing-key",
    quiet: true,
  });
  gateway = await startGateway({
    config: loadConfig({
      PORT: String(port),
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      OIDC_ISSUER: idp.issuer,
      IDP_ADMIN_URL: idp.adminUrl,
      IDP_ADMIN_API_KEY: "landing-key",
      COOKIE_SECURE: "false",
    }),
    apps: { apps: [{ id: "home", clients: [{ clientId: LANDING_CLIENT_ID, redirectUris: [`${url}/`] }] }] },
    log: () => {},
  });
  context = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await context?.close();
  await gateway?.stop();
  await idp?.stop();
}, 30_000);

test("the landing page signs in and out under its CSP", async () => {
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(`${url}/`);
  await page.waitForSelector("#state:has-text('Not signed in')");
  await page.click("#signin");
  await page.waitForURL((u) => u.pathname === "/login");
  await page.fill("input[name=username]", "landing-lee");
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/auth/consent"),
    page.press("input[name=username]", "Enter"),
  ]);
  await page.click("#accept");
  await page.waitForSelector("#state:has-text('Signed in as landing-lee')");
  const cookies = await context.cookies(url);
  expect(cookies.find((c) => c.name === "sg_session")?.httpOnly).toBe(true);
  const consent = (await context.cookies()).find((c) => c.name === "sg_consent");
  expect([consent?.path, consent?.sameSite, consent?.httpOnly]).toEqual(["/auth", "Strict", true]);
  await page.click("#signout");
  await page.waitForSelector("#state:has-text('Not signed in')");
  expect(violations).toEqual([]);
  await page.close();
}, 60_000);
