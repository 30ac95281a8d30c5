/**
 * Consent decisions are bound to the browser that loaded the consent request. The challenge travels in
 * a URL (history, logs, Referer), so holding it must not be enough to accept (with `remember`) or
 * reject, nor to run the side effects (the `_app` join, the welcome credit). Over real sockets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway } from "../../src/server/serve.ts";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import { CSRF, codeFrom, openConsent, pkce, reachConsent, type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

const db = () => sql(stack.running.gateway.storage);
const count = async (text: string, ...params: Array<string | number>) => db().count(text, ...params);
/** Everything an accepted consent writes for `userId`: credit, events, `_app` membership. */
const sideEffects = async (userId: string) => ({
  credits: await count("SELECT count(*) AS n FROM credits WHERE user_id = ?", userId),
  events: await count("SELECT count(*) AS n FROM events WHERE user_id = ?", userId),
  members: await count("SELECT count(*) AS n FROM members WHERE user_id = ?", userId),
});
const NOTHING = { credits: 0, events: 0, members: 0 };
/** The provider's view of a consent request: 200 while pending, 410 once accepted or rejected. */
const providerStatus = async (challenge: string) =>
  (
    await fetch(`${stack.idp.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${challenge}`, {
      headers: { authorization: "Bearer test-idp-admin-key" },
    })
  ).status;
const decisions = () => (stack.idp.calls["consent:accept"] ?? 0) + (stack.idp.calls["consent:reject"] ?? 0);

const acceptBody = (challenge: string, subject: string) =>
  JSON.stringify({ challenge, subject, grant_scope: ["openid", "offline_access"], remember: true });
const post = (path: string, body: string, cookie?: string) =>
  fetch(`${stack.url}${path}`, {
    method: "POST",
    headers: cookie ? { ...CSRF, cookie } : CSRF,
    body,
  });
const consentCookie = (res: Response) =>
  res.headers.getSetCookie().find((c) => c.startsWith("sg_consent=") || c.startsWith("__Secure-sg_consent="));

