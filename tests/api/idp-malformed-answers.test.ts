/**
 * A 200 from the provider that does not have the documented shape is a provider failure, not a
 * verdict on the token: 502 idp_unavailable, and nothing is cached (the next call asks again), so a
 * provider hiccup never turns a valid bearer into 60 s of 401s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TokenCheckLimiter } from "../../src/server/http/token-checks.ts";
import type { RunningGateway } from "../../src/server/serve.ts";
import {
  type Behaviour,
  discoveryOf,
  type FakeIdp,
  gatewayOnFake,
  startFakeIdp,
} from "../helpers/fake-idp.ts";

let fake: FakeIdp;
let answer: unknown;
let introspectGw: RunningGateway;
let userinfoGw: RunningGateway;

function behave(_method: string, path: string): Behaviour {
  if (path === "/.well-known/openid-configuration") return { kind: "json", body: discoveryOf(fake.url) };
  if (path === "/admin/oauth2/introspect" || path === "/userinfo") return { kind: "json", body: answer };
  return { kind: "json", status: 404, body: { error: "not_found" } };
}

beforeAll(async () => {
  fake = await startFakeIdp(behave);
  introspectGw = await gatewayOnFake(fake);
  userinfoGw = await gatewayOnFake(fake, { adminKey: false });
  // These tests ask the provider more than the per-address burst allows, on purpose.
  for (const gw of [introspectGw, userinfoGw])
    gw.gateway.tokenChecks = new TokenCheckLimiter({ burst: 1000, perSecond: 1000, addresses: 10 });
}, 60_000);

afterAll(async () => {
  await introspectGw.stop();
  await userinfoGw.stop();
  await fake.stop();
}, 30_000);

const me = (gw: RunningGateway, token: string) =>
  fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: `Bearer ${token}` } });

async function expectIdpUnavailable(res: Response) {
  expect(res.status).toBe(502);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "error"]);
  expect(body.code).toBe("idp_unavailable");
}

describe("a malformed introspection answer", () => {
  const shapes: Array<[string, unknown]> = [
    ["not an object (array)", [{ active: true, sub: "alice" }]],
    ["not an object (string)", "active"],
    ["null", null],
    ["active missing", { sub: "alice" }],
    ["active not a boolean", { active: "true", sub: "alice" }],
    ["active without sub", { active: true }],
    ["active with a non-string sub", { active: true, sub: 42 }],
  ];
  for (const [name, shape] of shapes) {
    test(`${name}: 502 idp_unavailable and nothing cached, the next call asks again`, async () => {
      const token = `t-${crypto.randomUUID()}`;
      answer = shape;
      const before = fake.calls["/admin/oauth2/introspect"] ?? 0;
      await expectIdpUnavailable(await me(introspectGw, token));
      await expectIdpUnavailable(await me(introspectGw, token));
      expect((fake.calls["/admin/oauth2/introspect"] ?? 0) - before).toBe(2);
      // The provider recovers: the same token is valid at once (no cached "invalid").
      answer = { active: true, sub: "alice", client_id: "web" };
      const ok = await me(introspectGw, token);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ userId: "alice", clientId: "web", appId: "main", via: "bearer" });
      expect((fake.calls["/admin/oauth2/introspect"] ?? 0) - before).toBe(3);
    });
  }

  test("a well-formed inactive answer is still a cached 401", async () => {
    const token = `t-${crypto.randomUUID()}`;
    answer = { active: false };
    const before = fake.calls["/admin/oauth2/introspect"] ?? 0;
    for (let i = 0; i < 2; i++) expect((await me(introspectGw, token)).status).toBe(401);
    expect((fake.calls["/admin/oauth2/introspect"] ?? 0) - before).toBe(1);
  });
});

describe("a malformed userinfo answer", () => {
  for (const [name, shape] of [
    ["no sub", { email: "a@example.com" }],
    ["a non-string sub", { sub: 7 }],
    ["not an object", ["alice"]],
  ] as Array<[string, unknown]>) {
    test(`200 with ${name}: 502 idp_unavailable and nothing cached`, async () => {
      const token = `t-${crypto.randomUUID()}`;
      answer = shape;
      const before = fake.calls["/userinfo"] ?? 0;
      await expectIdpUnavailable(await me(userinfoGw, token));
      await expectIdpUnavailable(await me(userinfoGw, token));
      expect((fake.calls["/userinfo"] ?? 0) - before).toBe(2);
      answer = { sub: "alice" };
      const ok = await me(userinfoGw, token);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { userId: string }).userId).toBe("alice");
    });
  }
});
