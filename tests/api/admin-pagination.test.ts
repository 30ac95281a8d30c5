/**
 * Admin lists are "cursor-paginated like browse": `limit` 1–100 (above 100
 * treated as 100; not an integer or below 1: 400), `nextCursor` opaque and `null` on the last page, a
 * cursor the API did not return is 400, and a walk never repeats or skips a row while rows are added.
 * Over real sockets, no provider needed: one deploy with many statics makes the rows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import { tempDir } from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token", "content-type": "application/json" };

let gw: RunningGateway;

const statics = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: "feed", slug: `s${i}`, name: `Static ${i}` }));
async function deployBulk(n: number) {
  const res = await fetch(`${gw.adminUrl}/admin/v1/apps/bulk/deploy`, {
    method: "POST",
    headers: ADMIN,
    body: JSON.stringify({
      id: "bulk",
      clients: [],
      types: { feed: { reserved: true } },
      statics: statics(n),
    }),
  });
  expect(res.status).toBe(200);
}
async function get(path: string) {
  const res = await fetch(`${gw.adminUrl}${path}`, { headers: ADMIN });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
type Row = { id: string };
/** Every row, read in two pages of 100 (the contract's largest page). */
async function everything(): Promise<Row[]> {
  const first = await page(100, null);
  return first.nextCursor
    ? first.resources.concat((await page(100, first.nextCursor)).resources)
    : first.resources;
}
async function page(limit: number, cursor: string | null) {
  const res = await get(
    `/admin/v1/resources?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
  );
  expect(res.status).toBe(200);
  return res.body as { resources: Row[]; nextCursor: string | null };
}

beforeAll(async () => {
  gw = await startGateway({
    config: loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir("sg-admin-pages-"), "gateway.db")),
      COOKIE_SECURE: "false",
      ADMIN_TOKEN: "test-admin-token",
    }),
    apps: {
      apps: [{ id: "test", clients: [{ clientId: "web", redirectUris: ["http://127.0.0.1:5201/cb"] }] }],
    },
    log: () => {},
  });
  await deployBulk(120); // 120 statics + `_app` of bulk + `_app` of test
}, 60_000);
afterAll(async () => {
  await gw.stop();
}, 30_000);

describe("limit", () => {
  test("1 and 100 are honoured; above 100 is treated as 100", async () => {
    expect((await page(1, null)).resources.length).toBe(1);
    expect((await page(100, null)).resources.length).toBe(100);
    const big = await page(1000, null);
    expect(big.resources.length).toBe(100);
    expect(big.nextCursor).not.toBeNull();
    expect((await page(101, null)).resources.length).toBe(100);
  });

  test("not an integer or below 1 is 400 invalid_request, on every list", async () => {
    for (const list of ["/admin/v1/resources", "/admin/v1/sessions", "/admin/v1/pending"]) {
      for (const limit of ["0", "-1", "abc", "1.5", "00"]) {
        const res = await get(`${list}?limit=${limit}`);
        expect({ list, limit, status: res.status, code: res.body.code }).toEqual({
          list,
          limit,
          status: 400,
          code: "invalid_request",
        });
      }
    }
  });
});

describe("cursor", () => {
  test("a cursor the API did not return is 400 invalid_request, on every list", async () => {
    const forged = [
      "not-a-cursor",
      Buffer.from(JSON.stringify({ x: 1 })).toString("base64url"),
      Buffer.from("[1,2]").toString("base64url"),
    ];
    for (const list of ["/admin/v1/resources", "/admin/v1/sessions", "/admin/v1/pending"]) {
      for (const cursor of forged) {
        const res = await get(`${list}?cursor=${encodeURIComponent(cursor)}`);
        expect({ list, cursor, status: res.status, code: res.body.code }).toEqual({
          list,
          cursor,
          status: 400,
          code: "invalid_request",
        });
      }
    }
  });

  test("a walk sees every row once, in order, and nextCursor is null on the last page", async () => {
    const snapshot = await everything();
    expect(snapshot.length).toBe(122);
    const walked: Row[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const { resources, nextCursor }: { resources: Row[]; nextCursor: string | null } = await page(
        9,
        cursor,
      );
      walked.push(...resources);
      cursor = nextCursor;
      if (!cursor) break;
      expect(resources.length).toBe(9);
    }
    expect(cursor).toBeNull();
    expect(walked.map((r) => r.id)).toEqual(snapshot.map((r) => r.id));
  });

  test("rows added during a walk (all created in one transaction, so tied on createdAt) never repeat or skip", async () => {
    const before = await everything();
    const walked: Row[] = [];
    let cursor: string | null = null;
    let added = 0;
    for (let i = 0; i < 50; i++) {
      const { resources, nextCursor }: { resources: Row[]; nextCursor: string | null } = await page(
        10,
        cursor,
      );
      walked.push(...resources);
      cursor = nextCursor;
      if (!cursor) break;
      if (i < 3) {
        added += 4; // four newer rows each time
        await deployBulk(120 + added);
      }
    }
    expect(added).toBe(12);
    const ids = walked.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(before.map((r) => r.id));
  });
});
