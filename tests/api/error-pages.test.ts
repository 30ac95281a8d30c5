/**
 * The browser-facing errors in both forms: an HTML page with the cause and a way forward when a
 * browser navigating to `/auth/authorize` or the consent page asks for HTML, and the `{error, code}`
 * JSON otherwise (fetch, curl, an SDK), unchanged. An unregistered redirect URI names the URI received,
 * and lists the registered ones in development only. In-process, then over a socket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildPublicApp } from "../../src/server/app.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppRegistry, DEFAULT_APPS } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway, type Gateway } from "../../src/server/gateway.ts";
import { prefersHtml } from "../../src/server/http/error-page.ts";
import { Browser } from "../helpers/browser.ts";
import { databaseEnv } from "../helpers/db.ts";
import {
  authorizeUrl,
  CLIENT_ID,
  pkce,
  reachConsent,
  type Stack,
  startStack,
  tempDir,
} from "../helpers/stack.ts";

/** What Chromium sends for a navigation. */
const BROWSER_ACCEPT =
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
const FIREFOX_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

const REGISTERED = "http://127.0.0.1:8787/";
const APPS: AppsFile = {
  apps: [
    { id: "home", clients: [{ clientId: "web", redirectUris: [REGISTERED, "http://127.0.0.1:5173/cb"] }] },
  ],
};

interface Built {
  gateway: Gateway;
  handle(path: string, headers?: Record<string, string>, init?: RequestInit): Promise<Response>;
}

const built: Gateway[] = [];
async function build(options: { issuer: boolean; development: boolean; apps?: AppsFile }): Promise<Built> {
  const config = {
    ...loadConfig({
      ...(await databaseEnv(tempDir(), "gateway.db")),
      COOKIE_SECURE: "false",
      // Never reached: every refusal here comes before the provider is asked anything.
      ...(options.issuer ? { OIDC_ISSUER: "http://127.0.0.1:9" } : {}),
    }),
    development: options.development,
  };
  const apps = options.apps ?? APPS;
  const gateway = await createGateway({
    config,
    apps: new AppRegistry(apps, { acceptAnyClient: apps === DEFAULT_APPS }),
    log: () => {},
  });
  built.push(gateway);
  const app = buildPublicApp(gateway);
  return {
    gateway,
    handle: (path, headers = {}, init = {}) =>
      app.handle(new Request(`http://127.0.0.1:8787${path}`, { ...init, headers })),
  };
}

function authorizePath(redirectUri: string, clientId = "web"): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "openid offline_access",
    state: "state-0123456789",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  return `/auth/authorize?${query}`;
}

async function expectHtml(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("script-src");
  expect(res.headers.get("cache-control")).toBe("no-store");
  return res.text();
}

async function expectJson(res: Response, status: number): Promise<{ error: string; code: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = (await res.json()) as { error: string; code: string };
  expect(Object.keys(body).sort()).toEqual(["code", "error"]);
  return body;
}

let production: Built;
let development: Built;
let noIssuer: Built;
beforeAll(async () => {
  production = await build({ issuer: true, development: false });
  development = await build({ issuer: true, development: true });
  noIssuer = await build({ issuer: false, development: false, apps: DEFAULT_APPS });
}, 30_000);
afterAll(async () => {
  for (const gateway of built) await gateway.close();
}, 30_000);

describe("which form: HTML only when a browser's Accept prefers it", () => {
  const cases: Array<[string | undefined, boolean]> = [
    [BROWSER_ACCEPT, true],
    [FIREFOX_ACCEPT, true],
    ["text/html", true],
    ["text/html, application/json;q=0.9", true],
    [undefined, false],
    ["*/*", false],
    ["application/json", false],
    ["application/json, text/html", false],
    ["text/html;q=0.5, application/json", false],
    ["text/html;q=0", false],
    ["text/*", false],
  ];
  for (const [accept, html] of cases)
    test(`Accept ${accept ?? "(none)"} → ${html ? "HTML" : "JSON"}`, () => {
      const request = new Request("http://x/auth/authorize", accept ? { headers: { accept } } : {});
      expect(prefersHtml(request)).toBe(html);
    });
});

