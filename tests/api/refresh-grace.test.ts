/**
 * Refresh never signs anyone out by accident, and never lets a copy keep the session: the rotation grace
 * lives on the session row (a restart or another process answers the previous cookie with the current
 * session); only the immediately previous token gets it; a lost refresh answer is answered again after
 * the grace while the new token was never presented (bounded), and is theft once it has been; a refresh
 * the gateway gave up on is finished in the background and stored, and two processes rotating one
 * session make one provider call. Real sockets, the development provider, both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { CSRF, introspect, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

async function login(user: string, target = stack) {
  const { browser, token } = await signIn(target, user, new Browser());
  expect(token.status).toBe(200);
  const cookie = browser.cookieHeader(target.url);
  const resolved = (await target.running.gateway.sessions.resolve(cookie))!;
  return { cookie, row: resolved.row };
}

const refresh = (url: string, cookie: string) =>
  fetch(`${url}/auth/refresh`, { method: "POST", headers: { ...CSRF, cookie }, body: "{}" });
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
describe("the rotation grace survives a restart", () => {
  test("after a restart inside the grace, the previous cookie gets the current session and its cookie", async () => {
    const { cookie: previous, row } = await login("grace-restart");
    const first = await refresh(stack.url, previous);
    expect(first.status).toBe(200);
    const current = cookieOf(first);
    await stack.restart();
    const again = await refresh(stack.url, previous);
    expect(again.status).toBe(200);
    expect((await again.json()) as object).toMatchObject({ authenticated: true });
    expect(cookieOf(again)).toBe(current); // the current session's cookie, from the row
    expect((await fetch(`${stack.url}/v1/me`, { headers: { cookie: cookieOf(again) } })).status).toBe(200);
    expect((await stack.running.gateway.store.fresh(row.id))!.endedAt).toBeNull();
  }, 60_000);

  test("a cookie two rotations old is theft even inside the grace: the session ends and its grant is revoked", async () => {
    const { cookie: oldest, row } = await login("grace-two");
    const one = cookieOf(await refresh(stack.url, oldest));
    const two = await refresh(stack.url, one);
    expect(two.status).toBe(200);
    const newest = (await stack.running.gateway.sessions.resolve(cookieOf(two)))!.cookie;
    const calls = stack.idp.calls["token:refresh_token"] ?? 0;
    const stale = await refresh(stack.url, oldest);
    expect(stale.status).toBe(401);
    expect(await stale.json()).toMatchObject({ code: "unauthenticated", reason: "reused" });
    expect(stale.headers.getSetCookie().some((c) => /Max-Age=0/.test(c))).toBe(true);
    expect(stack.idp.calls["token:refresh_token"] ?? 0).toBe(calls); // never replayed at the provider
    const ended = (await stack.running.gateway.store.fresh(row.id))!;
    expect(ended.endReason).toBe("refresh_reuse");
    expect((await introspect(stack, newest.rt!)).active).toBe(false);
  }, 60_000);
});

describe("a lost refresh answer (the previous token retried after the grace)", () => {
  const GRACE_MS = 300;
  const LOST_ANSWER_MS = 2500;
  let lossy: Stack;
  beforeAll(async () => {
    lossy = await startStack({ config: { rotationGraceMs: GRACE_MS, lostAnswerGraceMs: LOST_ANSWER_MS } });
  }, 60_000);
  afterAll(() => lossy?.stop());

  const me = (url: string, cookie: string) => fetch(`${url}/v1/me`, { headers: { cookie } });
  const reuseEvents = async () =>
    (
      await lossy.running.gateway.storage.all<{ data: string }>("SELECT data FROM events WHERE type = $1", [
        "session.reuse_detected",
      ])
    ).map((e) => JSON.parse(e.data) as { sessionId: string });

  test("gets the new session from any process while the new token was never presented; once it is, the previous one is theft", async () => {
    const other = await lossy.another();
    try {
      const { cookie: previous, row } = await login("lost-answer", lossy);
      const answered = await refresh(lossy.url, previous);
      expect(answered.status).toBe(200);
      const current = cookieOf(answered); // the answer the phone never received
      await Bun.sleep(GRACE_MS + 200);
      const calls = lossy.idp.calls["token:refresh_token"] ?? 0;
      for (const url of [other.publicUrl, lossy.url]) {
        const retry = await refresh(url, previous);
        expect(retry.status).toBe(200);
        expect(cookieOf(retry)).toBe(current);
        expect(retry.headers.getSetCookie().some((c) => /Max-Age=0/.test(c))).toBe(false);
      }
      expect(lossy.idp.calls["token:refresh_token"] ?? 0).toBe(calls);
      expect((await lossy.running.gateway.store.fresh(row.id))!.currentSeenAt).toBeNull();
      // The phone uses its new cookie (through the other process): the new token has been presented.
      expect((await me(other.publicUrl, current)).status).toBe(200);
      expect((await lossy.running.gateway.store.fresh(row.id))!.currentSeenAt).not.toBeNull();
      const tokens = (await lossy.running.gateway.sessions.resolve(current))!.cookie;
      const stolen = await refresh(lossy.url, previous);
      expect(stolen.status).toBe(401);
      expect(await stolen.json()).toMatchObject({ reason: "reused" });
      expect((await lossy.running.gateway.store.fresh(row.id))!.endReason).toBe("refresh_reuse");
      expect(await reuseEvents()).toContainEqual(expect.objectContaining({ sessionId: row.id }));
      expect((await introspect(lossy, tokens.rt!)).active).toBe(false);
      expect((await me(lossy.url, current)).status).toBe(401);
    } finally {
      await other.stop();
    }
  }, 60_000);

  test("the real theft: the victim refreshed and went on; the thief's copy after the grace ends the session", async () => {
    const { cookie: copied, row } = await login("lost-theft", lossy);
    const victim = cookieOf(await refresh(lossy.url, copied));
    expect((await me(lossy.url, victim)).status).toBe(200);
    await Bun.sleep(GRACE_MS + 200);
    const thief = await refresh(lossy.url, copied);
    expect(thief.status).toBe(401);
    expect(thief.headers.get("set-cookie")).not.toContain(victim.split("=")[1]);
    const ended = (await lossy.running.gateway.store.fresh(row.id))!;
    expect(ended.endReason).toBe("refresh_reuse");
    expect((await me(lossy.url, victim)).status).toBe(401);
    expect(await reuseEvents()).toContainEqual(expect.objectContaining({ sessionId: row.id }));
  }, 60_000);

  test("bounded: after the lost-answer window the previous token is theft, presented or not", async () => {
    const { cookie: previous, row } = await login("lost-late", lossy);
    expect((await refresh(lossy.url, previous)).status).toBe(200);
    await Bun.sleep(LOST_ANSWER_MS + 200);
    const late = await refresh(lossy.url, previous);
    expect(late.status).toBe(401);
    expect((await lossy.running.gateway.store.fresh(row.id))!.endReason).toBe("refresh_reuse");
  }, 60_000);
});

describe("two processes on one database", () => {
  test("refreshing the same cookie at once through both makes one provider call; both get the session", async () => {
    const other = await stack.another();
    try {
      const { cookie, row } = await login("grace-pair");
      const calls = stack.idp.calls["token:refresh_token"] ?? 0;
      const [a, b] = await Promise.all([refresh(stack.url, cookie), refresh(other.publicUrl, cookie)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(stack.idp.calls["token:refresh_token"] ?? 0).toBe(calls + 1);
      expect(cookieOf(a)).toBe(cookieOf(b));
      const tokens = (await stack.running.gateway.sessions.resolve(cookieOf(a)))!.cookie;
      expect((await introspect(stack, tokens.rt!)).active).toBe(true);
      expect((await stack.running.gateway.store.fresh(row.id))!.endedAt).toBeNull();
    } finally {
      await other.stop();
    }
  }, 60_000);
});

describe("a refresh the gateway gave up on", () => {
  const DELAY_MS = 900;
  let slow: Stack;
  beforeAll(async () => {
    // A provider that completes refreshes, then answers late: the gateway stops waiting at 300 ms.
    slow = await startStack({ config: { refreshWaitMs: 300 } });
  });
  afterAll(() => slow?.stop());

  test("answers 502, stores the rotation when it arrives, and the next refresh gets it: the grant survives", async () => {
    const { cookie, row } = await login("grace-slow", slow);
    slow.idp.delayTokenResponses(DELAY_MS);
    const calls = slow.idp.calls["token:refresh_token"] ?? 0;
    const gaveUp = await refresh(slow.url, cookie);
    expect(gaveUp.status).toBe(502);
    expect(await gaveUp.json()).toMatchObject({ code: "idp_unavailable" });
    // A second refresh while the first is still at the provider waits for it instead of calling again.
    await Bun.sleep(DELAY_MS - 200);
    const next = await refresh(slow.url, cookie);
    expect(next.status).toBe(200);
    expect(slow.idp.calls["token:refresh_token"] ?? 0).toBe(calls + 1);
    const current = (await slow.running.gateway.sessions.resolve(cookieOf(next)))!;
    expect(current.row.id).toBe(row.id);
    expect((await introspect(slow, current.cookie.rt!)).active).toBe(true);
    // And later refreshes keep working: the session was never left on a spent token.
    await Bun.sleep(DELAY_MS);
    const later = await refresh(slow.url, cookieOf(next));
    expect(later.status).toBe(502); // slow again, but stored in the background…
    await Bun.sleep(DELAY_MS + 100);
    const after = await refresh(slow.url, cookieOf(next));
    expect(after.status).toBe(200);
    expect((await slow.running.gateway.store.fresh(row.id))!.endedAt).toBeNull();
  }, 60_000);
});
