/**
 * The front-door scenario, part one: the routes that need no one signed in (health, readiness, the
 * landing page, the OpenAPI document, unknown routes) and `/auth/*`: one sign-in walked and recorded
 * step by step (authorize, the consent page and request, accept, the token exchange) with each step's
 * refusals, then the CORS and origin answers, the Kratos flow proxy, refresh and logout.
 */
import { Browser } from "./browser.ts";
import type { Door } from "./front-door.ts";
import {
  APP_ORIGIN,
  authorizeUrl,
  CLIENT_ID,
  CSRF,
  codeFrom,
  OTHER_ORIGIN,
  pkce,
  reachConsent,
} from "./stack.ts";

export async function openRoutes(door: Door) {
  const { call } = bound(door);
  await call("health", "GET", "/healthz");
  await call("health, HEAD", "HEAD", "/healthz");
  await call("health, a query string", "GET", "/healthz?x=1");
  await call("health, a trailing slash", "GET", "/healthz/");
  await call("health, POST", "POST", "/healthz");
  await call("health, a request id echoed", "GET", "/healthz", { headers: { "x-request-id": "trace-1" } });
  await call("health, a request id refused", "GET", "/healthz", { headers: { "x-request-id": "a b" } });
  await call("readiness", "GET", "/readyz");
  await call("landing page", "GET", "/");
  await call("landing page, as a browser", "GET", "/", { headers: { accept: "text/html" } });
  await call("landing script", "GET", "/landing.js");
  await call("OpenAPI document", "GET", "/openapi.json");
  await call("unknown route", "GET", "/nope");
  await call("unknown route, a browser", "GET", "/nope", { headers: { accept: "text/html,*/*" } });
  await call("unknown route under /v1", "POST", "/v1/unknown", { headers: CSRF, body: {} });
  await call("a route with another method", "PUT", "/v1/me");
  await call("a double slash", "GET", "//healthz");
  await call("an encoded path", "GET", "/%68ealthz");
}

export async function signInWalk(door: Door) {
  const { stack, rec } = door;
  const { call } = bound(door);
  const browser = new Browser();
  const p = await pkce();
  for (const value of Object.values(p)) rec.secret(value);
  const authorize = authorizeUrl(stack, p).slice(stack.url.length);
  await call("authorize", "GET", authorize);
  await call("authorize, no PKCE", "GET", authorize.replace(/code_challenge=[^&]+&?/, ""));
  await call("authorize, response_type token", "GET", authorize.replace("code", "token"));
  await call("authorize, unknown client", "GET", authorize.replace(CLIENT_ID, "nobody"));
  await call("authorize, another redirect_uri", "GET", authorize.replace("callback", "elsewhere"));
  const { challenge } = await reachConsent(stack, browser, "alice", p);
  rec.secret(challenge);
  const viaBrowser = async (label: string, path: string, init: RequestInit = {}) => {
    const headers = (init.headers ?? {}) as Record<string, string>;
    const response = await browser.fetch(`${stack.url}${path}`, { ...init, redirect: "manual" });
    return door.record(label, `${init.method ?? "GET"} ${path} (browser)`, response, headers);
  };
  const q = encodeURIComponent(challenge);
  await viaBrowser("consent page", `/auth/consent?consent_challenge=${q}`);
  await call("consent page, no challenge", "GET", "/auth/consent");
  await call("consent page, no challenge, a browser", "GET", "/auth/consent", {
    headers: { accept: "text/html" },
  });
  await call("consent page, unknown challenge", "GET", "/auth/consent?consent_challenge=unknown-challenge");
  await viaBrowser("consent request", `/auth/consent-request?challenge=${q}`);
  await call("consent request, no challenge", "GET", "/auth/consent-request");
  await call("consent request, unknown", "GET", "/auth/consent-request?challenge=unknown-challenge");
  await call("consent request, without its nonce cookie", "GET", `/auth/consent-request?challenge=${q}`);
  const accept = (grant_scope: string[], subject = "alice") =>
    JSON.stringify({ challenge, subject, grant_scope });
  await viaBrowser("consent accept, no CSRF", "/auth/consent/accept", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: accept(["openid"]),
  });
  await viaBrowser("consent accept, another subject", "/auth/consent/accept", {
    method: "POST",
    headers: CSRF,
    body: accept(["openid"], "mallory"),
  });
  await viaBrowser("consent accept, a scope not asked", "/auth/consent/accept", {
    method: "POST",
    headers: CSRF,
    body: accept(["openid", "admin"]),
  });
  await viaBrowser("consent accept, malformed JSON", "/auth/consent/accept", {
    method: "POST",
    headers: CSRF,
    body: "{",
  });
  await viaBrowser("consent accept, wrong types", "/auth/consent/accept", {
    method: "POST",
    headers: CSRF,
    body: JSON.stringify({ challenge, subject: 1, grant_scope: "openid" }),
  });
  await call("consent accept, no nonce cookie", "POST", "/auth/consent/accept", {
    headers: CSRF,
    body: accept(["openid", "offline_access"]),
  });
  const accepted = await viaBrowser("consent accept", "/auth/consent/accept", {
    method: "POST",
    headers: CSRF,
    body: accept(["openid", "offline_access"]),
  });
  await call("consent reject, unknown", "POST", "/auth/consent/reject", {
    headers: CSRF,
    body: { challenge: "unknown-challenge" },
  });
  const callback = await codeFrom(stack, browser, accepted.json<{ redirect_to: string }>().redirect_to);
  const code = callback.searchParams.get("code")!;
  rec.secret(code);
  const exchange = (changes: Record<string, unknown>) =>
    JSON.stringify({
      code,
      code_verifier: p.verifier,
      redirect_uri: stack.redirectUri,
      client_id: CLIENT_ID,
      nonce: p.nonce,
      ...changes,
    });
  const token = (label: string, body: string, headers: Record<string, string> = CSRF) =>
    viaBrowser(label, "/auth/token", { method: "POST", headers, body });
  await token("token, no CSRF", exchange({}), { "content-type": "application/json" });
  await token("token, unknown client", exchange({ client_id: "nobody" }));
  await token("token, a redirect_uri not registered", exchange({ redirect_uri: `${stack.url}/elsewhere` }));
  await token("token, missing field", JSON.stringify({ code }));
  await token("token, a form body", "code=x", {
    ...CSRF,
    "content-type": "application/x-www-form-urlencoded",
  });
  await token("token, another origin", exchange({}), { ...CSRF, origin: OTHER_ORIGIN });
  await token("token", exchange({}));
  // Replaying a code makes the provider revoke its grant (RFC 6749 §4.1.2): asked after the refresh.
  return { browser, replayCode: () => token("token, the code again", exchange({})) };
}

