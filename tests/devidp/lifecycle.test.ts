// Dev IdP lifecycle: loopback-only binding, admin API without a key, short access-token
// TTLs (the gateway's refresh tests), and exact per-request counters.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DevIdp, startDevIdp } from "../../src/devidp/index.ts";
import { Browser } from "../helpers/browser.ts";

let idp: DevIdp;
const CALLBACK = "http://127.0.0.1:9/callback";
const CONSENT = "http://127.0.0.1:9/auth/consent";

beforeAll(async () => {
  idp = await startDevIdp({
    clients: [{ clientId: "spa", redirectUris: [CALLBACK] }],
    consentUrl: CONSENT,
    // Short enough to outlive in a test, long enough that a loaded machine still introspects a fresh token in time.
    accessTokenTtlSeconds: 3,
    quiet: true,
  });
}, 60_000);

afterAll(() => idp.stop());

function pkce() {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const challenge = new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

function form(url: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(body).toString(),
  });
}

/** Drives the browser through login and consent (consent handled via the admin API, no key). */
async function tokensFor(username: string) {
  const browser = new Browser();
  const { verifier, challenge } = pkce();
  const authorize = `${idp.issuer}/oauth2/auth?${new URLSearchParams({
    response_type: "code",
    client_id: "spa",
    redirect_uri: CALLBACK,
    scope: "openid offline_access",
    state: "state-lifecycle",
    code_challenge: challenge,
    code_challenge_method: "S256",
  })}`;
  const login = await browser.follow(authorize, { until: (u) => u.pathname === "/login" });
  const consent = await browser.follow(`${idp.issuer}/login`, {
    init: {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        login_challenge: login.url.searchParams.get("login_challenge") ?? "",
        username,
      }).toString(),
    },
    until: (u) => u.toString().startsWith(CONSENT),
  });
  expect(consent.chain.at(-1)).toStartWith(`${CONSENT}?consent_challenge=`);
  const challengeId = consent.url.searchParams.get("consent_challenge") ?? "";
  const got = await fetch(
    `${idp.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${challengeId}`,
  );
  expect(got.status).toBe(200);
  const accepted = await fetch(
    `${idp.adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${challengeId}`,
    { method: "PUT", body: JSON.stringify({ grant_scope: ["openid", "offline_access"] }) },
  );
  expect(accepted.status).toBe(200);
  const { redirect_to } = (await accepted.json()) as { redirect_to: string };
  const callback = await browser.follow(redirect_to, { until: (u) => u.toString().startsWith(CALLBACK) });
  const response = await form(`${idp.issuer}/oauth2/token`, {
    grant_type: "authorization_code",
    code: callback.url.searchParams.get("code") ?? "",
    redirect_uri: CALLBACK,
    code_verifier: verifier,
    client_id: "spa",
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token: string; expires_in: number };
}

const introspect = async (token: string) =>
  (await (await form(`${idp.adminUrl}/admin/oauth2/introspect`, { token })).json()) as Record<
    string,
    unknown
  >;

describe("dev IdP lifecycle", () => {
  test("refuses to bind anything but loopback", async () => {
    const base = { clients: [], consentUrl: CONSENT, quiet: true };
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com", "10.0.0.1"]) {
      await expect(startDevIdp({ ...base, host })).rejects.toThrow(/loopback/);
    }
    const local = await startDevIdp({ ...base, host: "localhost" });
    expect(local.issuer).toStartWith("http://127.0.0.1:");
    const health = await fetch(`${local.issuer}/health/alive`);
    expect(health.status).toBe(200);
    await local.stop();
  });

  test("prints one loud warning unless quiet", async () => {
    const lines: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => lines.push(args.join(" "));
    try {
      const loud = await startDevIdp({ clients: [], consentUrl: CONSENT });
      await loud.stop();
    } finally {
      console.warn = original;
    }
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("NOT FOR PRODUCTION");
  });

  test("short access-token TTL: expired token is inactive and rejected; refresh works", async () => {
    const tokens = await tokensFor("judy");
    expect(tokens.expires_in).toBeLessThanOrEqual(3);
    expect((await introspect(tokens.access_token)).active).toBe(true);
    await Bun.sleep(3600);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    const info = await fetch(`${idp.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    expect(info.headers.get("www-authenticate")).toContain("invalid_token");
    const refreshed = await form(`${idp.issuer}/oauth2/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "spa",
    });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await introspect(body.access_token)).active).toBe(true);
  });

  test("calls counts exactly one per request that reached the provider", async () => {
    const tokens = await tokensFor("kim");
    idp.resetCalls();
    expect(Object.values(idp.calls).every((n) => n === 0)).toBe(true);
    await Promise.all([introspect(tokens.access_token), introspect(tokens.access_token)]);
    await fetch(`${idp.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const refreshed = await form(`${idp.issuer}/oauth2/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "spa",
    });
    expect(refreshed.status).toBe(200);
    await form(`${idp.issuer}/oauth2/token`, {
      grant_type: "authorization_code",
      code: "x",
      client_id: "spa",
    });
    await form(`${idp.issuer}/oauth2/revoke`, { token: "nope", client_id: "spa" });
    await fetch(`${idp.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=nope`);
    await fetch(`${idp.adminUrl}/admin/oauth2/auth/requests/consent/reject?consent_challenge=nope`, {
      method: "PUT",
      body: "{}",
    });
    await fetch(`${idp.kratosUrl}/self-service/login/flows?id=nope`);
    const nonZero = Object.fromEntries(Object.entries(idp.calls).filter(([, n]) => n !== 0));
    expect(nonZero).toEqual({
      introspect: 2,
      userinfo: 1,
      "token:refresh_token": 1,
      "token:authorization_code": 1,
      revoke: 1,
      "consent:get": 1,
      "consent:reject": 1,
      "kratos:flow": 1,
    });
    for (const key of ["consent:accept", "token:authorization_code", "kratos:flow"]) {
      expect(key in idp.calls).toBe(true);
    }
  });

  test("unknown admin paths and methods", async () => {
    expect((await fetch(`${idp.adminUrl}/admin/nope`)).status).toBe(404);
    const wrongMethod = await fetch(`${idp.adminUrl}/admin/oauth2/introspect`);
    expect(wrongMethod.status).toBe(405);
    const missing = await form(`${idp.adminUrl}/admin/oauth2/introspect`, {});
    expect(missing.status).toBe(400);
  });
});