/** A victim who signed in at the provider and whose browser loaded the gateway's consent page. */
async function victimAtConsent(username: string) {
  const browser = new Browser();
  const { challenge } = await reachConsent(stack, browser, username, await pkce());
  const page = await browser.fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`);
  expect(page.status).toBe(200);
  return { browser, challenge };
}

describe("consent is bound to the browser that loaded it", () => {
  test("accept with only the challenge is 403 consent_not_bound and changes nothing at the provider or in the database", async () => {
    const { browser, challenge } = await victimAtConsent("victim-accept");
    const before = decisions();
    const res = await post("/auth/consent/accept", acceptBody(challenge, "victim-accept"));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ code: "consent_not_bound", error: expect.any(String) });
    expect(decisions()).toBe(before);
    expect(await providerStatus(challenge)).toBe(200);
    expect(await sideEffects("victim-accept")).toEqual(NOTHING);

    // The victim's own browser still decides.
    const own = await browser.fetch(`${stack.url}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: acceptBody(challenge, "victim-accept"),
    });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ welcomed: true });
    expect(await providerStatus(challenge)).toBe(410);
    expect((await sideEffects("victim-accept")).credits).toBe(1);
  });

  test("reject with only the challenge is 403 consent_not_bound and the request stays pending", async () => {
    const { browser, challenge } = await victimAtConsent("victim-reject");
    const before = decisions();
    const res = await post("/auth/consent/reject", JSON.stringify({ challenge }));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "consent_not_bound" });
    expect(decisions()).toBe(before);
    expect(await providerStatus(challenge)).toBe(200);

    const own = await browser.fetch(`${stack.url}/auth/consent/reject`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ challenge }),
    });
    expect(own.status).toBe(200);
    const { redirect_to } = (await own.json()) as { redirect_to: string };
    expect((await codeFrom(stack, browser, redirect_to)).searchParams.get("error")).toBe("access_denied");
    expect(await sideEffects("victim-reject")).toEqual(NOTHING);
  });

  test("a nonce bound to another challenge does not accept this one", async () => {
    const { challenge } = await victimAtConsent("victim-other");
    const attacker = new Browser();
    const own = await reachConsent(stack, attacker, "attacker", await pkce());
    expect((await openConsent(stack, attacker, own.challenge)).status).toBe(200);
    const cookie = attacker.cookieHeader(`${stack.url}/auth/consent/accept`);
    expect(cookie).toContain("sg_consent=");
    const before = decisions();
    const res = await post("/auth/consent/accept", acceptBody(challenge, "victim-other"), cookie);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "consent_not_bound" });
    const rejected = await post("/auth/consent/reject", JSON.stringify({ challenge }), cookie);
    expect(rejected.status).toBe(403);
    expect(decisions()).toBe(before);
    expect(await providerStatus(challenge)).toBe(200);
    expect(await sideEffects("victim-other")).toEqual(NOTHING);
  });

  test("the first load binds: another browser's page says it is open elsewhere and its JSON is 403; the binding browser can reload", async () => {
    const { browser, challenge } = await victimAtConsent("victim-reload");
    const other = new Browser();
    const page = await other.fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`);
    expect(page.status).toBe(403);
    expect(consentCookie(page)).toBeUndefined();
    expect(await page.text()).toContain("open in another browser");
    const json = await openConsent(stack, other, challenge);
    expect(json.status).toBe(403);
    expect(await json.json()).toMatchObject({ code: "consent_not_bound" });
    expect(consentCookie(json)).toBeUndefined();

    // Reloads in the browser that loaded it first keep working (page and JSON), with the same nonce.
    const nonce = browser.cookie(`${stack.url}/auth/consent`, "sg_consent");
    const reload = await browser.fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`);
    expect(reload.status).toBe(200);
    expect(await reload.text()).toContain("victim-reload");
    const details = await openConsent(stack, browser, challenge);
    expect(details.status).toBe(200);
    expect(await details.json()).toMatchObject({ challenge, subject: "victim-reload" });
    expect(browser.cookie(`${stack.url}/auth/consent`, "sg_consent")).toBe(nonce);
    expect(await sideEffects("victim-reload")).toEqual(NOTHING);
    expect(await providerStatus(challenge)).toBe(200);
  });

  test("two consent requests open in one browser can both be decided", async () => {
    const browser = new Browser();
    const first = await reachConsent(stack, browser, "two-tabs", await pkce());
    expect((await openConsent(stack, browser, first.challenge)).status).toBe(200);
    const second = await reachConsent(stack, browser, "two-tabs", await pkce());
    expect((await openConsent(stack, browser, second.challenge)).status).toBe(200);
    for (const challenge of [first.challenge, second.challenge]) {
      const res = await browser.fetch(`${stack.url}/auth/consent/accept`, {
        method: "POST",
        headers: CSRF,
        body: JSON.stringify({ challenge, subject: "two-tabs", grant_scope: ["openid"] }),
      });
      expect(res.status).toBe(200);
      expect(await providerStatus(challenge)).toBe(410);
    }
  });

  test("the nonce cookie is httpOnly, SameSite=Strict, Path=/auth, 10 minutes; the table keeps only hashes", async () => {
    const browser = new Browser();
    const { challenge } = await reachConsent(stack, browser, "cookie-shape", await pkce());
    const res = await openConsent(stack, browser, challenge);
    expect(res.status).toBe(200);
    const setCookie = consentCookie(res)!;
    expect(setCookie).toMatch(
      /^sg_consent=[A-Za-z0-9_.-]+; Max-Age=600; Path=\/auth; HttpOnly; SameSite=Strict$/,
    );
    const nonce = browser.cookie(`${stack.url}/auth/consent`, "sg_consent")!;
    const rows = (await db().all("SELECT * FROM consent_bindings")) as Array<Record<string, unknown>>;
    expect(rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(challenge);
    for (const part of nonce.split(".")) expect(dump).not.toContain(part);
    const hash = new Bun.CryptoHasher("sha256").update(challenge).digest("base64url");
    const row = rows.find((r) => r.challenge_hash === hash)!;
    expect(row).toBeDefined();
    expect(row.expires_at as number).toBeGreaterThan(Date.now() + 590_000);
    expect(row.expires_at as number).toBeLessThanOrEqual(Date.now() + 600_000);
  });

  test("a server-rendered consent app keeps the cookie from consent-request and sends it back", async () => {
    const { challenge } = await reachConsent(stack, new Browser(), "server-app", await pkce());
    // The consent app's server: plain fetch, no cookie jar.
    const details = await fetch(`${stack.url}/auth/consent-request?challenge=${challenge}`);
    expect(details.status).toBe(200);
    const cookie = consentCookie(details)!.split(";")[0]!;
    const res = await post("/auth/consent/accept", acceptBody(challenge, "server-app"), cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ welcomed: true });
    expect(await providerStatus(challenge)).toBe(410);
  });

  test("the binding lives in the database: a second gateway on the same database honours it", async () => {
    const { browser, challenge } = await victimAtConsent("two-processes");
    const second = await startGateway({ config: { ...stack.running.gateway.config, port: 0, adminPort: 0 } });
    try {
      const cookie = browser.cookieHeader(`${stack.url}/auth/consent/accept`);
      const refused = await fetch(`${second.publicUrl}/auth/consent/accept`, {
        method: "POST",
        headers: CSRF,
        body: acceptBody(challenge, "two-processes"),
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "consent_not_bound" });
      const other = await fetch(`${second.publicUrl}/auth/consent-request?challenge=${challenge}`);
      expect(other.status).toBe(403);
      const res = await fetch(`${second.publicUrl}/auth/consent/accept`, {
        method: "POST",
        headers: { ...CSRF, cookie },
        body: acceptBody(challenge, "two-processes"),
      });
      expect(res.status).toBe(200);
      expect(await providerStatus(challenge)).toBe(410);
    } finally {
      await second.stop();
    }
  });

  test("an expired binding refuses accept and is purged on the next write", async () => {
    const { browser, challenge } = await victimAtConsent("expired-binding");
    const hash = new Bun.CryptoHasher("sha256").update(challenge).digest("base64url");
    await db().run(
      "UPDATE consent_bindings SET expires_at = ? WHERE challenge_hash = ?",
      Date.now() - 1,
      hash,
    );
    const before = decisions();
    const res = await browser.fetch(`${stack.url}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: acceptBody(challenge, "expired-binding"),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "consent_not_bound" });
    expect(decisions()).toBe(before);
    expect(await sideEffects("expired-binding")).toEqual(NOTHING);

    const { challenge: next } = await reachConsent(stack, new Browser(), "purger", await pkce());
    await fetch(`${stack.url}/auth/consent-request?challenge=${next}`);
    expect(await count("SELECT count(*) AS n FROM consent_bindings WHERE challenge_hash = ?", hash)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM consent_bindings WHERE expires_at <= ?", Date.now())).toBe(
      0,
    );
  });
});

describe("with secure cookies", () => {
  test("the nonce cookie is __Secure-sg_consent, Secure, and accept needs it", async () => {
    const secure = await startStack({ env: { COOKIE_SECURE: "true" } });
    try {
      const browser = new Browser();
      const { challenge } = await reachConsent(secure, browser, "secure-user", await pkce());
      const res = await openConsent(secure, browser, challenge);
      expect(res.status).toBe(200);
      expect(consentCookie(res)).toMatch(
        /^__Secure-sg_consent=[A-Za-z0-9_.-]+; Max-Age=600; Path=\/auth; HttpOnly; Secure; SameSite=Strict$/,
      );
      const bare = await fetch(`${secure.url}/auth/consent/accept`, {
        method: "POST",
        headers: CSRF,
        body: acceptBody(challenge, "secure-user"),
      });
      expect(bare.status).toBe(403);
      const ok = await browser.fetch(`${secure.url}/auth/consent/accept`, {
        method: "POST",
        headers: CSRF,
        body: acceptBody(challenge, "secure-user"),
      });
      expect(ok.status).toBe(200);
    } finally {
      await secure.stop();
    }
  });
});
