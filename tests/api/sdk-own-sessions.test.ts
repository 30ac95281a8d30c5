/**
 * The SDK's session calls against a real gateway and the development provider: `listSessions()`,
 * `revokeSession(id)` (an unknown id fails with `not_found`), `signOutOthers()`, and
 * `signOut({ everywhere: true })`, which sends the page to the provider's end_session endpoint with a
 * state that `handleSignOutCallback()` then accepts once and refuses when forged.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createClient, GatewayError } from "../../packages/sdk/src/index.ts";
import type { Browser } from "../../src/devidp/browser.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
const storage = new Map<string, string>();
let assigned = "";
const names = ["sessionStorage", "location", "history"] as const;
const originals = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
beforeAll(async () => {
  stack = await startStack();
  Object.assign(globalThis, {
    sessionStorage: {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => storage.set(k, v),
      removeItem: (k: string) => storage.delete(k),
    },
    location: {
      origin: "http://app.test",
      pathname: "/",
      href: "http://app.test/",
      assign: (url: string) => (assigned = url),
    },
    history: { state: null, replaceState: () => {} },
  });
}, 60_000);
afterAll(() => {
  names.forEach((name, i) => {
    const original = originals[i];
    if (original) Object.defineProperty(globalThis, name, original);
    else delete (globalThis as Record<string, unknown>)[name];
  });
  return stack.stop();
});

const clientOf = (browser: Browser) =>
  createClient({
    gatewayUrl: stack.url,
    clientId: "test-web",
    fetch: (url, init) => browser.fetch(String(url), init),
  });

test("listSessions, revokeSession, signOutOthers", async () => {
  const laptop = clientOf((await signIn(stack, "sdk-devices")).browser);
  const phone = clientOf((await signIn(stack, "sdk-devices")).browser);
  const tablet = clientOf((await signIn(stack, "sdk-devices")).browser);
  const listed = await laptop.auth.listSessions();
  expect(listed).toHaveLength(3);
  expect(listed.filter((s) => s.current)).toHaveLength(1);
  expect(listed[0]).toMatchObject({ clientId: "test-web", device: "Unknown browser on unknown system" });
  expect(Number.isNaN(Date.parse(listed[0]!.lastSeenAt))).toBe(false);

  const tabletId = (await tablet.auth.listSessions()).find((s) => s.current)!.id;
  await laptop.auth.revokeSession(tabletId);
  expect(await tablet.auth.getSession()).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
  const again = await laptop.auth.revokeSession(tabletId).catch((e: unknown) => e);
  expect(again).toBeInstanceOf(GatewayError);
  expect(again).toMatchObject({ status: 404, code: "not_found" });

  expect(await laptop.auth.signOutOthers()).toBe(1);
  expect(await phone.auth.getSession()).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
  expect((await laptop.auth.listSessions()).map((s) => s.current)).toEqual([true]);
});

test("signOut({ everywhere: true }) goes to the provider with a state handleSignOutCallback checks", async () => {
  const page = clientOf((await signIn(stack, "sdk-everywhere")).browser);
  const other = clientOf((await signIn(stack, "sdk-everywhere")).browser);
  const result = await page.auth.signOut({ everywhere: true });
  expect(result).toEqual({ otherSessionsEnded: 1, providerLogout: true });
  const target = new URL(assigned);
  expect(target.pathname).toBe("/oauth2/sessions/logout");
  const state = target.searchParams.get("state")!;
  expect(state.length).toBeGreaterThanOrEqual(43);
  expect(await other.auth.getSession()).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });

  expect(() => page.auth.handleSignOutCallback("http://app.test/?state=forged")).toThrow(GatewayError);
  // A forged state used the pending one up: the real one is no longer accepted either.
  expect(page.auth.handleSignOutCallback(`http://app.test/?state=${state}`)).toBe(false);

  await page.auth.signOut({ everywhere: true }).catch(() => {}); // nobody signed in: nothing to end
  const next = await clientOf((await signIn(stack, "sdk-everywhere")).browser).auth.signOut({
    everywhere: true,
  });
  expect(next.providerLogout).toBe(true);
  const fresh = new URL(assigned).searchParams.get("state")!;
  expect(page.auth.handleSignOutCallback("http://app.test/")).toBe(false); // no state in the address
  expect(page.auth.handleSignOutCallback(`http://app.test/?state=${fresh}`)).toBe(true);
  expect(page.auth.handleSignOutCallback(`http://app.test/?state=${fresh}`)).toBe(false); // once
});
