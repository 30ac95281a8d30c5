// End-to-end over real sockets: the dev IdP must behave like Ory Hydra v2 for the
// gateway (public OAuth endpoints + admin login/consent/introspection API).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeJwt } from "jose";
import { type DevIdp, startDevIdp } from "../../src/devidp/index.ts";
import { Browser } from "../helpers/browser.ts";

const ADMIN_KEY = "test-admin-key";
let idp: DevIdp;
let app: ReturnType<typeof Bun.serve>;
let appUrl: string;
const consentChallenges: string[] = [];

beforeAll(async () => {
  // Throwaway "gateway": records consent challenges, and hosts the redirect_uri.
  app = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const challenge = url.searchParams.get("consent_challenge");
      if (url.pathname === "/auth/consent" && challenge) consentChallenges.push(challenge);
      return new Response("ok");
    },
  });
  appUrl = `http://127.0.0.1:${app.port}`;
  idp = await startDevIdp({
    clients: [
      { clientId: "spa", redirectUris: [`${appUrl}/callback`], clientName: "SPA" },
      {
        clientId: "web",
        clientSecret: "web-secret",
        redirectUris: [`${appUrl}/callback`],
        clientName: "Web",
      },
    ],
    consentUrl: `${appUrl}/auth/consent`,
    adminApiKey: ADMIN_KEY,
    quiet: true,
  });
}, 60_000);

afterAll(async () => {
  await idp.stop();
  app.stop(true);
}, 30_000);

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

function pkce() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(new Bun.CryptoHasher("sha256").update(verifier).digest()));
  return { verifier, challenge };
}

function authorizeUrl(clientId: string, challenge: string, state: string, scope = "openid offline_access") {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: `${appUrl}/callback`,
    scope,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  return `${idp.issuer}/oauth2/auth?${params}`;
}

/** authorize → login page → POST login → consent URL; returns the consent challenge. */
async function loginToConsent(browser: Browser, url: string, username: string) {
  const toLogin = await browser.follow(url, { until: (u) => u.pathname === "/login" });
  expect(toLogin.url.pathname).toBe("/login");
  const loginChallenge = toLogin.url.searchParams.get("login_challenge");
  expect(loginChallenge).toBeTruthy();
  const page = await browser.fetch(toLogin.url);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("Development identity provider — not for production");
  expect(html).toContain('name="username"');
  const before = consentChallenges.length;
  const done = await browser.follow(`${idp.issuer}/login`, {
    init: {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ login_challenge: loginChallenge ?? "", username }).toString(),
    },
  });
  expect(done.response.status).toBe(200);
  expect(`${done.url.origin}${done.url.pathname}`).toBe(`${appUrl}/auth/consent`);
  const challenge = done.url.searchParams.get("consent_challenge") ?? "";
  expect(consentChallenges.length).toBe(before + 1);
  expect(consentChallenges.at(-1)).toBe(challenge);
  return { challenge, loginChallenge: loginChallenge ?? "" };
}

async function getConsent(challenge: string, param = "consent_challenge") {
  return fetch(`${idp.adminUrl}/admin/oauth2/auth/requests/consent?${param}=${challenge}`, {
    headers: admin,
  });
}

