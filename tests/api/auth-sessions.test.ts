/**
 * Sessions over real sockets against the development provider: single-flight refresh, the rotation
 * grace (a reused refresh token never logs the user out), invalid grants, tampered cookies, failed
 * exchanges, and logout with the provider down.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  authorizeUrl,
  CLIENT_ID,
  CSRF,
  codeFrom,
  openConsent,
  pkce,
  reachConsent,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

const refresh = (browser: Browser, cookie?: string) =>
  browser.fetch(`${stack.url}/auth/refresh`, {
    method: "POST",
    headers: cookie === undefined ? CSRF : { ...CSRF, cookie },
    body: JSON.stringify({ client_id: CLIENT_ID }),
  });
const report = async (cookie: string) =>
  (await fetch(`${stack.url}/auth/session`, { headers: { cookie } })).json();

describe("refresh", () => {
  test("five concurrent refreshes make exactly one grant at the provider and all succeed", async () => {
    const { browser } = await signIn(stack, "five");
    const cookie = browser.cookieHeader(stack.url);
    const before = stack.idp.calls["token:refresh_token"] ?? 0;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${stack.url}/auth/refresh`, { method: "POST", headers: { ...CSRF, cookie }, body: "{}" }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const answer of answers) expect(await answer.json()).toMatchObject({ authenticated: true });
    expect((stack.idp.calls["token:refresh_token"] ?? 0) - before).toBe(1);
    // Every answer carries the same new cookie.
    const values = answers.map((r) => r.headers.getSetCookie()[0]?.split(";")[0]);
    expect(new Set(values).size).toBe(1);
    expect(values[0]).not.toBe(cookie);
  });

  test("a reused (just rotated) refresh token gets the current session, never a logout", async () => {
    const { browser } = await signIn(stack, "reuse");
    const oldCookie = browser.cookieHeader(stack.url);
    const first = await refresh(browser);
    expect(first.status).toBe(200);
    const newCookie = browser.cookieHeader(stack.url);
    expect(newCookie).not.toBe(oldCookie);
    const before = stack.idp.calls["token:refresh_token"] ?? 0;

    // A tab that still holds the old cookie refreshes after the rotation.
    const late = await fetch(`${stack.url}/auth/refresh`, {
      method: "POST",
      headers: { ...CSRF, cookie: oldCookie },
      body: "{}",
    });
    expect(late.status).toBe(200);
    expect(await late.json()).toMatchObject({ authenticated: true });
    expect(late.headers.getSetCookie().some((c) => c.includes("Max-Age=0"))).toBe(false);
    expect(late.headers.getSetCookie()[0]?.split(";")[0]).toBe(newCookie);
    expect((stack.idp.calls["token:refresh_token"] ?? 0) - before).toBe(0); // the provider never saw the reuse

    expect(await report(newCookie)).toEqual({ authenticated: true, user_id: "reuse" });
    expect(await report(oldCookie)).toEqual({ authenticated: true, user_id: "reuse" });
    const again = await refresh(browser);
    expect(again.status).toBe(200); // the grant is intact at the provider
  });

  test("invalid_grant from the provider ends the session and clears cookies", async () => {
    const { browser } = await signIn(stack, "revoked");
    const cookie = browser.cookieHeader(stack.url);
    const found = await stack.running.gateway.sessions.resolve(cookie);
    // Revoke the grant at the provider behind the gateway's back.
    const revoke = await fetch(`${stack.idp.issuer}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: found!.cookie.rt!, client_id: CLIENT_ID }).toString(),
    });
    expect(revoke.status).toBe(200);
    const res = await refresh(browser);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "unauthenticated", reason: "expired" });
    expect(res.headers.getSetCookie().some((c) => c.startsWith("sg_session=; Max-Age=0"))).toBe(true);
    expect(await report(cookie)).toEqual({ authenticated: false, reason: "expired" });
    const row = await stack.running.gateway.store.fresh(found!.row.id);
    expect(row?.endReason).toBe("refresh_invalid");
  });

  test("refresh without a cookie is 401", async () => {
    const res = await fetch(`${stack.url}/auth/refresh`, { method: "POST", headers: CSRF, body: "{}" });
    expect(res.status).toBe(401);
  });
});

describe("cookies and sessions", () => {
  test("a tampered cookie is no session", async () => {
    const { browser } = await signIn(stack, "tamper");
    const cookie = browser.cookieHeader(stack.url);
    const value = cookie.split("=")[1]!;
    const flipped = `sg_session=${value.slice(0, 60)}${value[60] === "A" ? "B" : "A"}${value.slice(61)}`;
    expect(await report(flipped)).toEqual({ authenticated: false, reason: "no_session" });
    const me = await fetch(`${stack.url}/v1/me`, { headers: { cookie: flipped } });
    expect(me.status).toBe(401);
    expect(await report(cookie)).toEqual({ authenticated: true, user_id: "tamper" });
  });

  test("the session row is stored with hashes only and an ended session is refused at once", async () => {
    const { browser } = await signIn(stack, "rowcheck");
    const cookie = browser.cookieHeader(stack.url);
    const found = await stack.running.gateway.sessions.resolve(cookie);
    const raw = (await sql(stack.running.gateway.storage).get(
      "select * from sessions where id = ?",
      found!.row.id,
    )) as Record<string, unknown>;
    expect(raw).toMatchObject({ user_id: "rowcheck", client_id: CLIENT_ID, ended_at: null });
    expect(JSON.stringify(raw)).not.toContain(found!.cookie.at);
    expect(JSON.stringify(raw)).not.toContain(found!.cookie.rt!);
    await stack.running.gateway.sessions.end(found!.row.id, "operator", "admin");
    expect(await report(cookie)).toEqual({ authenticated: false, reason: "revoked" });
    expect((await fetch(`${stack.url}/v1/me`, { headers: { cookie } })).status).toBe(401);
  });

  test("/v1/me over a cookie names the user, client and app", async () => {
    const { browser } = await signIn(stack, "meuser");
    const me = await browser.fetch(`${stack.url}/v1/me`);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ userId: "meuser", clientId: CLIENT_ID, appId: "test", via: "cookie" });
  });
});

describe("code exchange failures", () => {
  test("a used or wrong code answers 4xx with {error}", async () => {
    const browser = new Browser();
    const p = await pkce();
    const { challenge } = await reachConsent(stack, browser, "exchanger", p);
    expect((await openConsent(stack, browser, challenge)).status).toBe(200);
    const accept = await browser.fetch(`${stack.url}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ challenge, subject: "exchanger", grant_scope: ["openid", "offline_access"] }),
    });
    const callback = await codeFrom(
      stack,
      browser,
      ((await accept.json()) as { redirect_to: string }).redirect_to,
    );
    const code = callback.searchParams.get("code");
    const exchange = (verifier: string) =>
      fetch(`${stack.url}/auth/token`, {
        method: "POST",
        headers: CSRF,
        body: JSON.stringify({
          code,
          code_verifier: verifier,
          redirect_uri: stack.redirectUri,
          client_id: CLIENT_ID,
        }),
      });
    const wrong = await exchange("x".repeat(43));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: "exchange_failed", error: expect.any(String) });
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const garbage = await fetch(`${stack.url}/auth/token`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({
        code: "nope",
        code_verifier: p.verifier,
        redirect_uri: stack.redirectUri,
        client_id: CLIENT_ID,
      }),
    });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ code: "exchange_failed" });
  });

  test("unknown client and unregistered redirect URI are refused before the provider", async () => {
    const p = await pkce();
    const unknown = await fetch(authorizeUrl(stack, p, "who-is-this"), { redirect: "manual" });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: "unknown_client" });
    const evil = authorizeUrl(stack, p).replace(
      encodeURIComponent(stack.redirectUri),
      encodeURIComponent("https://evil.example/cb"),
    );
    const redirect = await fetch(evil, { redirect: "manual" });
    expect(redirect.status).toBe(400);
    expect(await redirect.json()).toMatchObject({ code: "invalid_redirect_uri" });
    const token = await fetch(`${stack.url}/auth/token`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({
        code: "c",
        code_verifier: p.verifier,
        redirect_uri: "https://evil.example/cb",
        client_id: CLIENT_ID,
      }),
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ code: "invalid_redirect_uri" });
  });
});

describe("logout with the provider down", () => {
  test("answers 200, clears the cookies and ends the session", async () => {
    const own = await startStack();
    try {
      const { browser } = await signIn(own, "downer");
      const cookie = browser.cookieHeader(own.url);
      await own.idp.stop();
      const res = await fetch(`${own.url}/auth/logout`, {
        method: "POST",
        headers: { ...CSRF, cookie },
        body: "{}",
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
      expect(res.headers.getSetCookie()).toEqual([
        expect.stringMatching(/^sg_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/),
      ]);
      expect(await (await fetch(`${own.url}/auth/session`, { headers: { cookie } })).json()).toEqual({
        authenticated: false,
        reason: "signed_out",
      });
    } finally {
      await own.stop();
    }
  });
});
