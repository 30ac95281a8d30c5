/**
 * The gateway, unchanged, in front of an OpenID provider nobody here wrote: Django OAuth Toolkit 1.7
 * (Debian's python3-django-oauth-toolkit, tests/fixtures/dot) on a real socket. Sign-in with PKCE
 * through the provider's own login form, the session, refresh (and five at once: one provider call),
 * logout revoking the refresh token at the provider, bearer tokens through introspection (client
 * credentials; DOT answers `username`, no `sub`) and through userinfo, a confidential client, an
 * HS256 client and a signing key rotated between two sign-ins.
 *
 * What DOT needs configured (it is in docs/providers.md, "Using another OpenID provider"): its discovery
 * lists neither revocation nor introspection, so IDP_REVOCATION_URL (and IDP_INTROSPECTION_URL with
 * a client for it); it has no consent API (IDP_CONSENT_API=none; DOT skips its own consent page for
 * these clients).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { Browser } from "../helpers/browser.ts";
import { databaseEnv } from "../helpers/db.ts";
import { type DotProvider, signInAtProvider, startDotProvider } from "../helpers/dot-provider.ts";
import { CSRF, freePort, pkce, tempDir } from "../helpers/stack.ts";

// The app's callback: never requested, the sign-in stops when the provider redirects there.
const REDIRECT = `http://127.0.0.1:${freePort()}/callback`;

let dot: DotProvider;
let apps: AppsFile;
/** Introspection by client credentials at DOT's /o/introspect/. */
let gw: RunningGateway;
let logs: string[] = [];
/** No introspection configured: bearer tokens go through userinfo. */
let gwUserinfo: RunningGateway;

async function gateway(env: Record<string, string>): Promise<RunningGateway> {
  return startGateway({
    config: loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      OIDC_ISSUER: dot.issuer,
      IDP_REVOCATION_URL: dot.endpoints.revocation,
      IDP_CONSENT_API: "none",
      COOKIE_SECURE: "false",
      ...env,
    }),
    apps,
    log: (level, message, fields) => logs.push(JSON.stringify({ level, message, ...fields })),
  });
}

beforeAll(async () => {
  dot = await startDotProvider({ redirectUris: [REDIRECT] });
  apps = {
    apps: [
      {
        id: "dot-app",
        clients: [
          { clientId: dot.clients.public.clientId, redirectUris: [REDIRECT] },
          { ...dot.clients.confidential, redirectUris: [REDIRECT] },
          { ...dot.clients.hs256, redirectUris: [REDIRECT] },
        ],
        types: { team: {} },
      },
    ],
  };
  gw = await gateway({
    IDP_INTROSPECTION_URL: dot.endpoints.introspection,
    IDP_INTROSPECTION_CLIENT_ID: dot.clients.introspection.clientId,
    IDP_INTROSPECTION_CLIENT_SECRET: dot.clients.introspection.clientSecret,
  });
  gwUserinfo = await gateway({});
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await gwUserinfo?.stop();
  await dot?.stop();
}, 30_000);

/** Sign-in through the gateway: /auth/authorize → DOT's login form → code → POST /auth/token. */
async function signIn(clientId: string, username = "alice", password = `${username}-password`) {
  const browser = new Browser();
  const p = await pkce();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: "openid profile email",
    state: p.state,
    nonce: p.nonce,
    code_challenge: p.challenge,
    code_challenge_method: "S256",
  });
  const reached = await signInAtProvider(
    browser,
    `${gw.publicUrl}/auth/authorize?${query}`,
    username,
    password,
  );
  expect(reached.error).toBeNull();
  expect(reached.state).toBe(p.state);
  // The gateway sent the browser to the provider's authorization endpoint, from discovery.
  expect(reached.chain[1]).toStartWith(dot.endpoints.authorization);
  const token = await browser.fetch(`${gw.publicUrl}/auth/token`, {
    method: "POST",
    headers: CSRF,
    body: JSON.stringify({
      code: reached.code,
      code_verifier: p.verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      nonce: p.nonce,
    }),
  });
  return { browser, token, body: (await token.json()) as Record<string, unknown> };
}

const session = async (browser: Browser) =>
  (await browser.fetch(`${gw.publicUrl}/auth/session`)).json() as Promise<Record<string, unknown>>;

const refresh = (browser: Browser) =>
  browser.fetch(`${gw.publicUrl}/auth/refresh`, { method: "POST", headers: CSRF, body: "{}" });

