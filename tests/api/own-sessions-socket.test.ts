/**
 * A person's own sessions over a real socket, signed in through the development provider: two
 * browsers of one person list both sessions (each sees itself as current, the device read from the
 * User-Agent at sign-in); "sign out my other devices" from one ends the other, whose refresh token is
 * then inactive at the provider and whose cookie is refused with the reason `signed_out_elsewhere`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { DocumentChecker } from "../helpers/openapi-check.ts";
import { CSRF, introspect, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

async function login(user: string) {
  const browser = new Browser();
  const { token } = await signIn(stack, user, browser);
  expect(token.status).toBe(200);
  const cookie = browser.cookieHeader(stack.url);
  const resolved = await stack.running.gateway.sessions.resolve(cookie);
  return { cookie, id: resolved!.row.id, refreshToken: resolved!.cookie.rt! };
}

test("two browsers of one person: both listed, and revoke-others ends the other one everywhere", async () => {
  const laptop = await login("two-devices");
  const phone = await login("two-devices");
  const listed = await fetch(`${stack.url}/auth/sessions`, { headers: { cookie: laptop.cookie } });
  expect(listed.status).toBe(200);
  const text = await listed.text();
  // The answer is the one the OpenAPI document describes.
  const checker = new DocumentChecker(await (await fetch(`${stack.url}/openapi.json`)).json());
  const recorded = { listener: "public" as const, method: "GET", status: 200, mediaType: "application/json" };
  expect(checker.problem({ ...recorded, path: "/auth/sessions", body: text })).toBeUndefined();
  const { sessions } = JSON.parse(text) as {
    sessions: Array<{ id: string; current: boolean; device: string; client_id: string }>;
  };
  expect(sessions.map((s) => [s.id, s.current]).sort()).toEqual(
    [
      [laptop.id, true],
      [phone.id, false],
    ].sort(),
  );
  // This test's fetch sends Bun's User-Agent: neither a browser family nor a platform it names.
  expect(sessions[0]?.device).toBe("Unknown browser on unknown system");

  const ended = await fetch(`${stack.url}/auth/sessions/revoke-others`, {
    method: "POST",
    headers: { ...CSRF, cookie: laptop.cookie },
  });
  expect(ended.status).toBe(200);
  expect(await ended.json()).toEqual({ ok: true, ended: 1 });
  const phoneNow = await fetch(`${stack.url}/auth/session`, { headers: { cookie: phone.cookie } });
  expect(await phoneNow.json()).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
  const refresh = await fetch(`${stack.url}/auth/refresh`, {
    method: "POST",
    headers: { ...CSRF, cookie: phone.cookie },
    body: "{}",
  });
  expect(refresh.status).toBe(401);
  expect(await refresh.json()).toMatchObject({ code: "unauthenticated", reason: "signed_out_elsewhere" });
  expect((await introspect(stack, phone.refreshToken)).active).toBe(false);
  expect((await introspect(stack, laptop.refreshToken)).active).toBe(true);
});
