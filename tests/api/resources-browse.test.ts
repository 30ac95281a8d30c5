/** GET /v1/resources/browse: discoverable resources of the caller's app, newest first, query, limit, cursor. */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { BROWSE_KEYS, expectError, ISO_MS, type Json, makeKit } from "../helpers/resources-kit.ts";

// One app per suite keeps browse results free of other tests' rows.
const APPS: AppsFile = {
  apps: [
    {
      id: "browse",
      clients: [{ clientId: "web", redirectUris: ["http://localhost/cb"] }],
      types: {
        album: { visibility: "discoverable" },
        photo: { visibility: "discoverable" },
        board: { visibility: "unlisted" },
        team: { visibility: "members" },
      },
      statics: [{ type: "album", slug: "featured", name: "Featured album", visibility: "discoverable" }],
    },
    {
      id: "elsewhere",
      clients: [{ clientId: "else-web", redirectUris: ["http://localhost/else"] }],
      types: { album: { visibility: "discoverable" } },
    },
  ],
};

const k = await makeKit(APPS);
afterAll(() => k.gw.gateway.close());

const browse = async (user: string, query = "", clientId?: string) =>
  k.get(user, `/v1/resources/browse${query}`, clientId);
const names = (reply: Json) => reply.body.resources.map((r: Json) => r.name);

// Fixture: a few named rows first, then pages of "bulk" rows.
const named = ["100% Pure", "100 Pure", "snake_case", "snakeXcase", "Holiday ALBUM", "école d'été"];
const created: Array<{ id: string; name: string }> = [];
for (const name of named) created.push(await k.create("br-own", "album", name));
await k.create("br-own", "board", "Holiday unlisted");
await k.create("br-own", "team", "Holiday members");
await k.create("br-own", "album", "Holiday members-only album", "members");
await k.create("br-own", "album", "Holiday unlisted album", "unlisted");
await k.create("br-else", "album", "Holiday elsewhere", undefined, "else-web");
for (let i = 0; i < 45; i++)
  created.push(await k.create("br-own", "photo", `bulk photo ${String(i).padStart(2, "0")}`));

