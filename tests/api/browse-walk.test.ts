/**
 * Browse over a real socket: a keyset walk over 1,000 discoverable resources while another writer keeps
 * inserting, with and without the name and type filters (newest first, no
 * repeats, no skips, `nextCursor` null on the last page).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import type { Principal } from "../../src/server/http/principal.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const APP = "walk";
const CLIENT = "walk-web";
const apps: AppsFile = {
  apps: [
    {
      id: APP,
      clients: [{ clientId: CLIENT, redirectUris: ["http://127.0.0.1:5999/callback"] }],
      types: {
        album: { visibility: "discoverable" },
        poster: { visibility: "discoverable" },
        team: { visibility: "members" },
      },
    },
    {
      id: "elsewhere",
      clients: [{ clientId: "elsewhere-web", redirectUris: ["http://127.0.0.1:5998/callback"] }],
      types: { album: { visibility: "discoverable" } },
    },
  ],
};

interface Item {
  id: string;
  type: string;
  name: string;
  memberCount: number;
  createdAt: string;
}

let running: RunningGateway;
let url: string;
let reader: Record<string, string>;
let writer: Record<string, string>;
/** The discoverable resources of app `walk` before any walk, newest first. */
let initial: Array<{ id: string; type: string; name: string }>;
const TERM = "NeEdLe";