/** An access token straight from DOT (a mobile or server client of the app doing its own PKCE). */
async function providerAccessToken(username = "alice"): Promise<string> {
  const p = await pkce();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: dot.clients.public.clientId,
    redirect_uri: REDIRECT,
    scope: "openid",
    state: p.state,
    code_challenge: p.challenge,
    code_challenge_method: "S256",
  });
  const reached = await signInAtProvider(
    new Browser(),
    `${dot.endpoints.authorization}?${query}`,
    username,
    `${username}-password`,
  );
  const res = await fetch(dot.endpoints.token, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: reached.code!,
      redirect_uri: REDIRECT,
      client_id: dot.clients.public.clientId,
      code_verifier: p.verifier,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const me = (gateway: RunningGateway, token: string) =>
  fetch(`${gateway.publicUrl}/v1/me`, { headers: { authorization: `Bearer ${token}` } });

describe("a browser session against Django OAuth Toolkit", () => {
  test("sign-in with PKCE through the provider's login form; /auth/session knows the user", async () => {
    const { browser, token, body } = await signIn(dot.clients.public.clientId);
    expect(token.status).toBe(200);
    expect(body.authenticated).toBe(true);
    // DOT's `sub` is the user's numeric id as a string.
    expect(await session(browser)).toEqual({ authenticated: true, user_id: "1" });
    expect(browser.cookieHeader(gw.publicUrl)).not.toBe("");
  });

  test("refresh rotates the provider's refresh token; five refreshes at once make one provider call", async () => {
    const { browser } = await signIn(dot.clients.public.clientId, "bob");
    await dot.calls({ reset: true });

    const first = await refresh(browser);
    expect(first.status).toBe(200);
    expect((await dot.calls()).token).toEqual({ refresh_token: 1 });

    const five = await Promise.all(Array.from({ length: 5 }, () => refresh(browser)));
    for (const res of five) expect(res.status).toBe(200);
    expect((await dot.calls()).token).toEqual({ refresh_token: 2 });
    expect(await session(browser)).toEqual({ authenticated: true, user_id: "2" });

    // At the provider: bob's first two refresh tokens were used (revoked by rotation), one is live.
    const stored = (await dot.grants("bob")).filter((g) => g.client_id === dot.clients.public.clientId);
    expect(stored.map((g) => g.revoked)).toEqual([true, true, false]);
  });

  test("logout revokes the refresh token at the provider (checked there) and ends the session", async () => {
    const { browser } = await signIn(dot.clients.confidential.clientId, "bob");
    const live = () =>
      dot
        .grants("bob")
        .then((all) => all.filter((g) => g.client_id === dot.clients.confidential.clientId && !g.revoked));
    expect(await live()).toHaveLength(1);
    await dot.calls({ reset: true });
    logs = [];

    const out = await browser.fetch(`${gw.publicUrl}/auth/logout`, { method: "POST", headers: CSRF });
    expect(out.status).toBe(200);
    expect((await dot.calls()).paths["POST /o/revoke_token/"]).toBe(1);
    expect(await live()).toEqual([]);
    // DOT deletes the access token issued with a revoked refresh token.
    const mine = (await dot.grants("bob")).filter((g) => g.client_id === dot.clients.confidential.clientId);
    expect(mine.every((g) => !g.access_token)).toBe(true);
    expect(await session(browser)).toEqual({ authenticated: false, reason: "no_session" });
    expect(logs.filter((line) => line.includes("revocation"))).toEqual([]);
  });

  test("a confidential client signs in and refreshes with its secret (client_secret_basic)", async () => {
    const { browser, token } = await signIn(dot.clients.confidential.clientId);
    expect(token.status).toBe(200);
    await dot.calls({ reset: true });
    expect((await refresh(browser)).status).toBe(200);
    expect((await dot.calls()).token).toEqual({ refresh_token: 1 });
    expect(await session(browser)).toEqual({ authenticated: true, user_id: "1" });
  });

  test("an HS256 client: its ID token is verified with the client secret", async () => {
    const { browser, token, body } = await signIn(dot.clients.hs256.clientId, "bob");
    expect(token.status).toBe(200);
    expect(body.authenticated).toBe(true);
    expect(await session(browser)).toEqual({ authenticated: true, user_id: "2" });
  });

  test("a rotated signing key is accepted at the next sign-in, without waiting for the key set's cache", async () => {
    // The gateway refetches the key set at once on an unknown kid, at most once a second; the other
    // tests made sure the last fetch is older than that.
    const rotated = await dot.rotateKey({ dropOld: true });
    const { browser, token, body } = await signIn(dot.clients.public.clientId);
    expect({ status: token.status, body }).toEqual({
      status: 200,
      body: { authenticated: true, user_id: "1", expires_in: expect.any(Number) },
    });
    expect(await session(browser)).toEqual({ authenticated: true, user_id: "1" });
    expect((await dot.calls()).paths["GET /o/.well-known/jwks.json"]).toBeGreaterThanOrEqual(1);
    expect(rotated.inactive).toEqual([]);
  });
});

describe("bearer tokens issued by Django OAuth Toolkit", () => {
  test("through introspection (client credentials): DOT sends no `sub`, so userinfo supplies it", async () => {
    const token = await providerAccessToken("alice");
    await dot.calls({ reset: true });
    const answers = await Promise.all(Array.from({ length: 5 }, () => me(gw, token)));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        userId: "1",
        clientId: dot.clients.public.clientId,
        appId: "dot-app",
        via: "bearer",
      });
    }
    const calls = (await dot.calls()).paths;
    expect(calls["POST /o/introspect/"]).toBe(1);
    expect(calls["GET /o/userinfo/"]).toBe(1);

    const made = await me(gw, "made-up-token-0123456789");
    expect(made.status).toBe(401);
    expect(await made.json()).toMatchObject({ code: "unauthenticated" });
  });

  test("through userinfo when no introspection is configured", async () => {
    const token = await providerAccessToken("bob");
    const res = await me(gwUserinfo, token);
    expect(res.status).toBe(200);
    // Userinfo does not name the client: the bearer belongs to the only app.
    expect(await res.json()).toEqual({ userId: "2", clientId: null, appId: "dot-app", via: "bearer" });
    expect((await me(gwUserinfo, "made-up-token-0123456789")).status).toBe(401);
  });

  test("a token revoked at the provider is refused: introspection says inactive", async () => {
    const token = await providerAccessToken("bob");
    const revoked = await fetch(dot.endpoints.revocation, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, client_id: dot.clients.public.clientId }),
    });
    expect(revoked.status).toBe(200);
    const res = await me(gw, token);
    expect(res.status).toBe(401);
  });
});
