/**
 * The PostgreSQL pool comes back whole after the server ends its connections (a restart, a failover,
 * `pg_terminate_backend`, `idle_session_timeout`). postgres.js 3.4.9 left a connection stuck for good
 * when its socket closed with a write still buffered: the stale flush timer kept the next
 * StartupMessage from ever being sent, so every reconnect of that connection ended in CONNECT_TIMEOUT
 * and a share of the gateway's queries failed after 5 s each, forever. A query written between a
 * socket's error and its close was never settled at all (patches/postgres@3.4.9.patch).
 * Runs in the PostgreSQL pass of the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { openStorage } from "../../src/server/db/open.ts";
import type { Storage } from "../../src/server/db/sql.ts";
import { sharedPostgres, testEngine } from "../helpers/postgres.ts";

/** The gateway's pool size (openPostgres' default) and callers enough to keep every connection writing. */
const CALLERS = 20;
const TERMINATIONS = 16;

describe.if(testEngine === "postgres")("the pool after the server ends its connections", () => {
  let storage: Storage;
  let admin: postgres.Sql;
  let database: string;

  beforeAll(async () => {
    const pg = await sharedPostgres();
    const url = await pg.createDatabase("reconnect");
    database = new URL(url).pathname.slice(1);
    storage = await openStorage(url);
    admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  }, 60_000);

  afterAll(async () => {
    await admin.end();
    await storage.close();
  });

  /** Ends every backend of the gateway's database and waits until they are gone (it signals, they exit). */
  const terminateAll = async () => {
    const ended = await admin.unsafe<Array<{ pid: number }>>(
      `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`,
    );
    const pids = ended.map((row) => row.pid);
    while ((await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ANY(${pids})`).length > 0)
      await Bun.sleep(10);
  };

  /** One query per caller at once: how each settled (a failure by its code), or "pending" past `waitMs`. */
  const round = (waitMs: number) =>
    Promise.all(
      Array.from({ length: CALLERS }, () =>
        Promise.race([
          storage.get<{ one: number }>("SELECT 1 AS one").then(
            () => "ok",
            (error: { code?: string }) => String(error.code),
          ),
          Bun.sleep(waitMs).then(() => "pending"),
        ]),
      ),
    );

  test(`${TERMINATIONS} terminations under load: every query settles, and the next round is whole`, async () => {
    for (let i = 0; i < TERMINATIONS; i++) {
      await round(10_000);
      // Queries in flight on every connection while the server ends them: some fail, none hangs.
      const inFlight = round(20_000);
      await terminateAll();
      expect((await inFlight).filter((answer) => answer === "pending")).toEqual([]);
      // Each ended connection fails the one query it is given next; then every connection is a new one
      // that answers at once.
      const answers: string[][] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        answers.push(await round(20_000));
        if (answers.at(-1)!.every((answer) => answer === "ok")) break;
      }
      expect(answers.flat()).not.toContain("pending");
      expect(answers.flat()).not.toContain("CONNECT_TIMEOUT");
      expect(answers.at(-1)).toEqual(Array(CALLERS).fill("ok"));
    }
  }, 120_000);
});
