/**
 * Look-alike text, field by field, through the routes: every string a /v1/resources call takes (names,
 * user ids, types, roles, slugs, the browse query) refuses format characters (bidi overrides,
 * zero-width characters) and lone surrogates with 400 `invalid_request` naming the field, as it
 * refuses control characters, and nothing is stored. Joiners are allowed in names only between two
 * visible characters. Names and browse queries are compared in NFC.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { expectError, type Json, makeKit } from "../helpers/resources-kit.ts";

const k = await makeKit();
afterAll(() => k.gw.gateway.close());

const BAD: Array<[string, string]> = [
  ["a bidi override", "a\u202Eb"],
  ["a zero-width space", "a\u200Bb"],
  ["only a zero-width space", "\u200B"],
  ["a zero-width joiner", "a\u200Db"],
  ["a lone surrogate", "a\uD800b"],
  ["a control character", "a\u0007b"],
];

/** Sends the body as raw JSON (JSON.stringify escapes a lone surrogate as \ud800, which JSON.parse keeps). */
async function send(user: string, method: string, path: string, body?: Json) {
  return k.call(user, method, path, undefined, body === undefined ? {} : { rawBody: JSON.stringify(body) });
}

async function expectRefused(user: string, method: string, path: string, body: Json, field: string) {
  const before = await k.snapshot();
  const reply = await send(user, method, path, body);
  expectError(reply, 400, "invalid_request");
  expect(reply.body.error).toContain(field);
  expect(await k.snapshot()).toEqual(before);
}

describe("every body field refuses look-alike text", () => {
  test.each(BAD)("the type of a new resource with %s is 400 naming type", async (_label, text) => {
    await k.users("lf-user");
    await expectRefused("lf-user", "POST", "/v1/resources", { type: `team${text}`, name: "n" }, "type");
  });

  test.each(BAD)("a role with %s (invite and request) is 400 naming role", async (_label, text) => {
    const team = await k.create("lf-owner", "team", "role team");
    await k.users("lf-asker");
    await expectRefused(
      "lf-owner",
      "POST",
      `/v1/resources/${team.id}/invite`,
      { userId: "u", role: text },
      "role",
    );
    await expectRefused("lf-asker", "POST", `/v1/resources/${team.id}/request`, { role: text }, "role");
  });

  test.each(BAD)(
    "a user id with %s in accept, reject, setRole and remove is 400 naming userId",
    async (_l, text) => {
      const team = await k.create("lf-admin", "team", "user id team");
      for (const [path, body] of [
        ["invite", { userId: text }],
        ["accept", { userId: text }],
        ["reject", { userId: text }],
        ["setRole", { userId: text, role: "reader" }],
        ["remove", { userId: text }],
      ] as const)
        await expectRefused("lf-admin", "POST", `/v1/resources/${team.id}/${path}`, body, "userId");
    },
  );
});

describe("names: joiners between visible characters only", () => {
  test.each([
    ["a joiner at the start", "\u200Dword"],
    ["only a joiner", "\u200D"],
    ["a joiner before a space", "a\u200D b"],
    ["a joiner after a space", "a \u200Cb"],
    ["two joiners in a row", "a\u200D\u200Db"],
    ["a joiner next to another format character", "a\u200D\u2060b"],
  ])("a name with %s is 400 naming name, nothing stored", async (_label, name) => {
    await k.users("lf-namer");
    await expectRefused("lf-namer", "POST", "/v1/resources", { type: "team", name }, "name");
  });

  test("joiners inside words and emoji sequences are accepted and stored as sent", async () => {
    for (const name of [
      "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645",
      "\u{1F3F3}\uFE0F\u200D\u{1F308} flag",
    ]) {
      const created = await k.post("lf-namer", "/v1/resources", { type: "team", name });
      expect(created.status).toBe(200);
      expect((await k.resource(created.body.id)).name).toBe(name);
    }
  });
});

describe("query parameters refuse look-alike text", () => {
  test.each([
    ["the browse type", (t: string) => `/v1/resources/browse?type=${t}`, "type"],
    ["the browse query", (t: string) => `/v1/resources/browse?query=${t}`, "query"],
    ["the list type", (t: string) => `/v1/resources?type=${t}`, "type"],
    ["the static type", (t: string) => `/v1/resources/static?type=${t}&slug=global`, "type"],
    ["the static slug", (t: string) => `/v1/resources/static?type=feed&slug=${t}`, "slug"],
  ] as Array<[string, (t: string) => string, string]>)(
    "%s with a format or control character is 400",
    async (_l, url, field) => {
      await k.users("lf-reader");
      for (const text of ["a\u202Eb", "a\u200Bb", "\u200B", "a\u0000b"]) {
        const before = await k.snapshot();
        const reply = await k.get("lf-reader", url(encodeURIComponent(text)));
        expectError(reply, 400, "invalid_request");
        expect(reply.body.error).toContain(field);
        expect(await k.snapshot()).toEqual(before);
      }
    },
  );
});

describe("names and browse queries are compared in NFC", () => {
  test("a decomposed query finds the name stored composed", async () => {
    const made = await k.create("lf-nfc", "album", "Caf\u00E9 terrace photos", "discoverable");
    expect((await k.resource(made.id)).name).toBe("Caf\u00E9 terrace photos");
    for (const query of ["Cafe\u0301 terrace", "cafe\u0301", "e\u0301 t"]) {
      const reply = await k.get("lf-nfc", `/v1/resources/browse?query=${encodeURIComponent(query)}`);
      expect(reply.status).toBe(200);
      expect(reply.body.resources.map((r: { id: string }) => r.id)).toContain(made.id);
    }
  });
});

describe("the browse query's limit counts characters, as a name's does", () => {
  test("a query of 200 emoji is accepted and 201 refused", async () => {
    await k.users("lf-long");
    const ok = await k.get(
      "lf-long",
      `/v1/resources/browse?query=${encodeURIComponent("\u{1F600}".repeat(200))}`,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.resources).toEqual([]);
    const before = await k.snapshot();
    const refused = await k.get(
      "lf-long",
      `/v1/resources/browse?query=${encodeURIComponent("\u{1F600}".repeat(201))}`,
    );
    expectError(refused, 400, "invalid_request");
    expect(refused.body.error).toContain("query");
    expect(await k.snapshot()).toEqual(before);
  });
});
