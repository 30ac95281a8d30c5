/**
 * Bearer cache misses are paced per client address, never refused: a token the provider accepts is
 * never answered 429, however much junk its address sent before or however many tokens arrive at
 * once; junk spends the address's credit (20, refilled at 5 per second) and then waits its turn. A
 * waiting check whose client hangs up is dropped without a provider call. Behind a trusted proxy
 * (TRUSTED_PROXIES) the client is the X-Forwarded-For address, so one client's junk never holds up
 * another's. Over real sockets, since the client address is the socket's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TokenCheckLimiter } from "../../src/server/http/token-checks.ts";
import { TrustedProxies } from "../../src/server/http/trusted-proxies.ts";
import type { RunningGateway } from "../../src/server/serve.ts";
import {
  type Behaviour,
  discoveryOf,
  type FakeIdp,
  gatewayOnFake,
  startFakeIdp,
} from "../helpers/fake-idp.ts";
import { getFrom } from "../helpers/raw-http.ts";

const INTROSPECT = "/admin/oauth2/introspect";
let fake: FakeIdp;
let direct: RunningGateway;
let proxied: RunningGateway;

/** Tokens starting with "valid-" are active (user = the rest of the token); any other is not. */
function behave(_method: string, path: string, body: string): Behaviour {
  if (path === "/.well-known/openid-configuration") return { kind: "json", body: discoveryOf(fake.url) };
  if (path !== INTROSPECT) return { kind: "json", status: 404, body: { error: "not_found" } };
  const token = new URLSearchParams(body).get("token") ?? "";
  return {
    kind: "json",
    body: token.startsWith("valid-")
      ? { active: true, sub: token.slice(6, 40), client_id: "web", token_use: "access_token" }
      : { active: false },
  };
}

beforeAll(async () => {
  fake = await startFakeIdp(behave);
  direct = await gatewayOnFake(fake);
  proxied = await gatewayOnFake(fake, { config: { trustedProxies: TrustedProxies.parse("127.0.0.1") } });
}, 60_000);

afterAll(async () => {
  await direct.stop();
  await proxied.stop();
  await fake.stop();
}, 30_000);

const calls = () => fake.calls[INTROSPECT] ?? 0;
const junk = () => `junk-${crypto.randomUUID()}`;
const valid = () => `valid-${crypto.randomUUID()}`;
const me = (base: string, token: string) =>
  fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${token}` } });

describe("one client address, straight to the gateway", () => {
  test("after a burst of refused tokens, a valid token from the same address is answered 200, never 429", async () => {
    const before = calls();
    const refused = await Promise.all(Array.from({ length: 25 }, () => me(direct.publicUrl, junk())));
    expect(refused.map((r) => r.status)).toEqual(Array(25).fill(401));
    expect(calls() - before).toBe(25); // every junk token asked once: paced, not cut

    const answer = await me(direct.publicUrl, valid());
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { via: string }).via).toBe("bearer");
  }, 30_000);

  test("60 valid first uses at once from one address: every one 200", async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, () => me(direct.publicUrl, valid())));
    expect(answers.map((r) => r.status)).toEqual(Array(60).fill(200));
  }, 30_000);

  test("a check waiting for credit whose client hangs up is dropped: the provider is never asked for it", async () => {
    const limiter = direct.gateway.tokenChecks;
    direct.gateway.tokenChecks = new TokenCheckLimiter({ burst: 2, perSecond: 2, addresses: 10 });
    try {
      const url = `${direct.publicUrl}/v1/me`;
      const ask = (token: string, timeoutMs?: number) =>
        getFrom("127.0.0.1", url, { authorization: `Bearer ${token}` }, timeoutMs);
      await Promise.all([ask(junk()), ask(junk())]);
      const before = calls();
      // No credit left: this client gives up while its check waits for the refill.
      const gaveUp = await ask(junk(), 100);
      expect([gaveUp.timedOut, gaveUp.status]).toEqual([true, 0]);
      // The next check of the address waits for the refill and is the one asked: the abandoned check
      // (ahead of it in line) was dropped, never sent to the provider.
      expect((await ask(valid())).status).toBe(200);
      expect(calls() - before).toBe(1);
    } finally {
      direct.gateway.tokenChecks = limiter;
    }
  }, 30_000);
});

describe("behind a trusted proxy (TRUSTED_PROXIES=127.0.0.1)", () => {
  test("the client is the forwarded address: junk from one never costs another anything", async () => {
    const limiter = proxied.gateway.tokenChecks;
    proxied.gateway.tokenChecks = new TokenCheckLimiter({ burst: 2, perSecond: 0, addresses: 10 });
    try {
      const url = `${proxied.publicUrl}/v1/me`;
      const from = (client: string, token: string, timeoutMs?: number) =>
        getFrom(
          "127.0.0.1",
          url,
          { authorization: `Bearer ${token}`, "x-forwarded-for": `203.0.113.99, ${client}` },
          timeoutMs,
        );
      // Client A spends its credit; its next check waits (here for ever: no refill).
      for (let i = 0; i < 2; i++) expect((await from("198.51.100.1", junk())).status).toBe(401);
      expect((await from("198.51.100.1", valid(), 300)).timedOut).toBe(true);
      // Client B, behind the same proxy, is answered at once; so is a third with junk.
      expect((await from("198.51.100.2", valid())).status).toBe(200);
      expect((await from("198.51.100.3", junk())).status).toBe(401);
    } finally {
      proxied.gateway.tokenChecks = limiter;
    }
  }, 30_000);

  test("a peer that is not a trusted proxy is the client, whatever X-Forwarded-For it sends", async () => {
    const limiter = proxied.gateway.tokenChecks;
    proxied.gateway.tokenChecks = new TokenCheckLimiter({ burst: 2, perSecond: 0, addresses: 10 });
    try {
      const url = `${proxied.publicUrl}/v1/me`;
      // 127.0.0.2 forges a new address on every request: its credit is spent all the same.
      const forged = (token: string, timeoutMs?: number) =>
        getFrom(
          "127.0.0.2",
          url,
          {
            authorization: `Bearer ${token}`,
            "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250)}`,
          },
          timeoutMs,
        );
      for (let i = 0; i < 2; i++) expect((await forged(junk())).status).toBe(401);
      // Believed, the forged address would have fresh credit and an answer at once: it waits instead.
      expect((await forged(junk(), 300)).timedOut).toBe(true);
    } finally {
      proxied.gateway.tokenChecks = limiter;
    }
  }, 30_000);
});
