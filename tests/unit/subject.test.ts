/**
 * The provider's subject rule (idp/subject.ts), table-driven, and the bearer cache applying it in both
 * modes (introspection and userinfo): a refused subject is not a principal, and the answer is cached
 * like any invalid token (one provider call).
 */
import { expect, test } from "bun:test";
import type { HydraClient } from "../../src/server/idp/hydra.ts";
import { SUBJECT_MAX_LENGTH, subjectRefusal } from "../../src/server/idp/subject.ts";
import { TokenCache } from "../../src/server/idp/token-cache.ts";

test.each([
  ["a UUID", "9f0c2b1e-4a4b-4c1d-8d53-3c7e2f0a9b11", true],
  ["a provider-prefixed id", "auth0|5f7c1a2b3c", true],
  ["an e-mail address", "zoë@example.org", true],
  ["another script", "ユーザー", true],
  ["a space inside", "two words", true],
  ["the longest", "s".repeat(SUBJECT_MAX_LENGTH), true],
  ["empty", "", false],
  ["one too long", "s".repeat(SUBJECT_MAX_LENGTH + 1), false],
  ["an ESC sequence", "\u001b[31mred", false],
  ["a BEL", "bell\u0007", false],
  ["DEL", "a\u007fb", false],
  ["a C1 CSI", "a\u009b2J", false],
  ["a newline", "a\nb", false],
  ["a bidi override", "a\u202eb", false],
  ["a bidi isolate", "a\u2066b", false],
  ["a zero-width space", "a\u200bb", false],
  ["a zero-width joiner", "a\u200db", false],
  ["the BOM", "\ufeffa", false],
  ["a line separator", "a\u2028b", false],
  ["a paragraph separator", "a\u2029b", false],
  ["a lone surrogate", "a\ud800b", false],
])("%s: accepted %p", (_, subject, accepted) => {
  expect(subjectRefusal(subject) === undefined).toBe(accepted);
});

function provider(introspects: boolean, sub: string) {
  const calls = { introspect: 0, userinfo: 0 };
  const hydra = {
    introspects,
    async introspect() {
      calls.introspect++;
      return { active: true, sub, clientId: "web", tokenUse: "access_token" };
    },
    async userinfo() {
      calls.userinfo++;
      return { sub };
    },
  } as unknown as HydraClient;
  return { hydra, calls };
}

test.each([true, false])(
  "introspection %p: a refused subject is no principal, cached",
  async (introspects) => {
    const { hydra, calls } = provider(introspects, "\u001b]0;owned\u0007mallory");
    const cache = new TokenCache(hydra);
    expect(await cache.validate("tok")).toBeNull();
    expect(cache.peek("tok")).toBeNull();
    expect(await cache.validate("tok")).toBeNull();
    expect(calls.introspect + calls.userinfo).toBe(1);
  },
);

test.each([true, false])("introspection %p: an ordinary subject is a principal", async (introspects) => {
  const { hydra } = provider(introspects, "auth0|zoë");
  const cache = new TokenCache(hydra);
  expect((await cache.validate("tok"))?.userId).toBe("auth0|zoë");
});
