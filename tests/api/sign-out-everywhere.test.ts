/**
 * Signing out everywhere (`POST /auth/logout` with `everywhere: true`). Against the development
 * provider, over real sockets: the person's other sessions in this app end at once
 * (`signed_out_elsewhere`), the answer sends the browser to the provider's end_session endpoint with
 * the sign-in's ID token as `id_token_hint`, the client's registered `post_logout_redirect_uri` and the
 * page's `state`; the provider's confirmation comes back with that `state`, and its back-channel
 * logout ends the person's session in another app (B) too. Against a provider without an
 * end_session_endpoint: only this app's sessions of the person end, and the answer says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeJwt } from "jose";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { Browser } from "../helpers/browser.ts";
import { type FakeOidc, startFakeOidc } from "../helpers/fake-oidc.ts";
import { type InProcess, inProcess, sessionFor } from "../helpers/in-process.ts";
import { DocumentChecker } from "../helpers/openapi-check.ts";
import { CLIENT_ID, CSRF, OTHER_CLIENT_ID, type Stack, signIn, startStack } from "../helpers/stack.ts";

describe("with the development provider (end_session and back-channel logout)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ otherApp: true });
  }, 60_000);
  afterAll(() => stack.stop());

  const report = async (cookie: string) =>
    (await fetch(`${stack.url}/auth/session`, { headers: { cookie } })).json();

  /** Signs `user` in to `clientId` in `browser`, keeping its provider login; returns the gateway cookie. */
  async function login(user: string, clientId: string, browser: Browser): Promise<string> {
    for (const { name } of browser.cookies(stack.url)) browser.setCookie(stack.url, `${name}=; Max-Age=0`);
    const { token } = await signIn(stack, user, browser, clientId);
    expect(token.status).toBe(200);
    return browser.cookieHeader(stack.url);
  }

  test("app A's sign-out everywhere ends the provider login, and through it the session in app B", async () => {
    const browser = new Browser();
    const inA = await login("everywhere", CLIENT_ID, browser);
    const inB = await login("everywhere", OTHER_CLIENT_ID, browser);
    const otherDeviceA = await login("everywhere", CLIENT_ID, new Browser());
    const rowA = (await stack.running.gateway.sessions.resolve(inA))!.row;
    expect(await report(inB)).toEqual({ authenticated: true, user_id: "everywhere" });

    const res = await fetch(`${stack.url}/auth/logout`, {
      method: "POST",
      headers: { ...CSRF, cookie: inA },
      body: JSON.stringify({ client_id: CLIENT_ID, everywhere: true, state: "state-0123456789" }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    // The answer is the one the OpenAPI document describes.
    const checker = new DocumentChecker(await (await fetch(`${stack.url}/openapi.json`)).json());
    const recorded = {
      listener: "public" as const,
      method: "POST",
      status: 200,
      mediaType: "application/json",
    };
    expect(checker.problem({ ...recorded, path: "/auth/logout", body: text })).toBeUndefined();
    const body = JSON.parse(text) as {
      ok: boolean;
      ended: number;
      provider_logout: boolean;
      redirect_to: string;
    };
    expect(body).toMatchObject({ ok: true, ended: 1, provider_logout: true });
    const target = new URL(body.redirect_to);
    expect(`${target.origin}${target.pathname}`).toBe(`${stack.idp.issuer}/oauth2/sessions/logout`);
    expect(target.searchParams.get("post_logout_redirect_uri")).toBe(`${stack.url}/signed-out`);
    expect(target.searchParams.get("state")).toBe("state-0123456789");
    expect(target.searchParams.get("client_id")).toBe(CLIENT_ID);
    const hint = decodeJwt(target.searchParams.get("id_token_hint")!);
    expect([hint.sub, hint.aud]).toEqual(["everywhere", CLIENT_ID]);
    // Sealed on the row, never in clear.
    expect(rowA.idTokenSealed).toBeString();
    expect(rowA.idTokenSealed).not.toContain(target.searchParams.get("id_token_hint")!.split(".")[1]!);

    // This app's sessions ended at once: this browser's, and the person's other device.
    expect(await report(inA)).toEqual({ authenticated: false, reason: "signed_out" });
    expect(await report(otherDeviceA)).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
    expect(await report(inB)).toEqual({ authenticated: true, user_id: "everywhere" });

    // The browser goes to the provider and confirms; it comes back with the state.
    const page = await browser.fetch(target);
    expect(page.status).toBe(200);
    const html = await page.text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    const action = /action="([^"]+)"/.exec(html)?.[1];
    expect(xsrf).toBeString();
    const confirmed = await browser.follow(new URL(action!, stack.idp.issuer), {
      init: {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ xsrf: xsrf!, logout: "yes" }).toString(),
      },
      until: (next) => next.href.startsWith(`${stack.url}/signed-out`),
    });
    const back = new URL(confirmed.url);
    expect(`${back.origin}${back.pathname}`).toBe(`${stack.url}/signed-out`);
    expect(back.searchParams.get("state")).toBe("state-0123456789");
    // The provider's back-channel logout ended the person's session in app B before it answered.
    expect(await report(inB)).toEqual({ authenticated: false, reason: "provider_logout" });
  });
});

describe("with a provider that offers no end_session_endpoint", () => {
  const APPS: AppsFile = {
    apps: [
      { id: "a", clients: [{ clientId: "a-web", redirectUris: ["http://127.0.0.1:5999/callback"] }] },
      { id: "b", clients: [{ clientId: "b-web", redirectUris: ["http://127.0.0.1:5998/callback"] }] },
    ],
  };
  let oidc: FakeOidc;
  let gw: InProcess;
  beforeAll(async () => {
    oidc = await startFakeOidc();
    gw = await inProcess({ OIDC_ISSUER: oidc.url }, APPS);
  });
  afterAll(async () => {
    await gw.gateway.close();
    oidc.stop();
  });
  const report = async (headers: Record<string, string>) =>
    (await gw.handle("/auth/session", { headers: { cookie: headers.cookie! } })).json();

  test("ends the person's sessions in this app only, and says the provider's session is untouched", async () => {
    const here = await sessionFor(gw, "no-end", "a-web");
    const elsewhere = await sessionFor(gw, "no-end", "a-web");
    const otherApp = await sessionFor(gw, "no-end", "b-web");
    const res = await gw.handle("/auth/logout", {
      method: "POST",
      headers: here,
      body: JSON.stringify({ everywhere: true, state: "abcdefgh" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, ended: 1, provider_logout: false });
    expect(await report(here)).toEqual({ authenticated: false, reason: "signed_out" });
    expect(await report(elsewhere)).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
    expect((await report(otherApp)).authenticated).toBe(true);
  });

  test("a bad `everywhere` or `state` is a 400 and signs nobody out", async () => {
    const here = await sessionFor(gw, "bad-logout", "a-web");
    for (const body of [
      { everywhere: "yes" },
      { everywhere: true, state: "a b" },
      { everywhere: true, state: "x".repeat(300) },
    ]) {
      const res = await gw.handle("/auth/logout", {
        method: "POST",
        headers: here,
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request" });
    }
    expect((await report(here)).authenticated).toBe(true);
  });
});