async function acceptConsent(challenge: string, body: Record<string, unknown>) {
  return fetch(`${idp.adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${challenge}`, {
    method: "PUT",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function toCallback(browser: Browser, redirectTo: string) {
  const { url } = await browser.follow(redirectTo, { until: (u) => u.pathname === "/callback" });
  expect(`${url.origin}${url.pathname}`).toBe(`${appUrl}/callback`);
  return url;
}

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${idp.issuer}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function introspect(value: string, headers: Record<string, string> = admin) {
  const response = await fetch(`${idp.adminUrl}/admin/oauth2/introspect`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ token: value }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Full browser flow up to an authorization code. */
async function codeFor(clientId: string, username: string, remember = false, scope?: string) {
  const browser = new Browser();
  const { verifier, challenge } = pkce();
  const state = "state-123456";
  const { challenge: consent } = await loginToConsent(
    browser,
    authorizeUrl(clientId, challenge, state, scope),
    username,
  );
  const requested = ((await (await getConsent(consent)).json()) as { requested_scope: string[] })
    .requested_scope;
  const accepted = await acceptConsent(consent, { grant_scope: requested, remember, remember_for: 0 });
  expect(accepted.status).toBe(200);
  const { redirect_to } = (await accepted.json()) as { redirect_to: string };
  const callback = await toCallback(browser, redirect_to);
  expect(callback.searchParams.get("state")).toBe(state);
  return { code: callback.searchParams.get("code") ?? "", verifier, browser, consent };
}

describe("dev IdP as Hydra", () => {
  test("discovery and JWKS advertise Hydra's paths", async () => {
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(idp.issuer);
    expect(doc.authorization_endpoint).toBe(`${idp.issuer}/oauth2/auth`);
    expect(doc.token_endpoint).toBe(`${idp.issuer}/oauth2/token`);
    expect(doc.revocation_endpoint).toBe(`${idp.issuer}/oauth2/revoke`);
    expect(doc.userinfo_endpoint).toBe(`${idp.issuer}/userinfo`);
    expect(doc.jwks_uri).toBe(`${idp.issuer}/.well-known/jwks.json`);
    expect(doc.end_session_endpoint).toBe(`${idp.issuer}/oauth2/sessions/logout`);
    expect(doc.code_challenge_methods_supported).toEqual(["S256"]);
    const jwks = (await (await fetch(doc.jwks_uri as string)).json()) as {
      keys: { kty: string; d?: string }[];
    };
    expect(jwks.keys.length).toBe(1);
    expect(jwks.keys[0]?.kty).toBe("RSA");
    expect(jwks.keys[0]?.d).toBeUndefined();
  });

  test("full flow, public client: consent shape, token, userinfo, introspect, rotation, reuse, revoke", async () => {
    const browser = new Browser();
    const { verifier, challenge } = pkce();
    idp.resetCalls();
    const { challenge: consent, loginChallenge } = await loginToConsent(
      browser,
      authorizeUrl("spa", challenge, "state-abcdefgh", "openid offline_access profile"),
      "alice",
    );

    // Admin GET consent: Hydra's shape (also accepts `challenge=`), and the admin key is enforced.
    expect(
      (await fetch(`${idp.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${consent}`)).status,
    ).toBe(401);
    const got = await getConsent(consent, "challenge");
    expect(got.status).toBe(200);
    const request = (await got.json()) as Record<string, any>;
    expect(request).toMatchObject({
      challenge: consent,
      consent_request_id: consent,
      subject: "alice",
      requested_scope: ["openid", "offline_access", "profile"],
      requested_access_token_audience: [],
      skip: false,
      client: { client_id: "spa", client_name: "SPA", skip_consent: false },
      login_challenge: loginChallenge,
      oidc_context: {},
      context: {},
    });
    expect(request.request_url).toStartWith(`${idp.issuer}/oauth2/auth?`);
    expect(new URL(request.request_url).searchParams.get("state")).toBe("state-abcdefgh");
    expect(typeof request.login_session_id).toBe("string");
    expect(idp.calls["consent:get"]).toBe(2);

    const accepted = await acceptConsent(consent, {
      grant_scope: ["openid", "offline_access", "profile"],
      grant_access_token_audience: [],
      remember: false,
      session: { id_token: { name: "Alice A." }, access_token: { role: "admin" } },
    });
    expect(accepted.status).toBe(200);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect(redirect_to).toBe(`${idp.issuer}/interaction/${consent}/finish`);
    expect(idp.calls["consent:accept"]).toBe(1);

    // A used challenge answers 410 with the original request_url, for GET and a second accept.
    const used = await getConsent(consent);
    expect(used.status).toBe(410);
    expect(await used.json()).toEqual({ redirect_to: request.request_url });
    const again = await acceptConsent(consent, { grant_scope: ["openid"] });
    expect(again.status).toBe(410);
    expect(await again.json()).toEqual({ redirect_to: request.request_url });

    const callback = await toCallback(browser, redirect_to);
    expect(callback.searchParams.get("state")).toBe("state-abcdefgh");
    expect(callback.searchParams.get("scope")).toBe("openid offline_access profile");
    const code = callback.searchParams.get("code") ?? "";
    expect(code.length).toBeGreaterThan(20);

    // Wrong verifier fails; the right one succeeds; the code is single-use.
    const exchange = (verifierValue: string) =>
      token({
        grant_type: "authorization_code",
        code,
        redirect_uri: `${appUrl}/callback`,
        code_verifier: verifierValue,
        client_id: "spa",
      });
    const bad = await exchange(pkce().verifier);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_grant");
    const codeBefore = idp.calls["token:authorization_code"] ?? 0;
    const exchanged = await exchange(verifier);
    expect(exchanged.status).toBe(200);
    expect(idp.calls["token:authorization_code"]).toBe(codeBefore + 1);
    const tokens = exchanged.body;
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.expires_in).toBeGreaterThan(3500);
    expect(tokens.scope).toBe("openid offline_access profile");
    expect(typeof tokens.refresh_token).toBe("string");
    expect(typeof tokens.id_token).toBe("string");
    expect(tokens.access_token.split(".").length).toBe(1); // opaque, not a JWT
    expect(decodeJwt(tokens.id_token)).toMatchObject({
      iss: idp.issuer,
      sub: "alice",
      aud: "spa",
      name: "Alice A.",
    });

    // userinfo
    const before = idp.calls.userinfo ?? 0;
    const info = await fetch(`${idp.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({ sub: "alice", name: "Alice A." }); // from session.id_token
    const badInfo = await fetch(`${idp.issuer}/userinfo`, { headers: { authorization: "Bearer nope" } });
    expect(badInfo.status).toBe(401);
    expect(badInfo.headers.get("www-authenticate")).toContain("Bearer");
    expect(idp.calls.userinfo).toBe(before + 2);

    // introspection (admin key required)
    const introspectBefore = idp.calls.introspect ?? 0;
    expect((await introspect(tokens.access_token, {})).status).toBe(401);
    const active = await introspect(tokens.access_token);
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({
      active: true,
      sub: "alice",
      client_id: "spa",
      scope: "openid offline_access profile",
      token_use: "access_token",
      token_type: "Bearer",
      iss: idp.issuer,
      aud: [],
      ext: { role: "admin" }, // from session.access_token
    });
    expect(active.body.exp).toBeGreaterThan(active.body.iat);
    const rtInfo = await introspect(tokens.refresh_token);
    expect(rtInfo.body).toMatchObject({ active: true, token_use: "refresh_token", sub: "alice" });
    expect((await introspect("not-a-token")).body).toEqual({ active: false });
    expect(idp.calls.introspect).toBe(introspectBefore + 4);

    // refresh: rotation gives a new refresh token
    const refreshBefore = idp.calls["token:refresh_token"] ?? 0;
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "spa",
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.body.access_token).not.toBe(tokens.access_token);
    expect(refreshed.body.token_type).toBe("bearer");
    expect((await introspect(refreshed.body.access_token)).body.active).toBe(true);
    expect((await introspect(tokens.refresh_token)).body).toEqual({ active: false });

    // reuse of the old refresh token: invalid_grant and the whole grant is revoked
    const reused = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "spa",
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    expect((await introspect(refreshed.body.access_token)).body).toEqual({ active: false });
    expect((await introspect(refreshed.body.refresh_token)).body).toEqual({ active: false });
    const dead = await token({
      grant_type: "refresh_token",
      refresh_token: refreshed.body.refresh_token,
      client_id: "spa",
    });
    expect(dead.status).toBe(400);
    expect(dead.body.error).toBe("invalid_grant");
    expect(idp.calls["token:refresh_token"]).toBe(refreshBefore + 3);
  });

  test("confidential client: client_secret_basic, ext in introspection, revoke kills the grant", async () => {
    const { code, verifier, consent } = await codeFor("web", "bob");
    expect(consent).toBeTruthy();
    const form = {
      grant_type: "authorization_code",
      code,
      redirect_uri: `${appUrl}/callback`,
      code_verifier: verifier,
    };
    // No credentials at all: 400 invalid_request (fosite: "Client credentials missing or malformed").
    const before = idp.calls["token:authorization_code"] ?? 0;
    const unauthenticated = await token(form);
    expect(unauthenticated.status).toBe(400);
    expect(unauthenticated.body.error).toBe("invalid_request");
    const wrong = await token(form, { authorization: basic("web", "wrong") });
    expect(wrong.status).toBe(401);
    const ok = await token(form, { authorization: basic("web", "web-secret") });
    expect(ok.status).toBe(200);
    expect(idp.calls["token:authorization_code"]).toBe(before + 3); // failures count too
    const { access_token, refresh_token } = ok.body;
    expect((await introspect(access_token)).body).toMatchObject({
      active: true,
      sub: "bob",
      client_id: "web",
    });
    expect(ok.body.scope).toBe("openid offline_access");

    // A second confidential client flow: replaying a code fails and revokes what it issued (as fosite).
    const second = await codeFor("web", "bob");
    const form2 = { ...form, code: second.code, code_verifier: second.verifier };
    const issued = await token(form2, { authorization: basic("web", "web-secret") });
    expect(issued.status).toBe(200);
    const replay = await token(form2, { authorization: basic("web", "web-secret") });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await introspect(issued.body.access_token)).body).toEqual({ active: false });
    expect((await introspect(access_token)).body.active).toBe(true); // other grants are untouched

    const revokeBefore = idp.calls.revoke ?? 0;
    const revoked = await fetch(`${idp.issuer}/oauth2/revoke`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic("web", "web-secret"),
      },
      body: new URLSearchParams({ token: refresh_token }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toBe("");
    expect(idp.calls.revoke).toBe(revokeBefore + 1);
    expect((await introspect(refresh_token)).body).toEqual({ active: false });
    expect((await introspect(access_token)).body).toEqual({ active: false });
  });

  test("revoking an access token (public client) revokes its grant too, like fosite", async () => {
    const { code, verifier } = await codeFor("spa", "carol");
    const ok = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: `${appUrl}/callback`,
      code_verifier: verifier,
      client_id: "spa",
    });
    expect(ok.status).toBe(200);
    const revoked = await fetch(`${idp.issuer}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: ok.body.access_token, client_id: "spa" }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await introspect(ok.body.access_token)).body).toEqual({ active: false });
    // fosite's RevokeToken revokes the refresh AND access tokens of the request, whichever was presented
    expect((await introspect(ok.body.refresh_token)).body).toEqual({ active: false });
  });

  test("remember:true makes the next consent request skip:true", async () => {
    await codeFor("spa", "dave", true);
    const browser = new Browser();
    const { challenge } = pkce();
    const { challenge: consent } = await loginToConsent(
      browser,
      authorizeUrl("spa", challenge, "state-99999999"),
      "dave",
    );
    const request = (await (await getConsent(consent)).json()) as Record<string, unknown>;
    expect(request.subject).toBe("dave");
    expect(request.skip).toBe(true);
    // another user, or more scopes, does not skip
    const other = await loginToConsent(
      new Browser(),
      authorizeUrl("spa", challenge, "state-99999999"),
      "erin",
    );
    expect(((await (await getConsent(other.challenge)).json()) as Record<string, unknown>).skip).toBe(false);
    const more = await loginToConsent(
      new Browser(),
      authorizeUrl("spa", challenge, "state-99999999", "openid offline_access email"),
      "dave",
    );
    expect(((await (await getConsent(more.challenge)).json()) as Record<string, unknown>).skip).toBe(false);
    // prompt=consent from the client forces skip:false
    const forcedUrl = new URL(authorizeUrl("spa", challenge, "state-99999999"));
    forcedUrl.searchParams.set("prompt", "consent");
    const forced = await loginToConsent(new Browser(), forcedUrl.toString(), "dave");
    const forcedRequest = (await (await getConsent(forced.challenge)).json()) as Record<string, any>;
    expect(forcedRequest.skip).toBe(false);
    expect(new URL(forcedRequest.request_url).searchParams.get("prompt")).toBe("consent");
  });

  test("prompt=login with offline_access still yields a refresh token; request_url keeps the client's prompt", async () => {
    const browser = new Browser();
    const { verifier, challenge } = pkce();
    const url = new URL(authorizeUrl("spa", challenge, "state-prompt-login"));
    url.searchParams.set("prompt", "login");
    const { challenge: consent } = await loginToConsent(browser, url.toString(), "lena");
    const request = (await (await getConsent(consent)).json()) as Record<string, any>;
    expect(request.requested_scope).toEqual(["openid", "offline_access"]);
    const requestUrl = new URL(request.request_url);
    expect(requestUrl.searchParams.get("prompt")).toBe("login");
    expect([...requestUrl.searchParams.keys()].some((k) => k.startsWith("devidp"))).toBe(false);
    const accepted = await acceptConsent(consent, { grant_scope: request.requested_scope });
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const callback = await toCallback(browser, redirect_to);
    const exchanged = await token({
      grant_type: "authorization_code",
      code: callback.searchParams.get("code") ?? "",
      redirect_uri: `${appUrl}/callback`,
      code_verifier: verifier,
      client_id: "spa",
    });
    expect(exchanged.status).toBe(200);
    expect(typeof exchanged.body.refresh_token).toBe("string");
  });

  test("consent reject → error=access_denied at the redirect_uri", async () => {
    const browser = new Browser();
    const { challenge } = pkce();
    const { challenge: consent } = await loginToConsent(
      browser,
      authorizeUrl("spa", challenge, "state-rejected"),
      "frank",
    );
    const rejected = await fetch(
      `${idp.adminUrl}/admin/oauth2/auth/requests/consent/reject?consent_challenge=${consent}`,
      {
        method: "PUT",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify({ error: "access_denied", error_description: "The user said no" }),
      },
    );
    expect(rejected.status).toBe(200);
    const { redirect_to } = (await rejected.json()) as { redirect_to: string };
    const callback = await toCallback(browser, redirect_to);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("error_description")).toBe("The user said no");
    expect(callback.searchParams.get("state")).toBe("state-rejected");
    expect(callback.searchParams.get("code")).toBeNull();
    expect((await getConsent(consent)).status).toBe(410);
  });

  test("unknown challenge → 404 errorOAuth2", async () => {
    const response = await getConsent("does-not-exist");
    expect(response.status).toBe(404);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.error).toBe("Not Found");
    expect(typeof body.error_description).toBe("string");
    expect((await getConsent("")).status).toBe(404);
  });

  test("state shorter than 8 characters → invalid_state redirected back; PKCE required", async () => {
    const { challenge } = pkce();
    const short = await fetch(authorizeUrl("spa", challenge, "short"), { redirect: "manual" });
    expect(short.status).toBe(302);
    const location = new URL(short.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(`${appUrl}/callback`);
    expect(location.searchParams.get("error")).toBe("invalid_state");
    expect(location.searchParams.get("state")).toBe("short");

    const params = new URL(authorizeUrl("spa", challenge, "state-abcdefgh"));
    params.searchParams.delete("code_challenge");
    params.searchParams.delete("code_challenge_method");
    const noPkce = await fetch(params, { redirect: "manual" });
    expect(noPkce.status).toBe(303);
    const error = new URL(noPkce.headers.get("location") ?? "");
    expect(error.searchParams.get("error")).toBe("invalid_request");
  });

  test("login page validates the username and login challenges behave like Hydra's", async () => {
    const browser = new Browser();
    const { challenge } = pkce();
    const toLogin = await browser.follow(authorizeUrl("spa", challenge, "state-login-1"), {
      until: (u) => u.pathname === "/login",
    });
    const loginChallenge = toLogin.url.searchParams.get("login_challenge") ?? "";
    const post = (username: string) =>
      browser.fetch(`${idp.issuer}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ login_challenge: loginChallenge, username }).toString(),
      });
    const bad = await post("no spaces <allowed>");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Username must be");

    const loginRequest = await fetch(
      `${idp.adminUrl}/admin/oauth2/auth/requests/login?login_challenge=${loginChallenge}`,
      { headers: admin },
    );
    expect(loginRequest.status).toBe(200);
    expect(await loginRequest.json()).toMatchObject({
      challenge: loginChallenge,
      skip: false,
      client: { client_id: "spa" },
    });

    const accepted = await fetch(
      `${idp.adminUrl}/admin/oauth2/auth/requests/login/accept?login_challenge=${loginChallenge}`,
      {
        method: "PUT",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify({ subject: "grace", remember: false }),
      },
    );
    expect(accepted.status).toBe(200);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect(redirect_to).toBe(`${idp.issuer}/interaction/${loginChallenge}/finish`);
    const used = await post("grace");
    expect(used.status).toBe(410);
    const toConsent = await browser.follow(redirect_to, { until: (u) => u.pathname === "/auth/consent" });
    const consent = toConsent.url.searchParams.get("consent_challenge") ?? "";
    expect(((await (await getConsent(consent)).json()) as Record<string, unknown>).subject).toBe("grace");
  });

  test("a second login as another user on the same browser works", async () => {
    const browser = new Browser();
    const first = pkce();
    await loginToConsent(browser, authorizeUrl("spa", first.challenge, "state-user-one"), "henry");
    const second = await loginToConsent(
      browser,
      authorizeUrl("spa", first.challenge, "state-user-two"),
      "ivy",
    );
    const request = (await (await getConsent(second.challenge)).json()) as Record<string, unknown>;
    expect(request.subject).toBe("ivy");
    const accepted = await acceptConsent(second.challenge, { grant_scope: ["openid", "offline_access"] });
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const callback = await toCallback(browser, redirect_to);
    const exchanged = await token({
      grant_type: "authorization_code",
      code: callback.searchParams.get("code") ?? "",
      redirect_uri: `${appUrl}/callback`,
      code_verifier: first.verifier,
      client_id: "spa",
    });
    expect(exchanged.status).toBe(200);
    expect((await introspect(exchanged.body.access_token)).body.sub).toBe("ivy");
  });
});
