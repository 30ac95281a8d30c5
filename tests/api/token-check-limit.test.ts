/**
 * Unauthenticated callers cannot make the gateway ask the provider about any number of random tokens:
 * bearer cache misses are bounded per client address (a burst of 20, then 5 per second); over it, 429
 * too_many_token_checks with Retry-After and no provider call. Cache hits stay free, and so do
 * tokens the provider answers valid (many users behind one address). Over real sockets, since the
 * client address is the socket's.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { RunningGateway } from "../../src/server/serve.ts";
import {
  type Behaviour,
  discoveryOf,
  type FakeIdp,
  gatewayOnFake,
  startFakeIdp,
} from "../helpers/fake-idp.ts";

const INTROSPECT = "/admin/oauth2/introspect";
let fake: FakeIdp;
let gw: RunningGateway;
let introspection: Record<string, unknown> = { active: false };

function behave(_method: string, path: string): Behaviour {
  if (path === "/.well-known/openid-configuration") return { kind: "json", body: discoveryOf(fake.url) };
  if (path === INTROSPECT) return { kind: "json", body: introspection };
  return { kind: "json", status: 404, body: { error: "not_found" } };
}

beforeAll(async () => {
  fake = await startFakeIdp(behave);
  gw = await gatewayOnFake(fake);
}, 60_000);

afterAll(async () => {
  await gw.stop();
  await fake.stop();
}, 30_000);

const me = (token: string) =>
  fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: `Bearer ${token}` } });

test("random bearer tokens from one address are cut at 429 too_many_token_checks without calling the provider", async () => {
  const known = `known-${crypto.randomUUID()}`;
  const before = fake.calls[INTROSPECT] ?? 0;
  expect((await me(known)).status).toBe(401); // a miss, now cached
  for (let i = 0; i < 19; i++) expect((await me(`rand-${crypto.randomUUID()}`)).status).toBe(401);
  expect((fake.calls[INTROSPECT] ?? 0) - before).toBe(20);

  const over = await me(`rand-${crypto.randomUUID()}`);
  expect(over.status).toBe(429);
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  const body = (await over.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "error"]);
  expect(body.code).toBe("too_many_token_checks");
  expect((fake.calls[INTROSPECT] ?? 0) - before).toBe(20);

  // Cache hits are free: the known token still gets its cached answer, with no provider call.
  for (let i = 0; i < 5; i++) expect((await me(known)).status).toBe(401);
  expect((fake.calls[INTROSPECT] ?? 0) - before).toBe(20);

  // Concurrent requests for one uncached token share one provider call, and are charged once.
  await Bun.sleep(250);
  const shared = `shared-${crypto.randomUUID()}`;
  const together = await Promise.all(Array.from({ length: 10 }, () => me(shared)));
  expect(together.map((r) => r.status)).toEqual(Array(10).fill(401));
  expect((fake.calls[INTROSPECT] ?? 0) - before).toBe(21);

  // The bucket refills (5 per second): after a short wait one more miss goes through.
  await Bun.sleep(250);
  expect((await me(`rand-${crypto.randomUUID()}`)).status).toBe(401);
  expect((fake.calls[INTROSPECT] ?? 0) - before).toBe(22);
});

test("valid tokens do not spend the address's checks: 60 users' tokens from one address all pass", async () => {
  await Bun.sleep(4500); // the bucket is full again (5 per second, at most 20)
  introspection = { active: true, sub: "nat-user", client_id: "web", token_use: "access_token" };
  try {
    const before = fake.calls[INTROSPECT] ?? 0;
    for (let i = 0; i < 60; i++) expect((await me(`valid-${i}-${crypto.randomUUID()}`)).status).toBe(200);
    expect((fake.calls[INTROSPECT] ?? 0) - before).toBe(60);
  } finally {
    introspection = { active: false };
  }
  // Refused tokens still spend them: the burst is whole, then the 21st refused token is cut.
  for (let i = 0; i < 20; i++) expect((await me(`rand-${crypto.randomUUID()}`)).status).toBe(401);
  expect((await me(`rand-${crypto.randomUUID()}`)).status).toBe(429);
}, 20_000);
