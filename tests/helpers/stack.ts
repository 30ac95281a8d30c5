/**
 * A real stack for socket tests: the development identity provider (Hydra + Kratos HTTP APIs) and a
 * gateway on 127.0.0.1 with a temporary SQLite file, wired like `gateway dev`. Also the whole browser
 * sign-in walk (authorize → login page → consent page endpoints → code → POST /auth/token).
 */
import { type DevIdp, startDevIdp } from "../../src/devidp/index.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { type Config, loadConfig } from "../../src/server/config.ts";
import type { ConsentHooks } from "../../src/server/gateway.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { Browser } from "./browser.ts";
import { databaseEnv } from "./db.ts";
import { tempDir } from "./temp.ts";

export { tempDir };

export const CLIENT_ID = "test-web";
export const SECRET_CLIENT_ID = "test-server";
export const CLIENT_SECRET = "test-server-secret-0123456789";
/** The origin registered for CLIENT_ID's app besides the gateway's redirect URI. */
export const APP_ORIGIN = "http://127.0.0.1:5999";
/** A second app (with `otherApp: true`): its client and its browser origin. */
export const OTHER_CLIENT_ID = "other-web";
export const OTHER_ORIGIN = "http://127.0.0.1:5998";

export interface Stack {
  idp: DevIdp;
  running: RunningGateway;
  url: string;
  adminUrl: string;
  redirectUri: string;
  logs: string[];
  /** The gateway's data folder (the key file, and the database on SQLite). */
  dataDir: string;
  /** The environment the gateway was started with (its database included). */
  env: Record<string, string>;
  /** The apps it serves (write them to a file for a gateway started as a process). */
  apps: AppsFile;
  /** Stops the gateway and starts it again on the same database and port; `env` overrides settings. */
  restart(env?: Record<string, string>): Promise<void>;
  /** Starts a second gateway on the same database and key file (another process, as far as state goes). */
  another(): Promise<RunningGateway>;
  stop(): Promise<void>;
}

export interface StackOptions {
  adminApiKey?: string | null;
  accessTokenTtlSeconds?: number;
  env?: Record<string, string>;
  consentHooks?: ConsentHooks;
  /** Adds the app `other` (client OTHER_CLIENT_ID, origin OTHER_ORIGIN), registered at the provider too. */
  otherApp?: boolean;
  /** The refresh rotation grace (default 30 s). */
  rotationGraceMs?: number;
  /** Config fields that are not environment variables (timings for tests). */
  config?: Partial<Config>;
}

/**
 * A port nothing listens on now, for a server a test starts later (or leaves closed on purpose). Taken
 * below Linux's ephemeral range (32768 and up), where every `port: 0` listener and outgoing connection
 * gets its port: such a bind, by this process or a child, can then never take the port meanwhile.
 */
