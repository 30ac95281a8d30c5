/**
 * Trust per app, over real sockets: a credential (session cookie or bearer token) belongs to one app
 * and is refused from any origin not registered for that app, on every route that reads or acts with
 * it, before anything changes; the refusal carries no CORS grant.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  APP_ORIGIN,
  CSRF,
  consentFlow,
  OTHER_CLIENT_ID,
  OTHER_ORIGIN,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ otherApp: true });
}, 60_000);
afterAll(() => stack.stop());

async function login(user: string, clientId?: string) {
  const { browser, token } = await signIn(stack, user, new Browser(), clientId);
  expect(token.status).toBe(200);
  const cookie = browser.cookieHeader(stack.url);
  const resolved = (await stack.running.gateway.sessions.resolve(cookie))!;
  return { cookie, row: resolved.row, accessToken: resolved.cookie.at };
}

const db = () => sql(stack.running.gateway.storage);
const counts = async () =>
  db().get(
    "SELECT (SELECT count(*) FROM resources) AS resources, (SELECT count(*) FROM members) AS members, (SELECT count(*) FROM sessions WHERE ended_at IS NULL) AS live",
  );

async function expectRefused(res: Response) {
  expect(res.status).toBe(403);
  expect(await res.json()).toMatchObject({ code: "origin_not_allowed" });
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
  expect(res.headers.get("access-control-allow-credentials")).toBeNull();
}

describe("a credential is used only from its own app's origins", () => {
  test("app A's session cookie from app B's origin: every read and write is 403 origin_not_allowed, nothing changes", async () => {
    const alice = await login("origin-alice");
    const team = await fetch(`${stack.url}/v1/resources`, {
      method: "POST",
      headers: { ...CSRF, cookie: alice.cookie, origin: APP_ORIGIN },
      body: JSON.stringify({ type: "team", name: "A's team" }),
    });
    expect(team.status).toBe(200);
    expect(team.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    const { id } = (await team.json()) as { id: string };
    const before = await counts();
    const row = (await stack.running.gateway.store.fresh(alice.row.id))!;
    const fromB = { ...CSRF, cookie: alice.cookie, origin: OTHER_ORIGIN };
    const calls: Array<[string, string, unknown?]> = [
      ["GET", "/v1/resources"],
      ["GET", `/v1/resources/${id}`],
      ["GET", `/v1/resources/${id}/members`],
      ["POST", `/v1/resources/${id}/invite`, { userId: "mallory" }],
      ["POST", "/v1/resources", { type: "team", name: "B made this" }],
      ["DELETE", `/v1/resources/${id}`],
      ["GET", "/v1/me"],
      ["GET", "/auth/session"],
      ["POST", "/auth/refresh", {}],
      ["POST", "/auth/logout", {}],
      [
        "POST",
        "/auth/token",
        {
          code: "x",
          code_verifier: "y".repeat(43),
          redirect_uri: stack.redirectUri,
          client_id: OTHER_CLIENT_ID,
        },
      ],
    ];
    for (const [method, path, body] of calls) {
      const res = await fetch(`${stack.url}${path}`, {
        method,
        headers: fromB,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await expectRefused(res);
    }
    expect(await counts()).toEqual(before);
    const after = (await stack.running.gateway.store.fresh(alice.row.id))!;
    expect(after.endedAt).toBeNull();
    expect(after.refreshHash).toBe(row.refreshHash);
    expect(stack.idp.calls["token:authorization_code"]).toBeGreaterThan(0);
    // From A's own origin, and from no origin at all (a server), the same cookie works.
    const mine = await fetch(`${stack.url}/v1/resources`, {
      headers: { cookie: alice.cookie, origin: APP_ORIGIN },
    });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect((await fetch(`${stack.url}/v1/resources`, { headers: { cookie: alice.cookie } })).status).toBe(
      200,
    );
  }, 60_000);

  test("an unregistered origin, or Origin: null, with a session cookie is refused the same way", async () => {
    const bob = await login("origin-bob");
    for (const origin of ["http://evil.example", "null", "http://127.0.0.1:1"]) {
      await expectRefused(
        await fetch(`${stack.url}/v1/resources`, { headers: { cookie: bob.cookie, origin } }),
      );
      await expectRefused(
        await fetch(`${stack.url}/auth/logout`, {
          method: "POST",
          headers: { ...CSRF, cookie: bob.cookie, origin },
        }),
      );
    }
    expect((await stack.running.gateway.store.fresh(bob.row.id))!.endedAt).toBeNull();
  }, 60_000);

  test("same-origin requests (the gateway's own pages) need no registration", async () => {
    const carol = await login("origin-carol");
    const res = await fetch(`${stack.url}/auth/session`, {
      headers: { cookie: carol.cookie, origin: stack.url },
    });
    expect(await res.json()).toEqual({ authenticated: true, user_id: "origin-carol" });
  }, 60_000);

  test("app A's bearer token from app B's origin is 403 origin_not_allowed; from A's origin it works", async () => {
    const dave = await login("origin-dave");
    const auth = { authorization: `Bearer ${dave.accessToken}` };
    await expectRefused(
      await fetch(`${stack.url}/v1/resources`, { headers: { ...auth, origin: OTHER_ORIGIN } }),
    );
    const ok = await fetch(`${stack.url}/v1/resources`, { headers: { ...auth, origin: APP_ORIGIN } });
    expect(ok.status).toBe(200);
  }, 60_000);

  test("B's origin cannot sign in over A's live session; once A signs out, the same code signs in to B", async () => {
    const browser = new Browser();
    const first = await signIn(stack, "origin-erin", browser);
    expect(first.token.status).toBe(200);
    const aCookie = browser.cookieHeader(stack.url);
    const aSession = (await stack.running.gateway.sessions.resolve(aCookie))!.row;
    // The same browser gets a code for app B's client.
    const flow = await consentFlow(stack, "origin-erin", OTHER_CLIENT_ID, browser);
    const { redirect_to } = (await (await flow.accept()).json()) as { redirect_to: string };
    const exchange = (origin: string) => flow.exchange(redirect_to, { headers: { origin } });
    const exchanges = stack.idp.calls["token:authorization_code"] ?? 0;
    await expectRefused(await exchange(OTHER_ORIGIN));
    expect(stack.idp.calls["token:authorization_code"] ?? 0).toBe(exchanges); // the code was never sent
    expect(browser.cookieHeader(stack.url)).toBe(aCookie);
    expect((await stack.running.gateway.store.fresh(aSession.id))!.endedAt).toBeNull();
    // Signed out of A (from A's origin), the browser signs in to B from B's origin.
    const out = await browser.fetch(`${stack.url}/auth/logout`, {
      method: "POST",
      headers: { ...CSRF, origin: APP_ORIGIN },
    });
    expect(out.status).toBe(200);
    const signedIn = await exchange(OTHER_ORIGIN);
    expect(signedIn.status).toBe(200);
    const bCookie = browser.cookieHeader(stack.url);
    expect((await stack.running.gateway.sessions.resolve(bCookie))!.row.clientId).toBe(OTHER_CLIENT_ID);
    // That session is B's: it reads from B's origin and is refused from A's.
    expect(
      (await fetch(`${stack.url}/v1/me`, { headers: { cookie: bCookie, origin: OTHER_ORIGIN } })).status,
    ).toBe(200);
    await expectRefused(
      await fetch(`${stack.url}/v1/me`, { headers: { cookie: bCookie, origin: APP_ORIGIN } }),
    );
  }, 60_000);

  test("a preflight from a registered origin is answered (it carries no credential)", async () => {
    const res = await fetch(`${stack.url}/v1/resources`, {
      method: "OPTIONS",
      headers: { origin: OTHER_ORIGIN, "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(OTHER_ORIGIN);
  });
});