/** Session reads, CORS, origins, the Kratos proxy, refresh and logout of the walked sign-in. */
export async function sessionRoutes(door: Door, walked: Awaited<ReturnType<typeof signInWalk>>) {
  const { browser } = walked;
  const { stack } = door;
  const { call } = bound(door);
  const cookie = { cookie: browser.cookieHeader(stack.url) };
  for (const round of ["cold", "warm"])
    await call(`session, cookie (${round})`, "GET", "/auth/session", { headers: cookie });
  await call("session, none", "GET", "/auth/session");
  await call("session, a garbage cookie", "GET", "/auth/session", { headers: { cookie: "sg_session=x" } });
  await call("session, a registered origin", "GET", "/auth/session", {
    headers: { ...cookie, origin: APP_ORIGIN },
  });
  await call("session, another app's origin", "GET", "/auth/session", {
    headers: { ...cookie, origin: OTHER_ORIGIN },
  });
  await call("session, a query string", "GET", "/auth/session?x=1", { headers: cookie });
  for (const origin of [APP_ORIGIN, OTHER_ORIGIN, "http://evil.example", "null"]) {
    const label = `origin ${origin}`;
    await call(`${label}, client given`, "GET", `/auth/origin?client_id=${CLIENT_ID}`, {
      headers: { origin },
    });
    await call(`${label}, preflight`, "OPTIONS", "/v1/resources", {
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-service-csrf",
      },
    });
  }
  await call("origin, none", "GET", "/auth/origin");
  await call("origin, unknown client", "GET", "/auth/origin?client_id=nobody", {
    headers: { origin: APP_ORIGIN },
  });
  await call("OPTIONS without a preflight", "OPTIONS", "/v1/resources", { headers: { origin: APP_ORIGIN } });
  await call("OPTIONS without an origin", "OPTIONS", "/v1/me");
  await call("kratos flow, bad type", "GET", "/auth/kratos/flow?type=nope&id=abc");
  await call("kratos flow, bad id", "GET", "/auth/kratos/flow?type=login&id=a%20b");
  await call("kratos flow, unknown", "GET", "/auth/kratos/flow?type=login&id=unknown-flow");
  await call("refresh, no CSRF", "POST", "/auth/refresh", { headers: cookie });
  await call("refresh, no session", "POST", "/auth/refresh", { headers: CSRF, body: {} });
  await call("refresh, another client", "POST", "/auth/refresh", {
    headers: { ...CSRF, ...cookie },
    body: { client_id: "other-web" },
  });
  await call("refresh, malformed JSON", "POST", "/auth/refresh", {
    headers: { ...CSRF, ...cookie },
    body: "{",
  });
  const refreshed = await browser.fetch(`${stack.url}/auth/refresh`, { method: "POST", headers: CSRF });
  await door.record("refresh", "POST /auth/refresh (browser)", refreshed, CSRF);
  const after = { cookie: browser.cookieHeader(stack.url) };
  await call("session after refresh", "GET", "/auth/session", { headers: after });
  await call("logout, no CSRF", "POST", "/auth/logout", { headers: after });
  await call("logout", "POST", "/auth/logout", { headers: { ...CSRF, ...after } });
  await call("session after logout", "GET", "/auth/session", { headers: after });
  await call("refresh after logout", "POST", "/auth/refresh", { headers: { ...CSRF, ...after } });
  await call("logout again", "POST", "/auth/logout", { headers: { ...CSRF, ...after } });
  await walked.replayCode();
}

export function bound(door: Door) {
  return { call: door.call.bind(door), raw: door.raw.bind(door) };
}