export function freePort(): number {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response() });
      server.stop(true);
      return port;
    } catch {
      // taken: try another
    }
  }
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const redirectUri = `${url}/callback`;
  const backchannelLogoutUri = `${url}/auth/backchannel-logout`;
  const signedOutUri = `${url}/signed-out`;
  const adminApiKey =
    options.adminApiKey === null ? undefined : (options.adminApiKey ?? "test-idp-admin-key");
  const idp = await startDevIdp({
    clients: [
      {
        clientId: CLIENT_ID,
        redirectUris: [redirectUri],
        clientName: "Test Web",
        backchannelLogoutUri,
        postLogoutRedirectUris: [signedOutUri],
      },
      // Its logout tokens name the subject only (no `sid`): every session of the subject ends.
      {
        clientId: SECRET_CLIENT_ID,
        redirectUris: [redirectUri],
        clientSecret: CLIENT_SECRET,
        backchannelLogoutUri,
        backchannelLogoutSessionRequired: false,
      },
      ...(options.otherApp
        ? [
            {
              clientId: OTHER_CLIENT_ID,
              redirectUris: [redirectUri],
              clientName: "Other",
              backchannelLogoutUri,
            },
          ]
        : []),
    ],
    consentUrl: `${url}/auth/consent`,
    adminApiKey,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    quiet: true,
  });
  const apps: AppsFile = {
    apps: [
      {
        id: "test",
        clients: [
          {
            clientId: CLIENT_ID,
            redirectUris: [redirectUri],
            origins: [APP_ORIGIN],
            postLogoutRedirectUris: [signedOutUri],
          },
          { clientId: SECRET_CLIENT_ID, redirectUris: [redirectUri], clientSecret: CLIENT_SECRET },
        ],
        types: { team: { visibility: "members" as const }, album: { visibility: "discoverable" as const } },
      },
      ...(options.otherApp
        ? [
            {
              id: "other",
              clients: [{ clientId: OTHER_CLIENT_ID, redirectUris: [redirectUri], origins: [OTHER_ORIGIN] }],
              types: { team: {} },
            },
          ]
        : []),
    ],
  };
  const dataDir = tempDir();
  const env = {
    PORT: String(port),
    ADMIN_PORT: "0",
    ...(await databaseEnv(dataDir, "gateway.db")),
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_URL: idp.adminUrl,
    ...(adminApiKey ? { IDP_ADMIN_API_KEY: adminApiKey } : {}),
    KRATOS_PUBLIC_URL: idp.kratosUrl,
    COOKIE_SECURE: "false",
    ADMIN_TOKEN: "test-admin-token",
    ...options.env,
  };
  const logs: string[] = [];
  const start = (overrides: Record<string, string> = {}) =>
    startGateway({
      config: {
        ...loadConfig({ ...env, ...overrides }),
        ...(options.rotationGraceMs !== undefined ? { rotationGraceMs: options.rotationGraceMs } : {}),
        ...options.config,
      },
      apps,
      log: (level, message, fields) => logs.push(JSON.stringify({ level, message, ...fields })),
      consentHooks: options.consentHooks,
    });
  const running = await start();
  const stack: Stack = {
    idp,
    running,
    url: running.publicUrl,
    adminUrl: running.adminUrl,
    redirectUri,
    logs,
    dataDir,
    env,
    apps,
    async restart(overrides) {
      await stack.running.stop();
      stack.running = await start(overrides);
      stack.adminUrl = stack.running.adminUrl;
    },
    another: () => start({ PORT: "0" }),
    async stop() {
      await stack.running.stop();
      await idp.stop().catch(() => {});
    },
  };
  return stack;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

export async function pkce(): Promise<{ verifier: string; challenge: string; state: string; nonce: string }> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  const random = () => b64url(crypto.getRandomValues(new Uint8Array(16)));
  return { verifier, challenge, state: random(), nonce: random() };
}

export const CSRF = { "content-type": "application/json", "x-service-csrf": "1" };

export function authorizeUrl(
  stack: Stack,
  p: { challenge: string; state: string; nonce?: string; scope?: string },
  clientId = CLIENT_ID,
): string {
  const query = new URLSearchParams({
    ...(p.nonce ? { nonce: p.nonce } : {}),
    response_type: "code",
    client_id: clientId,
    redirect_uri: stack.redirectUri,
    scope: p.scope ?? "openid offline_access",
    state: p.state,
    code_challenge: p.challenge,
    code_challenge_method: "S256",
  });
  return `${stack.url}/auth/authorize?${query}`;
}

/** Walks authorize → login (typing `username`) and stops at the gateway's consent page; returns the challenge. */
export async function reachConsent(
  stack: Stack,
  browser: Browser,
  username: string,
  p: { challenge: string; state: string; nonce?: string; scope?: string },
  clientId = CLIENT_ID,
) {
  const toLogin = await browser.follow(authorizeUrl(stack, p, clientId), {
    until: (u) => u.pathname === "/login" || u.pathname === "/auth/consent",
  });
  if (toLogin.url.pathname === "/auth/consent")
    return { challenge: toLogin.url.searchParams.get("consent_challenge")!, chain: toLogin.chain };
  const loginChallenge = toLogin.url.searchParams.get("login_challenge")!;
  const toConsent = await browser.follow(new URL("/login", stack.idp.issuer), {
    init: {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ login_challenge: loginChallenge, username }).toString(),
    },
    until: (u) => u.pathname === "/auth/consent" || u.toString().startsWith(stack.redirectUri),
  });
  return {
    challenge: toConsent.url.searchParams.get("consent_challenge")!,
    chain: [...toLogin.chain, ...toConsent.chain],
  };
}

/**
 * Loads the consent request the way the consent page's browser does (the JSON a server-rendered
 * consent app uses), so `browser` keeps the consent nonce cookie that accept and reject require.
 */
export function openConsent(stack: Stack, browser: Browser, challenge: string): Promise<Response> {
  return browser.fetch(`${stack.url}/auth/consent-request?challenge=${encodeURIComponent(challenge)}`);
}