async function session(userId: string, clientId = CLIENT): Promise<Record<string, string>> {
  const { sealed } = await running.gateway.sessions.start(
    {
      accessToken: `at-${userId}-${crypto.randomUUID()}`,
      refreshToken: `rt-${crypto.randomUUID()}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    userId,
    clientId,
  );
  return {
    cookie: `${running.gateway.sessions.cookieName}=${sealed}`,
    "x-service-csrf": "1",
    "content-type": "application/json",
  };
}

beforeAll(async () => {
  running = await startGateway({
    config: loadConfig({
      PORT: String(freePort()),
      ADMIN_PORT: String(freePort()),
      ...(await databaseEnv(tempDir(), "g.db")),
      COOKIE_SECURE: "false",
      ADMIN_TOKEN: "t",
    }),
    apps,
    log: () => {},
  });
  url = running.publicUrl;
  reader = await session("walker");
  writer = await session("inserter");
  const { membership } = running.gateway;
  const seed = (userId: string, appId: string): Principal => ({
    userId,
    clientId: CLIENT,
    appId,
    via: "cookie",
  });
  const created: Array<{ id: string; type: string; name: string }> = [];
  for (let i = 0; i < 1000; i++) {
    const type = i % 4 === 0 ? "poster" : "album";
    // Every 7th name carries the term in mixed case; a few carry LIKE metacharacters.
    const name = i % 7 === 0 ? `Item ${i} ${TERM} x` : i % 50 === 1 ? `Sale 50%_off ${i}` : `Item ${i}`;
    const row = await membership.createResource(seed(`owner-${i % 13}`, APP), { type, name });
    created.push({ id: row.id, type, name });
    // Noise that browse must never show: members-only, unlisted, another app.
    if (i % 100 === 0) {
      await membership.createResource(seed("noise", APP), { type: "team", name: `Item hidden ${TERM} ${i}` });
      await membership.createResource(seed("noise", APP), {
        type: "album",
        name: `Item unlisted ${TERM} ${i}`,
        visibility: "unlisted",
      });
      await membership.createResource(seed("noise", "elsewhere"), {
        type: "album",
        name: `Item other ${TERM} ${i}`,
      });
    }
  }
  initial = created.reverse();
}, 60_000);
afterAll(() => running.stop());

async function page(
  params: Record<string, string>,
): Promise<{ resources: Item[]; nextCursor: string | null }> {
  const res = await fetch(`${url}/v1/resources/browse?${new URLSearchParams(params)}`, { headers: reader });
  expect(res.status).toBe(200);
  return (await res.json()) as { resources: Item[]; nextCursor: string | null };
}

let inserted = 0;
const insert = async () => {
  const n = inserted++;
  const res = await fetch(`${url}/v1/resources`, {
    method: "POST",
    headers: writer,
    body: JSON.stringify({ type: n % 2 ? "album" : "poster", name: `Late ${n} ${TERM}` }),
  });
  expect(res.status).toBe(200);
};

/**
 * Walks every page with `limit`, inserting new resources between page fetches and while a fetch is in
 * flight. Returns the rows seen, in order, and the number of pages.
 */
async function walk(filters: Record<string, string>, limit: number) {
  const seen: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const params: Record<string, string> = { ...filters, limit: String(limit) };
    if (cursor) params.cursor = cursor;
    const [result] = await Promise.all([page(params), pages > 0 ? insert() : Promise.resolve()]);
    pages++;
    expect(result.resources.length).toBeLessThanOrEqual(limit);
    if (result.nextCursor !== null) expect(result.resources).toHaveLength(limit);
    seen.push(...result.resources);
    cursor = result.nextCursor;
    await Promise.all([insert(), insert()]);
  } while (cursor !== null);
  return { seen, pages };
}

function expectNewestFirst(items: Item[]) {
  for (let i = 1; i < items.length; i++) {
    const prev = items[i - 1]!;
    const cur = items[i]!;
    const ordered = prev.createdAt > cur.createdAt || (prev.createdAt === cur.createdAt && prev.id > cur.id);
    if (!ordered) throw new Error(`rows ${i - 1} and ${i} are out of order: ${prev.id} then ${cur.id}`);
  }
}

describe("browse walk over 1,000 discoverable resources with a concurrent writer", () => {
  test("every row that existed at the start appears exactly once, newest first; the last cursor is null", async () => {
    const { seen, pages } = await walk({}, 37);
    expect(pages).toBe(Math.ceil(1000 / 37));
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    expectNewestFirst(seen);
    // Rows added during the walk are newer than the first page, so the walk is exactly the initial set.
    expect(seen.map((r) => r.id)).toEqual(initial.map((r) => r.id));
    expect(inserted).toBeGreaterThan(50);
    const first = seen[0]!;
    expect(first).toEqual({
      id: initial[0]!.id,
      type: initial[0]!.type,
      name: initial[0]!.name,
      memberCount: 1,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Object.keys(first).sort()).toEqual(["createdAt", "id", "memberCount", "name", "type"]);
  });

  test("with a name query (case-insensitive substring): only matching rows, none repeated or skipped", async () => {
    const before = new Set(
      (
        (await sql(running.gateway.storage).all(
          "SELECT id FROM resources WHERE app_id = ? AND discoverable = true",
          APP,
        )) as Array<{ id: string }>
      ).map((r) => r.id),
    );
    const { seen } = await walk({ query: "needle" }, 37);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    expectNewestFirst(seen);
    for (const r of seen) expect(r.name.toLowerCase()).toContain("needle");
    const expected = initial.filter((r) => r.name.includes(TERM)).map((r) => r.id);
    expect(expected).toHaveLength(143);
    // Rows that existed when the walk began: all of them, in order. (Late rows may only precede them.)
    const old = seen.filter((r) => before.has(r.id) && !r.name.startsWith("Late ")).map((r) => r.id);
    expect(old).toEqual(expected);
    expect(seen.filter((r) => !before.has(r.id))).toEqual([]);
  });

  test("with a type filter, and with type and query together", async () => {
    const posters = await walk({ type: "poster" }, 37);
    expect(new Set(posters.seen.map((r) => r.id)).size).toBe(posters.seen.length);
    expectNewestFirst(posters.seen);
    for (const r of posters.seen) expect(r.type).toBe("poster");
    const initialPosters = initial.filter((r) => r.type === "poster").map((r) => r.id);
    expect(initialPosters).toHaveLength(250);
    const seenIds = posters.seen.map((r) => r.id);
    expect(seenIds.filter((id) => initialPosters.includes(id))).toEqual(initialPosters);

    const both = await walk({ type: "album", query: TERM.toUpperCase() }, 10);
    const wanted = initial.filter((r) => r.type === "album" && r.name.includes(TERM)).map((r) => r.id);
    expect(both.seen.map((r) => r.id).filter((id) => wanted.includes(id))).toEqual(wanted);
    for (const r of both.seen) {
      expect(r.type).toBe("album");
      expect(r.name).toContain(TERM);
    }
  });

  test("% and _ in the query match themselves, for short (LIKE) and long (FTS) queries", async () => {
    const sale = initial.filter((r) => r.name.includes("%_")).map((r) => r.id);
    expect(sale).toHaveLength(18);
    for (const query of ["%_", "0%_o", "50%_off"]) {
      const { seen } = await walk({ query }, 100);
      expect(seen.map((r) => r.id)).toEqual(sale);
    }
    expect((await page({ query: "%" })).resources.every((r) => r.name.includes("%"))).toBe(true);
    expect((await page({ query: "_" })).resources.every((r) => r.name.includes("_"))).toBe(true);
    expect((await page({ query: "no such name anywhere" })).resources).toEqual([]);
  });

  test("limits: default 20, above 100 treated as 100, below 1 or not an integer is 400; a forged cursor is 400", async () => {
    const d = await page({});
    expect(d.resources).toHaveLength(20);
    expect(d.nextCursor).toEqual(expect.any(String));
    expect((await page({ limit: "100" })).resources).toHaveLength(100);
    expect((await page({ limit: "5000" })).resources).toHaveLength(100);
    for (const limit of ["0", "-1", "abc", "2.5"]) {
      const res = await fetch(`${url}/v1/resources/browse?limit=${limit}`, { headers: reader });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request" });
    }
    const forged = await fetch(`${url}/v1/resources/browse?cursor=not-a-cursor`, { headers: reader });
    expect(forged.status).toBe(400);
    const last = await page({ type: "poster", query: "Item 996" });
    expect(last).toEqual({ resources: [expect.objectContaining({ name: "Item 996" })], nextCursor: null });
    // 250 posters in pages of 50: five full pages, the fifth with a null cursor (no empty sixth page).
    const exact = await walk({ type: "poster", query: "Item " }, 50);
    expect(exact.pages).toBe(5);
    expect(exact.seen).toHaveLength(250);
  });

  test("the name query is case-insensitive beyond ASCII, for short (LIKE) and long (FTS) queries alike", async () => {
    const { id } = await running.gateway.membership.createResource(
      { userId: "umlaut", clientId: CLIENT, appId: APP, via: "cookie" },
      { type: "album", name: "Über Écoles" },
    );
    for (const query of ["über", "ÜBER", "Üb", "üb", "ü", "éc", "ÉC", "écoles"]) {
      const found = (await page({ query })).resources.map((r) => r.id);
      if (!found.includes(id)) throw new Error(`query ${JSON.stringify(query)} did not find "Über Écoles"`);
    }
  });
});
