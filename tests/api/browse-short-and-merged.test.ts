/**
 * Browse by name: a query shorter than 3 characters counted in code points (the trigram index cannot
 * match it) is answered by the LIKE walk alone, so `😀a` (2 code points, 3 UTF-16 units) finds its
 * substring; and when a rare term sends browse to the FTS index, the rows the LIKE walk already found
 * are kept (merged newest first, no duplicates, the limit respected).
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { LIKE_WINDOW } from "../../src/server/resources/store.ts";
import { type Json, makeKit } from "../helpers/resources-kit.ts";

const APPS: AppsFile = {
  apps: [
    {
      id: "cp",
      clients: [{ clientId: "web", redirectUris: ["http://localhost/cb"] }],
      types: { album: { visibility: "discoverable" } },
    },
  ],
};

const k = await makeKit(APPS);
afterAll(() => k.gw.gateway.close());

const store = k.gw.gateway.membership.store;
const T0 = Date.UTC(2020, 0, 1);
/** Inserts discoverable albums of app `cp` with chosen creation times (as the service would store them). */
function seed(rows: Array<[name: string, createdAt: number]>): Promise<void> {
  return k.gw.gateway.storage.transaction(async (tx) => {
    for (const [name, createdAt] of rows)
      store.insertResource(tx, {
        id: crypto.randomUUID(),
        appId: "cp",
        type: "album",
        name,
        visibility: "public",
        discoverable: true,
        ownerId: "cp-owner",
        ownerKind: "user",
        slug: null,
        memberCount: 1,
        createdAt,
      });
  });
}

const names = (reply: Json) => {
  expect(reply.status).toBe(200);
  return reply.body.resources.map((r: Json) => r.name);
};
const browse = (query: string, extra = "") =>
  k.get("cp-viewer", `/v1/resources/browse?query=${encodeURIComponent(query)}${extra}`);

// Georgian capitals (Mtavruli) lower-case to Mkhedruli in JavaScript (the LIKE walk's folded names),
// but not in SQLite's FTS folding: a row the LIKE walk finds and the FTS index does not.
const UPPER = "\u1C90\u1C91\u1C92";
const LOWER = "\u10D0\u10D1\u10D2";

await seed([
  ["x😀ay party", T0 - 10],
  ["plain party", T0 - 9],
  [`${LOWER} deep`, T0],
  ...Array.from({ length: LIKE_WINDOW }, (_, i) => [`filler ${i}`, T0 + 1 + i] as [string, number]),
  [`${UPPER} one`, T0 + LIKE_WINDOW + 1],
  [`${LOWER} two`, T0 + LIKE_WINDOW + 2],
  [`${UPPER} three`, T0 + LIKE_WINDOW + 3],
]);

describe("browse by name", () => {
  test("a query of 2 code points but 3 UTF-16 units (😀a) finds its substring", async () => {
    expect("😀a".length).toBe(3);
    expect(names(await browse("😀a"))).toEqual(["x😀ay party"]);
    expect(names(await browse("😀"))).toEqual(["x😀ay party"]);
    expect(names(await browse("😀ay"))).toEqual(["x😀ay party"]);
    expect(names(await browse("y p"))).toEqual(["x😀ay party"]);
  });

  test("switching to the FTS index keeps the rows the LIKE walk found, newest first, no duplicates", async () => {
    const all = [`${UPPER} three`, `${LOWER} two`, `${UPPER} one`, `${LOWER} deep`];
    expect(names(await browse(LOWER, "&limit=10"))).toEqual(all);
    expect(names(await browse(LOWER, "&limit=4"))).toEqual(all);
    expect(names(await browse(LOWER, "&limit=3"))).toEqual(all.slice(0, 3));
  });

  test("the merged pages walk every match once with the cursor", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const reply = await browse(LOWER, `&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      const got = names(reply);
      expect(got.length).toBeLessThanOrEqual(2);
      seen.push(...got);
      cursor = reply.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual([`${UPPER} three`, `${LOWER} two`, `${UPPER} one`, `${LOWER} deep`]);
  });
});