/**
 * A sign-in stopped at consent, for tests that act between the steps: the browser has loaded the
 * consent request (binding it); `accept()` decides, `exchange(redirectTo, options)` follows the redirect
 * (once) and posts the code to /auth/token (with the PKCE verifier, and the nonce unless told otherwise).
 */
export async function consentFlow(stack: Stack, user: string, clientId = CLIENT_ID, browser = new Browser()) {
  const p = await pkce();
  const { challenge } = await reachConsent(stack, browser, user, p, clientId);
  await openConsent(stack, browser, challenge);
  let code: Promise<URL> | undefined;
  return {
    browser,
    nonce: p.nonce,
    accept: () =>
      browser.fetch(`${stack.url}/auth/consent/accept`, {
        method: "POST",
        headers: CSRF,
        body: JSON.stringify({ challenge, subject: user, grant_scope: ["openid", "offline_access"] }),
      }),
    async exchange(
      redirectTo: string,
      options: { nonce?: string | null; headers?: Record<string, string> } = {},
    ) {
      // Followed once: calling again posts the same code again.
      code ??= codeFrom(stack, browser, redirectTo);
      const callback = await code;
      const nonce = options.nonce === undefined ? p.nonce : options.nonce;
      return browser.fetch(`${stack.url}/auth/token`, {
        method: "POST",
        headers: { ...CSRF, ...options.headers },
        body: JSON.stringify({
          code: callback.searchParams.get("code"),
          code_verifier: p.verifier,
          redirect_uri: stack.redirectUri,
          client_id: clientId,
          ...(nonce === null ? {} : { nonce }),
        }),
      });
    },
  };
}

/** The provider's introspection of a token (active or not), as the gateway's admin key sees it. */
export async function introspect(stack: Stack, token: string): Promise<{ active: boolean }> {
  const res = await fetch(`${stack.idp.adminUrl}/admin/oauth2/introspect`, {
    method: "POST",
    headers: {
      authorization: "Bearer test-idp-admin-key",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token }).toString(),
  });
  return (await res.json()) as { active: boolean };
}

/** Follows a redirect_to from the provider until the app's redirect URI and returns the code. */
export async function codeFrom(stack: Stack, browser: Browser, redirectTo: string): Promise<URL> {
  const done = await browser.follow(redirectTo, { until: (u) => u.toString().startsWith(stack.redirectUri) });
  return done.url;
}

/**
 * The whole sign-in: returns the browser (holding the session cookie) and the token response. The
 * browser loads the consent request first (as the consent page does), which binds the challenge to
 * it; a remembered consent (`skip`) is auto-accepted there and needs no accept call.
 */
export async function signIn(stack: Stack, username: string, browser = new Browser(), clientId = CLIENT_ID) {
  const p = await pkce();
  const { challenge } = await reachConsent(stack, browser, username, p, clientId);
  if (!challenge) throw new Error("no consent challenge reached");
  const opened = await openConsent(stack, browser, challenge);
  if (opened.status !== 200)
    throw new Error(`consent request answered ${opened.status}: ${await opened.text()}`);
  let { redirect_to } = (await opened.json()) as { redirect_to?: string };
  if (!redirect_to) {
    const accept = await browser.fetch(`${stack.url}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({
        challenge,
        subject: username,
        grant_scope: ["openid", "offline_access"],
        remember: true,
      }),
    });
    if (accept.status !== 200)
      throw new Error(`consent accept answered ${accept.status}: ${await accept.text()}`);
    ({ redirect_to } = (await accept.json()) as { redirect_to: string });
  }
  const callback = await codeFrom(stack, browser, redirect_to!);
  const token = await browser.fetch(`${stack.url}/auth/token`, {
    method: "POST",
    headers: CSRF,
    body: JSON.stringify({
      code: callback.searchParams.get("code"),
      code_verifier: p.verifier,
      redirect_uri: stack.redirectUri,
      client_id: clientId,
      nonce: p.nonce,
    }),
  });
  return { browser, token, body: (await token.json()) as Record<string, unknown> };
}

/** Signs `username` in and returns the session's provider tokens (for bearer calls) and its browser. */
export async function tokensOf(stack: Stack, username: string, clientId = CLIENT_ID) {
  const { browser } = await signIn(stack, username, new Browser(), clientId);
  const found = await stack.running.gateway.sessions.resolve(browser.cookieHeader(stack.url));
  if (!found) throw new Error(`no session for ${username}`);
  return { browser, at: found.cookie.at, rt: found.cookie.rt! };
}
