/**
 * The database failing answers 503 with Retry-After, never 500: a full disk or a read-only database is
 * `database_unavailable`, a write lock held by another process past the wait is `database_busy`; and
 * the reads that still work are served meanwhile. Over a real socket.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { sql, sqliteOf } from "../helpers/db.ts";
import { tempDir } from "../helpers/stack.ts";

let gw: RunningGateway;
let cookie = "";
let teamId = "";
let dbPath = "";
beforeAll(async () => {
  dbPath = join(tempDir(), "gateway.db");
  gw = await startGateway({
    config: loadConfig({ PORT: "0", ADMIN_PORT: "0", DATABASE_PATH: dbPath, COOKIE_SECURE: "false" }),
    log: () => {},
  });
  const { sealed } = await gw.gateway.sessions.start(
    { accessToken: "at", refreshToken: "rt", idToken: undefined, expiresIn: 3600, scope: "openid" },
    "dbf-user",
    "any-client",
  );
  cookie = `sg_session=${sealed}`;
  teamId = ((await (await write()).json()) as { id: string }).id;
}, 60_000);
afterAll(() => gw.stop());

const headers = () => ({ cookie, "x-service-csrf": "1", "content-type": "application/json" });
const write = () =>
  fetch(`${gw.publicUrl}/v1/resources`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ type: "team", name: "dbf team" }),
  });
const count = async () =>
  ((await sql(gw.gateway.storage).get("SELECT count(*) AS n FROM resources")) as { n: number }).n;

async function readsStillServed() {
  expect((await fetch(`${gw.publicUrl}/healthz`)).status).toBe(200);
  expect((await fetch(`${gw.publicUrl}/v1/resources/${teamId}`, { headers: headers() })).status).toBe(200);
  const session = await fetch(`${gw.publicUrl}/auth/session`, { headers: { cookie } });
  expect(await session.json()).toEqual({ authenticated: true, user_id: "dbf-user" });
}

describe("the database failing", () => {
  test("a full disk: writes are 503 database_unavailable with Retry-After, reads are served", async () => {
    const sqlite = sqliteOf(gw.gateway.storage);
    const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages}`);
    try {
      const before = await count();
      let refused: Response | undefined;
      // Fill the last free pages until SQLite says the disk is full.
      for (let i = 0; i < 500 && !refused; i++) {
        const res = await write();
        if (res.status !== 200) refused = res;
      }
      expect(refused?.status).toBe(503);
      expect(await refused!.json()).toMatchObject({ code: "database_unavailable" });
      expect(refused!.headers.get("retry-after")).toBe("5");
      expect(await count()).toBeGreaterThanOrEqual(before);
      await readsStillServed();
    } finally {
      sqlite.exec("PRAGMA max_page_count = 1073741823");
    }
    expect((await write()).status).toBe(200);
  });

  test("a read-only database: writes are 503 database_unavailable, nothing is written, reads are served", async () => {
    const sqlite = sqliteOf(gw.gateway.storage);
    sqlite.exec("PRAGMA query_only = 1");
    try {
      const before = await count();
      const res = await write();
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: "database_unavailable" });
      expect(await count()).toBe(before);
      await readsStillServed();
    } finally {
      sqlite.exec("PRAGMA query_only = 0");
    }
  });

  test("another process holding the write lock past the wait: 503 database_busy with Retry-After", async () => {
    const quick = await gatewayOn(join(tempDir(), "gateway.db"), 300);
    const holder = new Database(quick.dbPath);
    holder.exec("BEGIN IMMEDIATE");
    try {
      const before = await quick.count();
      const res = await quick.write();
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: "database_busy" });
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await quick.count()).toBe(before);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect((await quick.write()).status).toBe(200);
    await quick.gw.stop();
  });

  test("reads keep flowing while a write waits for another process's lock; the write then goes through", async () => {
    const patient = await gatewayOn(join(tempDir(), "gateway.db"), 10_000);
    const holder = new Database(patient.dbPath);
    holder.exec("BEGIN IMMEDIATE");
    let settled = false;
    const pending = patient.write().then((res) => {
      settled = true;
      return res;
    });
    try {
      for (let i = 0; i < 20; i++) {
        expect((await fetch(`${patient.gw.publicUrl}/healthz`)).status).toBe(200);
        const session = await fetch(`${patient.gw.publicUrl}/auth/session`, {
          headers: { cookie: patient.cookie },
        });
        expect(await session.json()).toMatchObject({ authenticated: true });
      }
      expect(settled).toBe(false); // 40 reads answered while the write was still waiting
      const metrics = await (
        await fetch(`${patient.gw.adminUrl}/metrics`, { headers: { authorization: "Bearer m" } })
      ).text();
      expect(metrics).toMatch(/^gateway_write_queue_depth 1$/m);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect((await pending).status).toBe(200);
    const after = await (
      await fetch(`${patient.gw.adminUrl}/metrics`, { headers: { authorization: "Bearer m" } })
    ).text();
    expect(after).toMatch(/^gateway_write_queue_depth 0$/m);
    await patient.gw.stop();
  }, 30_000);
});

/** A gateway on its own database with a given write wait, a signed-in user, and a write to try. */
async function gatewayOn(path: string, writeWaitMs: number) {
  const gw = await startGateway({
    config: {
      ...loadConfig({
        PORT: "0",
        ADMIN_PORT: "0",
        DATABASE_PATH: path,
        COOKIE_SECURE: "false",
        ADMIN_TOKEN: "m",
      }),
      writeWaitMs,
    },
    log: () => {},
  });
  const { sealed } = await gw.gateway.sessions.start(
    { accessToken: "at", refreshToken: "rt", idToken: undefined, expiresIn: 3600, scope: "openid" },
    "busy-user",
    "any-client",
  );
  const cookie = `sg_session=${sealed}`;
  return {
    gw,
    cookie,
    dbPath: path,
    write: () =>
      fetch(`${gw.publicUrl}/v1/resources`, {
        method: "POST",
        headers: { cookie, "x-service-csrf": "1", "content-type": "application/json" },
        body: JSON.stringify({ type: "team", name: "busy team" }),
      }),
    count: async () =>
      ((await sql(gw.gateway.storage).get("SELECT count(*) AS n FROM resources")) as { n: number }).n,
  };
}
