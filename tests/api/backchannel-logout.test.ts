/**
 * Back-channel logout from the development provider, over real sockets, with the logout tokens
 * oidc-provider itself signs and sends: the admin API's login-session delete (`?sid=`, as Hydra 2.1)
 * ends exactly the gateway sessions of that provider session; a person's logout at the provider's
 * end_session endpoint, for a client whose tokens name the subject only, ends every session of that
 * subject for that client and no other. Each ended session is refused from the next request (with the
 * reason `provider_logout`, also by another gateway process on the same database), has one event, and its refresh token is revoked at the provider. A logout
 * for a deleted account or an unknown session answers 200 and changes nothing (issue 30, item 6).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../../src/devidp/browser.ts";
import { sql } from "../helpers/db.ts";
import { CLIENT_ID, introspect, SECRET_CLIENT_ID, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
const db = () => sql(stack.running.gateway.storage);

interface Signed {
  browser: Browser;
  cookie: string;
  sessionId: string;
  refreshToken: string;
}

async function login(user: string, clientId: string, browser = new Browser()): Promise<Signed> {
  const { token } = await signIn(stack, user, browser, clientId);
  expect(token.status).toBe(200);
  const cookie = browser.cookieHeader(stack.url);
  const resolved = await stack.running.gateway.sessions.resolve(cookie);
  if (!resolved?.cookie.rt) throw new Error(`no session with a refresh token for ${user}`);
  return { browser, cookie, sessionId: resolved.row.id, refreshToken: resolved.cookie.rt };
}

async function sessionOf(signed: Signed) {
  const res = await fetch(`${stack.url}/auth/session`, { headers: { cookie: signed.cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as { authenticated: boolean; reason?: string };
}

const row = (id: string) =>
  db().get<{ end_reason: string | null; provider_sid: string | null }>(
    "SELECT end_reason, provider_sid FROM sessions WHERE id = ?",
    id,
  );
const endedEvents = (id: string) =>
  db().count(
    "SELECT count(*) FROM events WHERE type = 'session.ended' AND data LIKE ? AND data LIKE '%provider_logout%'",
    `%${id}%`,
  );

async function expectEnded(signed: Signed) {
  expect(await sessionOf(signed)).toEqual({ authenticated: false, reason: "provider_logout" });
  expect((await row(signed.sessionId))?.end_reason).toBe("provider_logout");
  expect(await endedEvents(signed.sessionId)).toBe(1);
  expect((await introspect(stack, signed.refreshToken)).active).toBe(false);
}

async function expectLive(signed: Signed) {
  expect((await sessionOf(signed)).authenticated).toBe(true);
  expect((await row(signed.sessionId))?.end_reason).toBeNull();
  expect((await introspect(stack, signed.refreshToken)).active).toBe(true);
}

const deleteLoginSession = (sid: string) =>
  fetch(`${stack.idp.adminUrl}/admin/oauth2/auth/sessions/login?sid=${encodeURIComponent(sid)}`, {
    method: "DELETE",
    headers: { authorization: "Bearer test-idp-admin-key" },
  });

/** The person signs out at the provider: its end_session page, then its confirmation form. */
async function logoutAtProvider(browser: Browser) {
  const page = await browser.fetch(`${stack.idp.issuer}/oauth2/sessions/logout`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  const action = /action="([^"]+)"/.exec(html)?.[1];
  if (!xsrf || !action) throw new Error(`no logout form: ${html.slice(0, 300)}`);
  const confirmed = await browser.fetch(new URL(action, stack.idp.issuer), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ xsrf, logout: "yes" }).toString(),
    redirect: "manual",
  });
  expect(confirmed.status).toBeLessThan(400);
}

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

describe("back-channel logout sent by the development provider", () => {
  test("a `sid` logout (admin delete of a login session) ends exactly that provider session's gateway session", async () => {
    const first = await login("bcl-sid", CLIENT_ID);
    const second = await login("bcl-sid", CLIENT_ID);
    const firstSid = (await row(first.sessionId))?.provider_sid;
    const secondSid = (await row(second.sessionId))?.provider_sid;
    expect(firstSid).toBeString();
    expect(secondSid).toBeString();
    expect(firstSid).not.toBe(secondSid);

    // A second gateway process on the same database has the session in its memory.
    const other = await stack.another();
    const atOther = () =>
      fetch(`${other.publicUrl}/auth/session`, { headers: { cookie: first.cookie } }).then((r) => r.json());
    try {
      expect(await atOther()).toMatchObject({ authenticated: true });
      const deleted = await deleteLoginSession(firstSid!);
      expect(deleted.status).toBe(204);
      await expectEnded(first);
      await expectLive(second);
      expect(await atOther()).toEqual({ authenticated: false, reason: "provider_logout" });
    } finally {
      await other.stop();
    }
  });

  test("a `sub` logout (the person signs out at the provider) ends every session of the subject for that client", async () => {
    const here = await login("bcl-sub", SECRET_CLIENT_ID);
    const elsewhere = await login("bcl-sub", SECRET_CLIENT_ID);
    const otherClient = await login("bcl-sub", CLIENT_ID);
    const otherPerson = await login("bcl-sub-other", SECRET_CLIENT_ID);
    // This client's tokens carry no `sid`: the session is kept without one.
    expect((await row(here.sessionId))?.provider_sid).toBeNull();

    await logoutAtProvider(here.browser);
    await expectEnded(here);
    await expectEnded(elsewhere);
    await expectLive(otherClient);
    await expectLive(otherPerson);
  });
});

describe("a logout naming nothing live (item 6)", () => {
  const snapshot = async () => ({
    sessions: await db().all("SELECT id, ended_at, end_reason FROM sessions ORDER BY id"),
    events: await db().count("SELECT count(*) FROM events"),
  });

  test("for a deleted account: 200, nothing else changes", async () => {
    const signed = await login("bcl-deleted", CLIENT_ID);
    const sid = (await row(signed.sessionId))?.provider_sid;
    const deleted = await fetch(`${stack.adminUrl}/admin/v1/users/bcl-deleted`, {
      method: "DELETE",
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(deleted.status).toBe(200);
    const before = await snapshot();
    expect(before.sessions.some((s) => s.id === signed.sessionId && s.end_reason === "deleted")).toBe(true);

    expect((await deleteLoginSession(sid!)).status).toBe(204);
    expect(stack.idp.calls["sessions:login:delete"]).toBeGreaterThan(0);
    expect(stack.logs.some((line) => line.includes('"sessionsEnded":0'))).toBe(true);
    expect(await snapshot()).toEqual(before);
  });

  test("for a provider session the gateway never saw: 200, nothing changes", async () => {
    const signed = await login("bcl-unknown", CLIENT_ID);
    const sid = (await row(signed.sessionId))?.provider_sid;
    // The gateway forgets the session (its retention ran): the provider's logout names nothing it knows.
    await db().run("DELETE FROM sessions WHERE id = ?", signed.sessionId);
    const before = await snapshot();
    const logs = stack.logs.length;
    expect((await deleteLoginSession(sid!)).status).toBe(204);
    expect(stack.logs.slice(logs).some((line) => line.includes('"sessionsEnded":0'))).toBe(true);
    expect(await snapshot()).toEqual(before);
  });
});
