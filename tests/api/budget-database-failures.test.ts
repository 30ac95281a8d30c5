/**
 * A read stays answerable when the database cannot take the budget's reservation: with a full disk, a
 * read-only database or another process holding the write lock (SQLite), a read-only database or a
 * full disk (PostgreSQL), budgeted reads answer 200 from the process's local allowance (the app's
 * budget and the user's share, by this process's own count) and past it 429; the metric counts each
 * read the shared window never saw; a write still fails 503 and writes nothing. Over a real socket.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql, sqliteOf } from "../helpers/db.ts";
import { sessionFor } from "../helpers/in-process.ts";
import { sharedPostgres, testEngine } from "../helpers/postgres.ts";
import { awayFromMinuteEdge } from "../helpers/resources-kit.ts";
import { tempDir } from "../helpers/stack.ts";

const APPS: AppsFile = {
  apps: [
    {
      id: "metered",
      clients: [{ clientId: "metered-web", redirectUris: ["http://localhost/cb"] }],
      // Reserved one call at a time; each user may take 10 of the app's 20.
      budget: { requestsPerMinute: 20, userShare: 0.5 },
      types: { team: {} },
    },
  ],
};
/** User ids of one length: a full disk is simulated with rows of that size (fillShares). */
const ID_LENGTH = 120;
const userId = (name: string) => name.padEnd(ID_LENGTH, "-");

interface Scene {
  gw: RunningGateway;
  headers: Record<string, Record<string, string>>;
  databaseUrl?: string;
}

/** A gateway on a fresh database with users a, b and c signed in (sessions are rows: made before the failure). */
async function scene(writeWaitMs?: number): Promise<Scene> {
  const env = await databaseEnv(tempDir());
  const gw = await startGateway({
    config: {
      ...loadConfig({ PORT: "0", ADMIN_PORT: "0", COOKIE_SECURE: "false", ADMIN_TOKEN: "m", ...env }),
      ...(writeWaitMs === undefined ? {} : { writeWaitMs }),
    },
    apps: APPS,
    log: () => {},
  });
  const headers: Scene["headers"] = {};
  for (const name of ["reader-a", "reader-b", "reader-c"])
    headers[name] = await sessionFor(gw, userId(name), "metered-web");
  await awayFromMinuteEdge();
  return { gw, headers, databaseUrl: env.DATABASE_URL };
}

