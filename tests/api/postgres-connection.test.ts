/**
 * A replica that loses its PostgreSQL: while the database refuses connections, requests that need it
 * answer 503 `database_unavailable` with Retry-After (never a 500, never a hang) and `/readyz` says 503
 * so the balancer takes the replica out; once the database is back the replica recovers by itself.
 * Runs in the PostgreSQL pass of the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { sharedPostgres, testEngine } from "../helpers/postgres.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";

describe.if(testEngine === "postgres")("a replica losing its database", () => {
  let stack: Stack;
  let admin: ReturnType<typeof postgres>;
  let name = "";
  beforeAll(async () => {
    stack = await startStack();
    const cluster = await sharedPostgres();
    name = new URL(stack.env.DATABASE_URL!).pathname.slice(1);
    admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  }, 60_000);
  afterAll(async () => {
    await admin?.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end();
    await stack?.stop();
  }, 30_000);

  test("503 database_unavailable and /readyz 503 while it is gone; recovers by itself when it is back", async () => {
    const { browser } = await signIn(stack, "pg-outage");
    const cookie = browser.cookieHeader(stack.url);
    const me = () => fetch(`${stack.url}/v1/me`, { headers: { cookie } });
    expect((await me()).status).toBe(200);

    await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.unsafe(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    );
    try {
      for (let i = 0; i < 3; i++) {
        const res = await me();
        expect(res.status).toBe(503);
        expect(await res.json()).toMatchObject({ code: "database_unavailable" });
        expect(res.headers.get("retry-after")).toBe("5");
      }
      const ready = await fetch(`${stack.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ code: "not_ready" });
      expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
    } finally {
      await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    }

    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await me()).status;
      if (status !== 200) await Bun.sleep(50);
    }
    expect(status).toBe(200);
    expect((await fetch(`${stack.url}/readyz`)).status).toBe(200);
  }, 60_000);
});
