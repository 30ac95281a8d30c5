/**
 * A subject (`sub`) from the provider with control or format characters never becomes a user id: a
 * login app (here, a call to the development provider's Hydra admin API, as any login app makes)
 * accepts a login for such a subject, and then the consent request, the code exchange at /auth/token
 * and a bearer token of that subject are all refused, with nothing written: no session, membership,
 * event or credit row names it. Regression: such a subject reached the database and the operator's
 * terminal. Over real sockets, on both engines; the rule itself and the bearer cache's both modes
 * (introspection, userinfo) in tests/unit/subject.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  authorizeUrl,
  CLIENT_ID,
  CSRF,
  codeFrom,
  pkce,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

const IDP_ADMIN = { authorization: "Bearer test-idp-admin-key", "content-type": "application/json" };
const HOSTILE = [
  ["an escape sequence", "\u001b[31mmallory\u001b[0m"],
  ["a C1 control (CSI)", "mallory\u009b2J"],
  ["a bidi override", "mallory\u202egnp.exe"],
  ["a zero-width space", "mal\u200blory"],
  ["a line separator", "mallory\u2028admin"],
  ["300 characters", "m".repeat(300)],
] as const;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  await signIn(stack, "alice"); // an ordinary user signs in as before
}, 60_000);

afterAll(async () => {
  await stack.stop();
}, 30_000);

/** Authorize, then a login app accepts the login for `subject`; stops at the gateway's consent page. */
async function loginAs(subject: string) {
  const browser = new Browser();
  const p = await pkce();
  const toLogin = await browser.follow(authorizeUrl(stack, p), { until: (u) => u.pathname === "/login" });
  const loginChallenge = toLogin.url.searchParams.get("login_challenge")!;
  const accepted = await fetch(
    `${stack.idp.adminUrl}/admin/oauth2/auth/requests/login/accept?login_challenge=${encodeURIComponent(loginChallenge)}`,
    { method: "PUT", headers: IDP_ADMIN, body: JSON.stringify({ subject }) },
  );
  expect(accepted.status).toBe(200);
  const { redirect_to } = (await accepted.json()) as { redirect_to: string };
  const toConsent = await browser.follow(redirect_to, { until: (u) => u.pathname === "/auth/consent" });
  const challenge = toConsent.url.searchParams.get("consent_challenge")!;
  expect(challenge).toBeTruthy();
  return { browser, p, challenge };
}

/** The consent accepted at the provider itself (a consent app of its own), then the code. */
async function codeFor(subject: string) {
  const { browser, p, challenge } = await loginAs(subject);
  const accepted = await fetch(
    `${stack.idp.adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${encodeURIComponent(challenge)}`,
    {
      method: "PUT",
      headers: IDP_ADMIN,
      body: JSON.stringify({ grant_scope: ["openid", "offline_access"] }),
    },
  );
  expect(accepted.status).toBe(200);
  const { redirect_to } = (await accepted.json()) as { redirect_to: string };
  const callback = await codeFrom(stack, browser, redirect_to);
  return { browser, p, code: callback.searchParams.get("code")! };
}

/** Every row that could name a user, for `subject`. */
async function rowsNaming(subject: string) {
  const db = sql(stack.running.gateway.storage);
  return {
    sessions: await db.count("SELECT count(*) FROM sessions WHERE user_id = ?", subject),
    members: await db.count("SELECT count(*) FROM members WHERE user_id = ?", subject),
    events: await db.count("SELECT count(*) FROM events WHERE user_id = ? OR actor = ?", subject, subject),
    credits: await db.count("SELECT count(*) FROM credits WHERE user_id = ?", subject),
  };
}
const NONE = { sessions: 0, members: 0, events: 0, credits: 0 };

