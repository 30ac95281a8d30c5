/**
 * The pages a person sees, in Chromium, under their CSPs: the landing page (Sign in or Sign out, never
 * both; the demo app linked in development), the consent page (the app's name, the scopes in words),
 * and the browser-facing error pages with their way forward (start again after an expired consent,
 * the registered address after opening the app at `localhost`, what to set with no provider).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { type DevIdp, startDevIdp } from "../../src/devidp/index.ts";
import { loadConfig } from "../../src/server/config.ts";
import { LANDING_CLIENT_ID } from "../../src/server/landing.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import { launchBrowser } from "../helpers/demo-stack.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

let idp: DevIdp;
let gateway: RunningGateway;
let bare: RunningGateway;
let context: BrowserContext;
let port = 0;
let url = "";
const demoUrl = "http://127.0.0.1:5999/";

beforeAll(async () => {
  port = freePort();
  url = `http://127.0.0.1:${port}`;
  idp = await startDevIdp({
    clients: [{ clientId: LANDING_CLIENT_ID, redirectUris: [`${url}/`], clientName: "Gateway home" }],
    consentUrl: `${url}/auth/consent`,
    adminApiKey: "pages-key",
    quiet: true,
  });
  const common = { ADMIN_PORT: "0", COOKIE_SECURE: "false" };
  gateway = await startGateway({
    config: {
      ...loadConfig({
        ...common,
        PORT: String(port),
        ...(await databaseEnv(tempDir(), "gateway.db")),
        OIDC_ISSUER: idp.issuer,
        IDP_ADMIN_URL: idp.adminUrl,
        IDP_ADMIN_API_KEY: "pages-key",
      }),
      development: true,
    },
    apps: { apps: [{ id: "home", clients: [{ clientId: LANDING_CLIENT_ID, redirectUris: [`${url}/`] }] }] },
    demoUrl,
    log: () => {},
  });
  // No OIDC_ISSUER and not in development: `gateway serve` before it is configured.
  bare = await startGateway({
    config: loadConfig({ ...common, PORT: "0", ...(await databaseEnv(tempDir(), "bare.db")) }),
    log: () => {},
  });
  context = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await context?.close();
  await gateway?.stop();
  await bare?.stop();
  await idp?.stop();
}, 30_000);

/** A page that records CSP violations; `done()` asserts there were none and closes it. */
async function openPage() {
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return {
    page,
    async done() {
      expect(violations).toEqual([]);
      await page.close();
    },
  };
}

async function buttons(page: Page) {
  return { signIn: await page.isVisible("#signin"), signOut: await page.isVisible("#signout") };
}

test("the landing page offers Sign in or Sign out, never both, and links the demo app in development; consent names the app and its scopes", async () => {
  const { page, done } = await openPage();
  await page.goto(`${url}/`);
  await page.waitForSelector("#state:has-text('Not signed in')");
  expect(await buttons(page)).toEqual({ signIn: true, signOut: false });
  expect(await page.getAttribute("#demo a", "href")).toBe(demoUrl);
  expect(await page.textContent("h1")).toBe("Sign-in and membership for your apps");

  await page.click("#signin");
  await page.waitForURL((u) => u.pathname === "/login");
  await page.fill("input[name=username]", "page-pat");
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/auth/consent"),
    page.press("input[name=username]", "Enter"),
  ]);
  expect(await page.textContent("h1")).toBe("Allow Gateway home to use your account?");
  const scopes = await page.textContent("ul.list");
  expect(scopes).toContain("Know who you are");
  expect(scopes).toContain("Stay signed in");
  await page.click("#accept");

  await page.waitForSelector("#state:has-text('Signed in as page-pat')");
  expect(await buttons(page)).toEqual({ signIn: false, signOut: true });
  await page.click("#signout");
  await page.waitForSelector("#state:has-text('Not signed in')");
  expect(await buttons(page)).toEqual({ signIn: true, signOut: false });
  await done();
}, 60_000);

test("an expired consent request is a page whose Start again leads back to signing in", async () => {
  const { page, done } = await openPage();
  const response = await page.goto(`${url}/auth/consent?consent_challenge=long-gone`);
  expect(response?.status()).toBe(404);
  expect(await page.textContent("h1")).toBe("This sign-in request has expired");
  await Promise.all([page.waitForURL(`${url}/`), page.click("a:has-text('Start again')")]);
  await page.waitForSelector("#signin:visible");
  await done();
}, 60_000);

test("opening the app at localhost ends on a page naming both addresses, whose link opens the registered one", async () => {
  const { page, done } = await openPage();
  await page.goto(`http://localhost:${port}/`);
  await page.click("#signin:visible");
  await page.waitForSelector("h1:has-text('not registered')");
  const text = await page.textContent(".card");
  expect(text).toContain(`http://localhost:${port}/`);
  expect(text).toContain(`Registered for this client`);
  expect(text).toContain(`${url}/`);
  await Promise.all([page.waitForURL(`${url}/`), page.click(`a:has-text("Open ${url}/")`)]);
  await page.waitForSelector("#signin:visible");
  await done();
}, 60_000);

test("with no identity provider, Sign in ends on a page saying what to set; no demo link outside development", async () => {
  const { page, done } = await openPage();
  await page.goto(`${bare.publicUrl}/`);
  await page.waitForSelector("#signin:visible");
  expect(await page.$("#demo")).toBeNull();
  await page.click("#signin");
  await page.waitForSelector("h1:has-text('Sign-in is not set up yet')");
  expect(await page.textContent(".card")).toContain("OIDC_ISSUER");
  await Promise.all([page.waitForURL(`${bare.publicUrl}/`), page.click("a:has-text('home page')")]);
  await done();
}, 60_000);