const reads = async (s: Scene, user: string, n: number) => {
  const replies = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${s.gw.publicUrl}/v1/resources`, { headers: s.headers[user] });
    replies.push({ status: res.status, body: await res.json() });
  }
  return replies;
};
const statuses = (replies: Array<{ status: number }>) => replies.map((r) => r.status);
const unreservedReads = async (s: Scene) => {
  const text = await (
    await fetch(`${s.gw.adminUrl}/metrics`, { headers: { authorization: "Bearer m" } })
  ).text();
  return Number(/^gateway_budget_unreserved_reads_total (\d+)$/m.exec(text)?.[1]);
};

/** With the database refusing writes: a write fails with `writeCode`, reads are served within the bound. */
async function expectReadsServed(s: Scene, writeCode: string) {
  const resources = () => sql(s.gw.gateway.storage).count("SELECT count(*) AS n FROM resources");
  const before = await resources();
  const write = await fetch(`${s.gw.publicUrl}/v1/resources`, {
    method: "POST",
    headers: s.headers["reader-a"],
    body: JSON.stringify({ type: "team", name: "not now" }),
  });
  expect({ status: write.status, body: await write.json() }).toMatchObject({
    status: 503,
    body: { code: writeCode },
  });
  expect(await resources()).toBe(before);

  // Each user's share (10) by this process's count, then 429.
  const a = await reads(s, "reader-a", 12);
  expect(statuses(a)).toEqual([...Array(10).fill(200), 429, 429]);
  expect(a[0]!.body).toEqual({ resources: [] });
  expect(a[11]!.body.error).toContain("Your share of this app's budget (10 of 20");
  expect(await unreservedReads(s)).toBe(10);
  expect(statuses(await reads(s, "reader-b", 11))).toEqual([...Array(10).fill(200), 429]);
  // The app's budget (20) by this process's count: spent.
  const [c] = await reads(s, "reader-c", 1);
  expect(c).toEqual({
    status: 429,
    body: { error: "This app's budget of 20 requests per minute is spent.", code: "budget_exceeded" },
  });
  expect(await unreservedReads(s)).toBe(20);
  // Nothing reached the shared window meanwhile.
  expect(await sql(s.gw.gateway.storage).count("SELECT count(*) AS n FROM budget_windows")).toBe(0);
  expect(await resources()).toBe(before);
}

/**
 * A full disk for the budget's rows: the file may not grow, and `budget_shares` is filled (rows of the
 * current window, the size a reader's row has) until SQLite says it is full, so a reader's first
 * reservation needs a page there is no room for.
 */
function fillShares(db: Database): void {
  db.exec(
    `PRAGMA max_page_count = ${(db.query("PRAGMA page_count").get() as { page_count: number }).page_count}`,
  );
  const now = Date.now();
  const insert = db.query(
    "INSERT INTO budget_shares (app_id, window_start, user_id, reserved) VALUES ('metered', ?, ?, 1)",
  );
  for (let i = 0; i < 100_000; i++) {
    try {
      insert.run(now - (now % 60_000), userId(`filler-${i}`));
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_FULL") return;
      throw error;
    }
  }
  throw new Error("the database never filled up");
}

describe.if(testEngine === "sqlite")("the budget when SQLite cannot take writes", () => {
  test("a full disk: reads are served within the local allowance and counted; a write is 503 database_unavailable", async () => {
    const s = await scene();
    const db = sqliteOf(s.gw.gateway.storage);
    fillShares(db);
    try {
      await expectReadsServed(s, "database_unavailable");
    } finally {
      db.exec("PRAGMA max_page_count = 1073741823");
      await s.gw.stop();
    }
  });

  test("a read-only database: reads are served within the local allowance and counted; a write is 503 database_unavailable", async () => {
    const s = await scene();
    const db = sqliteOf(s.gw.gateway.storage);
    db.exec("PRAGMA query_only = 1");
    try {
      await expectReadsServed(s, "database_unavailable");
    } finally {
      db.exec("PRAGMA query_only = 0");
      await s.gw.stop();
    }
  });

  test("another process holding the write lock: reads are served within the local allowance and counted; a write is 503 database_busy", async () => {
    const s = await scene(300);
    const holder = new Database(sqliteOf(s.gw.gateway.storage).filename);
    holder.exec("BEGIN IMMEDIATE");
    try {
      await expectReadsServed(s, "database_busy");
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
      await s.gw.stop();
    }
  });
});

describe.if(testEngine === "postgres")("the budget when PostgreSQL cannot take writes", () => {
  test("a read-only database: reads are served within the local allowance and counted; a write is 503 database_unavailable", async () => {
    const s = await scene();
    const name = new URL(s.databaseUrl!).pathname.slice(1);
    const admin = postgres((await sharedPostgres()).url, { max: 1, onnotice: () => {} });
    // New connections are read-only; the gateway's are ended and come back as new ones.
    await admin.unsafe(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
    await admin.unsafe(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    );
    try {
      await readOnlyEverywhere(s);
      await expectReadsServed(s, "database_unavailable");
    } finally {
      await admin.unsafe(`ALTER DATABASE "${name}" RESET default_transaction_read_only`);
      await admin.end();
      await s.gw.stop();
    }
  }, 30_000);

  test("a full disk: reads are served within the local allowance and counted; a write is 503 database_unavailable", async () => {
    const s = await scene();
    const storage = s.gw.gateway.storage;
    // What PostgreSQL answers when it cannot extend a table's file (SQLSTATE 53100).
    await storage.run(
      "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $f$",
    );
    for (const table of ["budget_windows", "budget_shares"])
      await storage.run(
        `CREATE TRIGGER ${table}_full BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION disk_full()`,
      );
    try {
      await expectReadsServed(s, "database_unavailable");
    } finally {
      await s.gw.stop();
    }
  }, 30_000);
});

/** Waits until every connection of the gateway's pool is a new, read-only one (the ended ones fail a query first). */
async function readOnlyEverywhere(s: Scene): Promise<void> {
  const readOnly = () =>
    s.gw.gateway.storage
      .get<{ default_transaction_read_only: string }>("SHOW default_transaction_read_only")
      .then(
        (row) => row?.default_transaction_read_only === "on",
        () => false,
      );
  for (let i = 0; i < 200; i++) {
    const answers = await Promise.all(Array.from({ length: 10 }, readOnly));
    if (answers.every(Boolean)) return;
    await Bun.sleep(20);
  }
  throw new Error("the pool never turned read-only");
}