describe("a subject the gateway refuses", () => {
  test.each(HOSTILE)(
    "with %s: the consent request and the consent page are 403 invalid_subject",
    async (_, subject) => {
      const { browser, challenge } = await loginAs(subject);
      const request = await browser.fetch(
        `${stack.url}/auth/consent-request?challenge=${encodeURIComponent(challenge)}`,
      );
      expect(request.status).toBe(403);
      const body = await request.json();
      expect(body).toEqual({ error: expect.any(String), code: "invalid_subject" });
      expect(JSON.stringify(body)).not.toContain("mallory");
      const page = await browser.fetch(
        `${stack.url}/auth/consent?consent_challenge=${encodeURIComponent(challenge)}`,
        {
          headers: { accept: "text/html" },
        },
      );
      expect(page.status).toBe(403);
      const html = await page.text();
      expect(html).not.toContain(subject);
      // Accept without a binding is refused before the provider is asked (a subject over 256 characters
      // is 400 invalid_request before that); nothing was written either way.
      const accept = await browser.fetch(`${stack.url}/auth/consent/accept`, {
        method: "POST",
        headers: CSRF,
        body: JSON.stringify({ challenge, subject, grant_scope: ["openid"] }),
      });
      expect(accept.status).toBe(subject.length > 256 ? 400 : 403);
      expect(await rowsNaming(subject)).toEqual(NONE);
    },
  );

  test.each(HOSTILE)(
    "with %s: /auth/token is 403 invalid_subject, no session and no cookie",
    async (_, subject) => {
      const { browser, p, code } = await codeFor(subject);
      const token = await browser.fetch(`${stack.url}/auth/token`, {
        method: "POST",
        headers: CSRF,
        body: JSON.stringify({
          code,
          code_verifier: p.verifier,
          redirect_uri: stack.redirectUri,
          client_id: CLIENT_ID,
          nonce: p.nonce,
        }),
      });
      expect(token.status).toBe(403);
      expect(await token.json()).toEqual({ error: expect.any(String), code: "invalid_subject" });
      expect(token.headers.getSetCookie().filter((c) => c.startsWith("sg_session"))).toEqual([]);
      expect(await rowsNaming(subject)).toEqual(NONE);
    },
  );

  test.each(HOSTILE)(
    "with %s: its bearer token is 401 unauthenticated and writes nothing",
    async (_, subject) => {
      const { p, code } = await codeFor(subject);
      const tokens = await fetch(`${stack.idp.issuer}/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: p.verifier,
          redirect_uri: stack.redirectUri,
          client_id: CLIENT_ID,
        }),
      });
      expect(tokens.status).toBe(200);
      const { access_token } = (await tokens.json()) as { access_token: string };
      const bearer = { authorization: `Bearer ${access_token}` };
      const me = await fetch(`${stack.url}/v1/me`, { headers: bearer });
      expect(me.status).toBe(401);
      expect(await me.json()).toMatchObject({ code: "unauthenticated" });
      const create = await fetch(`${stack.url}/v1/resources`, {
        method: "POST",
        headers: { ...bearer, "content-type": "application/json" },
        body: JSON.stringify({ type: "team", name: "Mallory's team" }),
      });
      expect(create.status).toBe(401);
      expect(await rowsNaming(subject)).toEqual(NONE);
      const db = sql(stack.running.gateway.storage);
      expect(await db.count("SELECT count(*) FROM resources WHERE name = ?", "Mallory's team")).toBe(0);
    },
  );

  test("an ordinary subject with unusual but visible characters still signs in", async () => {
    const subject = "auth0|5f7c.Zoë-ユーザー@example";
    const { browser } = await signIn(stack, "alice");
    expect((await browser.fetch(`${stack.url}/auth/session`)).status).toBe(200);
    const { browser: other, p, code } = await codeFor(subject);
    const token = await other.fetch(`${stack.url}/auth/token`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({
        code,
        code_verifier: p.verifier,
        redirect_uri: stack.redirectUri,
        client_id: CLIENT_ID,
        nonce: p.nonce,
      }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ authenticated: true, user_id: subject });
    // The admin API addresses that user by the same id.
    const user = await fetch(`${stack.adminUrl}/admin/v1/users/${encodeURIComponent(subject)}`, {
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(user.status).toBe(200);
    expect(await user.json()).toMatchObject({ userId: subject });
  });
});
