/**
 * The bearer cache's 60 s bound and its background re-check: a token in use 45 s after its check is
 * checked again while the request is answered from the cache; one that is not used expires at 60 s; a
 * re-check that says "revoked" is seen by the next call; a token forgotten (logout) while a check is in
 * flight is not cached again by that check. A subject's logout (`forgetSubject`) drops that subject's
 * checks and no other's, keeps a check asked before it from being cached, and lets one asked after it be.
 */
import { afterEach, expect, setSystemTime, test } from "bun:test";
import type { HydraClient } from "../../src/server/idp/hydra.ts";
import { TokenCache } from "../../src/server/idp/token-cache.ts";

afterEach(() => setSystemTime());

function provider() {
  const state = { active: true, calls: 0, release: undefined as (() => void) | undefined, hold: false };
  const hydra = {
    introspects: true,
    async introspect() {
      state.calls++;
      if (state.hold) await new Promise<void>((resolve) => (state.release = resolve));
      return state.active
        ? { active: true, sub: "u1", clientId: "web", tokenUse: "access_token" }
        : { active: false };
    },
    async userinfo() {
      return undefined;
    },
  } as unknown as HydraClient;
  return { hydra, state };
}

const T0 = new Date("2026-11-23T10:00:00Z").getTime();
const settle = () => Bun.sleep(5);

test("a token in use is re-checked in the background after 45 s and never misses", async () => {
  const { hydra, state } = provider();
  const cache = new TokenCache(hydra);
  setSystemTime(T0);
  expect(await cache.validate("tok")).toEqual({ userId: "u1", clientId: "web" });
  setSystemTime(T0 + 30_000);
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" });
  expect(state.calls).toBe(1);
  setSystemTime(T0 + 46_000);
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" }); // answered from the cache
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" }); // one re-check at a time
  await settle();
  expect(state.calls).toBe(2);
  setSystemTime(T0 + 100_000); // 54 s after the re-check
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" });
});

test("a token not used for 60 s is not answered from the cache", async () => {
  const { hydra } = provider();
  const cache = new TokenCache(hydra);
  setSystemTime(T0);
  await cache.validate("tok");
  setSystemTime(T0 + 60_001);
  expect(cache.peek("tok")).toBeUndefined();
});

test("a re-check that finds the token revoked is seen by the next call", async () => {
  const { hydra, state } = provider();
  const cache = new TokenCache(hydra);
  setSystemTime(T0);
  await cache.validate("tok");
  state.active = false;
  setSystemTime(T0 + 50_000);
  expect(cache.peek("tok")).not.toBeNull();
  await settle();
  expect(cache.peek("tok")).toBeNull();
});

test("a token forgotten while its re-check is in flight is not cached again by it", async () => {
  const { hydra, state } = provider();
  const cache = new TokenCache(hydra);
  setSystemTime(T0);
  await cache.validate("tok");
  state.hold = true;
  setSystemTime(T0 + 50_000);
  cache.peek("tok");
  await settle();
  cache.forget("tok");
  state.release?.();
  await settle();
  expect(cache.peek("tok")).toBeUndefined();
});

test("a subject's logout drops its cached checks, and no other subject's", async () => {
  const { hydra, state } = provider();
  const cache = new TokenCache(hydra);
  setSystemTime(T0);
  await cache.validate("tok");
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" });
  cache.forgetSubject("u2");
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" });
  cache.forgetSubject("u1");
  expect(cache.peek("tok")).toBeUndefined();
  state.active = false;
  expect(await cache.validate("tok")).toBeNull();
  expect(state.calls).toBe(2);
});

test("a check asked before the subject's logout and answered after it is not cached; one asked after is", async () => {
  const { hydra, state } = provider();
  const cache = new TokenCache(hydra);
  setSystemTime(T0);
  state.hold = true;
  const asked = cache.validate("tok");
  await settle();
  setSystemTime(T0 + 10);
  cache.forgetSubject("u1");
  state.release?.();
  expect(await asked).toEqual({ userId: "u1", clientId: "web" }); // its own request gets the answer
  expect(cache.peek("tok")).toBeUndefined();
  state.hold = false;
  setSystemTime(T0 + 20);
  expect(await cache.validate("tok")).toEqual({ userId: "u1", clientId: "web" });
  expect(cache.peek("tok")).toEqual({ userId: "u1", clientId: "web" });
  expect(state.calls).toBe(2);
});