describe("no identity provider configured", () => {
  test("a browser gets a page saying what to set, with a way back", async () => {
    const html = await expectHtml(
      await noIssuer.handle(authorizePath(REGISTERED), { accept: BROWSER_ACCEPT }),
      503,
    );
    expect(html).toContain("Sign-in is not set up yet");
    expect(html).toContain("<code>OIDC_ISSUER</code>");
    expect(html).toContain('href="/"');
    expect(html).toContain("<code>issuer_not_configured</code>");
  });

  test("fetch, curl and JSON callers get today's JSON", async () => {
    const variants: Array<Record<string, string>> = [{}, { accept: "*/*" }, { accept: "application/json" }];
    for (const headers of variants) {
      expect(await expectJson(await noIssuer.handle(authorizePath(REGISTERED), headers), 503)).toEqual({
        error: "No identity provider is configured (OIDC_ISSUER).",
        code: "issuer_not_configured",
      });
    }
  });
});

describe("an unregistered redirect URI at /auth/authorize", () => {
  const received = "http://localhost:8787/";

  test("outside development: the page names the URI received and what to change, never the registered ones", async () => {
    const html = await expectHtml(
      await production.handle(authorizePath(received), { accept: BROWSER_ACCEPT }),
      400,
    );
    expect(html).toContain("return address is not registered");
    expect(html).toContain(`<code>${received}</code>`);
    expect(html).toContain("<code>web</code>");
    expect(html).toContain("apps file");
    expect(html).not.toContain("127.0.0.1:8787");
    expect(html).not.toContain("5173");
    expect(html).not.toContain("development");
  });

  test("outside development: the JSON names the URI received, never the registered ones", async () => {
    const body = await expectJson(await production.handle(authorizePath(received)), 400);
    expect(body).toEqual({
      error: `redirect_uri "${received}" is not registered for client "web".`,
      code: "invalid_redirect_uri",
    });
  });

  test("in development: the page lists the registered URIs and opens the app at the registered host", async () => {
    const html = await expectHtml(
      await development.handle(authorizePath(received), { accept: BROWSER_ACCEPT }),
      400,
    );
    expect(html).toContain(`<code>${received}</code>`);
    expect(html).toContain(`<li><code>${REGISTERED}</code></li>`);
    expect(html).toContain("<li><code>http://127.0.0.1:5173/cb</code></li>");
    expect(html).toContain("You opened the app at <code>localhost:8787</code>");
    expect(html).toContain(`href="${REGISTERED}"`);
    // The received URI is text, never a link.
    expect(html).not.toContain(`href="${received}"`);
  });

  test("in development: the JSON lists the registered URIs too", async () => {
    const body = await expectJson(await development.handle(authorizePath(received)), 400);
    expect(body.code).toBe("invalid_redirect_uri");
    expect(body.error).toBe(
      `redirect_uri "${received}" is not registered for client "web". Registered for it: "${REGISTERED}", "http://127.0.0.1:5173/cb".`,
    );
  });

  test("a hostile redirect URI is escaped on the page and never becomes a link", async () => {
    const hostile = `https://evil.example/"><script>alert(1)</script>`;
    const html = await expectHtml(
      await development.handle(authorizePath(hostile), { accept: BROWSER_ACCEPT }),
      400,
    );
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain('href="https://evil.example');
  });

  test("POST /auth/token names the URI (and in development the registered ones) and is always JSON", async () => {
    const token = (gw: Built) =>
      gw.handle(
        "/auth/token",
        { accept: BROWSER_ACCEPT, "content-type": "application/json", "x-service-csrf": "1" },
        {
          method: "POST",
          body: JSON.stringify({
            code: "c",
            code_verifier: "v".repeat(43),
            redirect_uri: received,
            client_id: "web",
          }),
        },
      );
    expect((await expectJson(await token(production), 400)).error).toBe(
      `redirect_uri "${received}" is not registered for client "web".`,
    );
    expect((await expectJson(await token(development), 400)).error).toContain(
      `Registered for it: "${REGISTERED}"`,
    );
  });

  test("other routes answer JSON even to a browser's Accept", async () => {
    const me = await production.handle("/v1/me", { accept: BROWSER_ACCEPT });
    expect((await expectJson(me, 401)).code).toBe("unauthenticated");
    const missing = await production.handle("/no/such/page", { accept: BROWSER_ACCEPT });
    expect((await expectJson(missing, 404)).code).toBe("not_found");
  });
});