describe("browse", () => {
  test("items are BrowseItems, discoverable only, of the caller's app, newest first", async () => {
    const reply = await browse("br-viewer", "?limit=100");
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(["nextCursor", "resources"]);
    expect(reply.body.nextCursor).toBeNull();
    for (const item of reply.body.resources) {
      expect(Object.keys(item).sort()).toEqual(BROWSE_KEYS);
      expect(item.createdAt).toMatch(ISO_MS);
      expect(JSON.stringify(item)).not.toMatch(/owner|appId|slug|br-own/);
    }
    const got = names(reply);
    expect(got).toHaveLength(created.length + 1);
    expect(got).toContain("Featured album");
    for (const hidden of [
      "Holiday unlisted",
      "Holiday members",
      "Holiday members-only album",
      "Holiday unlisted album",
      "Holiday elsewhere",
    ])
      expect(got).not.toContain(hidden);
    const order = reply.body.resources.map((r: Json) => [Date.parse(r.createdAt), r.id]);
    const sorted = [...order].sort((a, b) => b[0] - a[0] || (b[1] < a[1] ? -1 : b[1] > a[1] ? 1 : 0));
    expect(order).toEqual(sorted);
    expect(reply.body.resources[0].name).toBe("bulk photo 44");
    // Browsing never joins.
    expect(await k.member(created[0]!.id, "br-viewer")).toBeNull();
  });

  test("memberCount counts active members only", async () => {
    const t = await k.create("br-cnt", "album", "count me");
    await k.post("br-cnt", `/v1/resources/${t.id}/join`);
    await k.post("br-j1", `/v1/resources/${t.id}/join`);
    await k.post("br-cnt", `/v1/resources/${t.id}/invite`, { userId: "br-pending" });
    const item = (await browse("br-viewer", "?query=count%20me")).body.resources[0];
    expect(item).toMatchObject({ id: t.id, memberCount: 2 });
    await k.del("br-cnt", `/v1/resources/${t.id}`);
  });

  test("type filters", async () => {
    const reply = await browse("br-viewer", "?type=album&limit=100");
    expect(names(reply).sort()).toEqual([...named, "Featured album"].sort());
    expect((await browse("br-viewer", "?type=board")).body).toEqual({ resources: [], nextCursor: null });
    expect((await browse("br-viewer", "?type=nope")).body).toEqual({ resources: [], nextCursor: null });
  });

  test.each([
    ["holiday", ["Holiday ALBUM"]],
    ["HOLIDAY album", ["Holiday ALBUM"]],
    ["al", ["Holiday ALBUM", "Featured album"]],
    ["%", ["100% Pure"]],
    ["0%", ["100% Pure"]],
    ["100% P", ["100% Pure"]],
    ["_", ["snake_case"]],
    ["e_c", ["snake_case"]],
    ["snake_case", ["snake_case"]],
    ["ÉCOLE", ["école d'été"]],
    ["ÉC", ["école d'été"]],
    ["d'é", ["école d'été"]],
    ['"', []],
    ["zzz-no-match", []],
  ])("query %p is a case-insensitive literal substring", async (q, expected) => {
    const reply = await browse("br-viewer", `?limit=100&query=${encodeURIComponent(q)}`);
    expect(reply.status).toBe(200);
    expect(names(reply).sort()).toEqual([...expected].sort());
  });

  test("limit: default 20, above 100 is 100, not an integer or below 1 is 400", async () => {
    expect((await browse("br-viewer")).body.resources).toHaveLength(20);
    expect((await browse("br-viewer", "?limit=3")).body.resources).toHaveLength(3);
    const big = await browse("br-viewer", "?limit=1000");
    expect(big.status).toBe(200);
    expect(big.body.resources).toHaveLength(created.length + 1);
    for (const bad of ["0", "-1", "1.5", "abc", "1e2", " 5", "0x10", "9999999999999"])
      expectError(await browse("br-viewer", `?limit=${encodeURIComponent(bad)}`), 400, "invalid_request");
    const named = await browse("br-viewer", "?limit=abc");
    expect(named.body.error).toContain("limit");
  });

  test("limit above 100 returns 100 rows", async () => {
    for (let i = 0; i < 60; i++) await k.create("br-many", "photo", `many ${i}`);
    const reply = await browse("br-viewer", "?limit=101");
    expect(reply.body.resources).toHaveLength(100);
    expect(typeof reply.body.nextCursor).toBe("string");
  });

  test("cursor pages neither repeat nor skip, even while rows are added; null on the last page", async () => {
    const all = (
      (await k.db.all(
        "SELECT id FROM resources WHERE app_id = 'browse' AND type = 'photo' AND discoverable = true ORDER BY created_at DESC, id DESC",
      )) as Json[]
    ).map((r) => r.id);
    expect(all.length).toBeGreaterThan(100);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply: Json = await browse(
        "br-viewer",
        `?type=photo&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(reply.status).toBe(200);
      seen.push(...reply.body.resources.map((r: Json) => r.id));
      cursor = reply.body.nextCursor;
      if (cursor !== null) {
        expect(typeof cursor).toBe("string");
        expect(cursor).not.toContain("photo");
      }
      if (pages === 1) await k.create("br-own", "photo", "added mid-walk");
      pages++;
    } while (cursor !== null && pages < 50);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("an exact page boundary ends with nextCursor null", async () => {
    const total = (await browse("br-viewer", "?type=album&limit=100")).body.resources.length;
    const first = await browse("br-viewer", `?type=album&limit=${total}`);
    expect(first.body.resources).toHaveLength(total);
    expect(first.body.nextCursor).toBeNull();
  });

  test.each([
    "garbage",
    "!!!!",
    "e30",
    "WzEsMl0",
    Buffer.from('["x","y"]').toString("base64url"),
    "a".repeat(300),
  ])("a cursor the API did not return (%p) is 400 invalid_request", async (cursor) => {
    const reply = await browse("br-viewer", `?cursor=${encodeURIComponent(cursor)}`);
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error).toContain("cursor");
  });

  test("another app browses its own resources only", async () => {
    expect(names(await browse("br-else", "", "else-web"))).toEqual(["Holiday elsewhere"]);
  });

  test("bad query parameters are 400 invalid_request", async () => {
    expectError(await browse("br-viewer", `?query=${"q".repeat(201)}`), 400, "invalid_request");
    expectError(await browse("br-viewer", "?type=%01x"), 400, "invalid_request");
    expectError(await browse("br-viewer", `?type=${"t".repeat(65)}`), 400, "invalid_request");
  });
});
