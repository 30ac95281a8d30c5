/** The whole browser flow over real sockets against the development provider (Hydra + Kratos APIs). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import {
  authorizeUrl,
  CLIENT_ID,
  CSRF,
  codeFrom,
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

describe("browser flow", () => {
  test("authorize forwards the query untouched with a 302 to the provider", async () => {
    const p = await pkce();
    const url = authorizeUrl(stack, p);
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toBe(`${stack.idp.issuer}/oauth2/auth${new URL(url).search}`);
  });

  test("authorize → login → consent → code → token → session → refresh → logout", async () => {
    const browser = new Browser();
    const p = await pkce();
    const { challenge, chain } = await reachConsent(stack, browser, "alice", p);
    expect(chain.some((u) => new URL(u).pathname === "/login")).toBe(true);
    expect(challenge).toBeTruthy();

    const details = await browser.fetch(
      `${stack.url}/auth/consent-request?challenge=${encodeURIComponent(challenge)}`,
    );
    expect(details.status).toBe(200);
    const request = (await details.json()) as Record<string, unknown>;
    expect(request).toMatchObject({ challenge, subject: "alice", client_id: CLIENT_ID, is_new_user: true });
    expect(request.requested_scope).toEqual(expect.arrayContaining(["openid", "offline_access"]));

    const accept = await browser.fetch(`${stack.url}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ challenge, subject: "alice", grant_scope: ["openid", "offline_access"] }),
    });
    expect(accept.status).toBe(200);
    const accepted = (await accept.json()) as { redirect_to: string; welcomed: boolean };
    expect(accepted.welcomed).toBe(true);

    const callback = await codeFrom(stack, browser, accepted.redirect_to);
    expect(callback.searchParams.get("state")).toBe(p.state);
    const code = callback.searchParams.get("code");
    expect(code).toBeTruthy();

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
    expect(token.status).toBe(200);
    const tokenBody = (await token.json()) as Record<string, unknown>;
    expect(tokenBody.authenticated).toBe(true);
    expect(Object.keys(tokenBody).sort()).toEqual(["authenticated", "expires_in", "user_id"]);
    expect(tokenBody.expires_in).toBeGreaterThan(3000);
    const setCookie = token.headers.getSetCookie();
    expect(setCookie.length).toBe(1);
    expect(setCookie[0]).toMatch(/^sg_session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);

    const session = await browser.fetch(`${stack.url}/auth/session`);
    expect(await session.json()).toEqual({ authenticated: true, user_id: "alice" });

    const refresh = await browser.fetch(`${stack.url}/auth/refresh`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ client_id: CLIENT_ID }),
    });
    expect(refresh.status).toBe(200);
    expect(await refresh.json()).toMatchObject({ authenticated: true });
    expect(stack.idp.calls["token:refresh_token"]).toBeGreaterThanOrEqual(1);
    expect((await (await browser.fetch(`${stack.url}/auth/session`)).json()).authenticated).toBe(true);

    const logout = await browser.fetch(`${stack.url}/auth/logout`, {
      method: "POST",
      headers: CSRF,
      body: "{}",
    });
    expect(logout.status).toBe(200);
    expect(await logout.json()).toEqual({ ok: true });
    expect(stack.idp.calls.revoke).toBeGreaterThanOrEqual(1);
    expect(await (await browser.fetch(`${stack.url}/auth/session`)).json()).toEqual({
      authenticated: false,
      reason: "no_session",
    });
  });

  test("signIn helper reaches an authenticated session", async () => {
    const { token, browser } = await signIn(stack, "bob");
    expect(token.status).toBe(200);
    expect(await (await browser.fetch(`${stack.url}/auth/session`)).json()).toEqual({
      authenticated: true,
      user_id: "bob",
    });
  });
});