describe("over a socket: the consent page's errors and the redirect URI page", () => {
  let stack: Stack;
  let devStack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    devStack = await startStack({ config: { development: true } });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await devStack?.stop();
  }, 30_000);

  test("an expired consent request: a page offering to start again for a browser, JSON otherwise", async () => {
    const url = `${stack.url}/auth/consent?consent_challenge=expired-challenge`;
    const html = await expectHtml(await fetch(url, { headers: { accept: BROWSER_ACCEPT } }), 404);
    expect(html).toContain("This sign-in request has expired");
    expect(html).toContain('<a class="button primary" href="/">Start again</a>');
    expect(await expectJson(await fetch(url), 404)).toEqual({
      error: "This consent request is unknown or has expired: start signing in again.",
      code: "consent_not_found",
    });
  });

  test("a consent request open in another browser: a page offering to start again", async () => {
    const { challenge } = await reachConsent(stack, new Browser(), "elsewhere", await pkce());
    const first = new Browser();
    expect((await first.fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`)).status).toBe(200);
    const other = await fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`, {
      headers: { accept: BROWSER_ACCEPT },
    });
    const html = await expectHtml(other, 403);
    expect(html).toContain("open in another browser");
    expect(html).toContain(">Start again</a>");
  });

  test("the consent page without a challenge is a page too", async () => {
    const html = await expectHtml(
      await fetch(`${stack.url}/auth/consent`, { headers: { accept: BROWSER_ACCEPT } }),
      400,
    );
    expect(html).toContain("consent_challenge");
    expect((await expectJson(await fetch(`${stack.url}/auth/consent`), 400)).code).toBe("invalid_request");
  });

  test("an unregistered redirect URI lists the registered one in development only", async () => {
    const unregistered = (s: Stack) =>
      pkce().then((p) =>
        authorizeUrl(s, p).replace(
          encodeURIComponent(s.redirectUri),
          encodeURIComponent(s.redirectUri.replace("127.0.0.1", "localhost")),
        ),
      );
    const dev = await expectHtml(
      await fetch(await unregistered(devStack), { headers: { accept: BROWSER_ACCEPT }, redirect: "manual" }),
      400,
    );
    expect(dev).toContain(`<code>${devStack.redirectUri.replace("127.0.0.1", "localhost")}</code>`);
    expect(dev).toContain(`<li><code>${devStack.redirectUri}</code></li>`);
    const prod = await expectHtml(
      await fetch(await unregistered(stack), { headers: { accept: BROWSER_ACCEPT }, redirect: "manual" }),
      400,
    );
    expect(prod).toContain(`<code>${stack.redirectUri.replace("127.0.0.1", "localhost")}</code>`);
    expect(prod).not.toContain(stack.redirectUri);
    const json = await expectJson(await fetch(await unregistered(devStack), { redirect: "manual" }), 400);
    expect(json.error).toContain(`Registered for it: "${devStack.redirectUri}"`);
    expect(json.error).toContain(`client "${CLIENT_ID}"`);
  });
});
