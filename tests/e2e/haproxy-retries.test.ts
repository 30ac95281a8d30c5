/**
 * The shipped HAProxy configuration never applies a write twice. Three replicas on PostgreSQL behind
 * it; a replica is killed with -9 after its write has committed and before it could answer. To catch
 * that moment every time, PostgreSQL is made to hold commits (synchronous replication to a standby that
 * never comes: a committing transaction waits, invisible, until the setting is reset, then completes,
 * even if its client died meanwhile). A balancer that re-sent the write to another replica would apply
 * it twice: a create makes a second resource, a leave answers 404 `not_a_member` for a leave that was
 * applied. Instead the client gets the balancer's 502 `replica_failed` as JSON with Retry-After, and
 * the write is applied exactly once. Also: replicas paused longer than the check interval stay in
 * service (health checks have their own timeout), and with no replica left the balancer answers 503
 * `no_replica_available` as JSON. Runs in the PostgreSQL pass of the suite (TEST_DATABASE=postgres).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "../helpers/db.ts";
import { type Haproxy, startHaproxy } from "../helpers/haproxy.ts";
import { testEngine } from "../helpers/postgres.ts";
import { type Replica, startReplicas } from "../helpers/replicas.ts";
import { type Stack, startStack, tokensOf } from "../helpers/stack.ts";

let stack: Stack;
let replicas: Replica[] = [];
let lb: Haproxy;
const tokens: string[] = [];

const db = () => sql(stack.running.gateway.storage);
const call = (base: string, token: string, method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Every commit waits for a standby that does not exist, until `releaseCommits`. */
async function holdCommits(): Promise<void> {
  await db().run("ALTER SYSTEM SET synchronous_standby_names = 'gateway_test_never'");
  await db().get("SELECT pg_reload_conf()");
  // The server passes the reload on to every connection (the replicas' pools) in the background.
  await Bun.sleep(500);
}

async function releaseCommits(): Promise<void> {
  await db().run("ALTER SYSTEM RESET synchronous_standby_names");
  await db().get("SELECT pg_reload_conf()");
}

/** Backends of this database waiting for a held commit or for a row lock. */
const waiting = () =>
  db().count(
    `SELECT count(*) AS n FROM pg_stat_activity
     WHERE datname = current_database() AND (wait_event = 'SyncRep' OR wait_event_type = 'Lock')`,
  );

/** Until `done()` holds, checked every 20 ms, at most `ms` (a bound, never a measure). */
async function until(done: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end && !(await done()); ) await Bun.sleep(20);
}

/**
 * Sends `writes` through the balancer while commits are held (one per replica, round robin), kills
 * `victim` once all three have reached their commit, then lets the commits go. Returns the answers.
 */
async function writesWithAKill(victim: Replica, writes: Array<() => Promise<Response>>) {
  let settled = 0;
  let killed = false;
  await holdCommits();
  try {
    const answers = writes.map((write) =>
      write().then(async (res) => {
        settled++;
        return {
          status: res.status,
          headers: res.headers,
          body: (await res.json()) as Record<string, unknown>,
        };
      }),
    );
    await until(async () => (await waiting()) >= writes.length, 15_000);
    expect(await waiting()).toBe(writes.length);
    await victim.kill();
    killed = true;
    // The victim's write is committed but unanswered. Its client's answer comes now (502), or, were
    // the write re-sent, the copy reaches another replica's commit (or waits for the original's lock).
    await until(async () => settled > 0 || (await waiting()) > writes.length, 5000);
    await releaseCommits();
    return await Promise.all(answers);
  } finally {
    await releaseCommits();
    if (killed) await victim.start();
    await until(async () => {
      const seen = await Promise.all(
        [0, 1, 2].map(() => fetch(`${lb.urls.public}/readyz`).then((r) => r.headers.get("x-replica"))),
      );
      return new Set(seen).size === 3;
    }, 10_000);
  }
}

function expectReplicaFailed(answer: { status: number; headers: Headers; body: Record<string, unknown> }) {
  expect(answer.status).toBe(502);
  expect(answer.headers.get("content-type")).toBe("application/json");
  expect(answer.headers.get("retry-after")).toBe("1");
  expect(Object.keys(answer.body).sort()).toEqual(["code", "error"]);
  expect(answer.body.code).toBe("replica_failed");
}

describe.if(testEngine === "postgres")("the shipped HAProxy in front of three replicas on PostgreSQL", () => {
  beforeAll(async () => {
    stack = await startStack();
    const appsFile = join(stack.dataDir, "apps.json");
    writeFileSync(appsFile, JSON.stringify(stack.apps));
    replicas = await startReplicas(
      {
        ...(process.env as Record<string, string>),
        ...stack.env,
        GATEWAY_CONFIG: appsFile,
        TRUSTED_PROXIES: "127.0.0.1",
        ACCESS_LOG: "false",
      },
      3,
    );
    lb = await startHaproxy([{ name: "public", servers: replicas.map((r) => r.host) }]);
    for (let i = 0; i < 3; i++) tokens.push((await tokensOf(stack, `retry-user-${i}`)).at);
    // Each replica has checked each token: no provider call inside the tests.
    for (const replica of replicas)
      for (const token of tokens) expect((await call(replica.url, token, "GET", "/v1/me")).status).toBe(200);
  }, 90_000);

  afterAll(async () => {
    await releaseCommits().catch(() => {});
    await Promise.all(replicas.map((r) => r.kill()));
    await lb?.stop();
    await stack?.stop();
  }, 30_000);

  test("a replica killed after committing a create, before answering: created once, its client gets 502 replica_failed", async () => {
    const names = tokens.map((_, i) => `once-${i}-${crypto.randomUUID()}`);
    const answers = await writesWithAKill(
      replicas[1]!,
      tokens.map(
        (token, i) => () =>
          call(lb.urls.public!, token, "POST", "/v1/resources", { type: "team", name: names[i] }),
      ),
    );
    // Every create was applied, none twice: the unanswered one too (it committed before the kill).
    for (const name of names)
      expect([name, await db().count("SELECT count(*) AS n FROM resources WHERE name = ?", name)]).toEqual([
        name,
        1,
      ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 502]);
    expectReplicaFailed(answers.find((a) => a.status === 502)!);
  }, 60_000);

  test("a replica killed after committing a leave, before answering: left once, never 404 not_a_member", async () => {
    const albums: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await call(replicas[0]!.url, tokens[0]!, "POST", "/v1/resources", {
        type: "album",
        name: `leave-${i}`,
      });
      albums.push(((await created.json()) as { id: string }).id);
    }
    // Users 1 and 2 join an album each, and user 0 joins a third owned by user 1.
    const third = await call(replicas[0]!.url, tokens[1]!, "POST", "/v1/resources", {
      type: "album",
      name: "leave-x",
    });
    const leavers = [
      { token: tokens[1]!, album: albums[0]! },
      { token: tokens[2]!, album: albums[1]! },
      { token: tokens[0]!, album: ((await third.json()) as { id: string }).id },
    ];
    for (const { token, album } of leavers)
      expect((await call(replicas[0]!.url, token, "POST", `/v1/resources/${album}/join`)).status).toBe(200);

    const answers = await writesWithAKill(
      replicas[2]!,
      leavers.map(
        ({ token, album }) =>
          () =>
            call(lb.urls.public!, token, "POST", `/v1/resources/${album}/leave`),
      ),
    );
    expect(answers.map((a) => a.body.code).filter((code) => code === "not_a_member")).toEqual([]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 502]);
    expectReplicaFailed(answers.find((a) => a.status === 502)!);
    for (const { album } of leavers)
      expect(await db().count("SELECT count(*) AS n FROM members WHERE resource_id = ?", album)).toBe(1);
  }, 60_000);

  test("replicas paused for longer than the check interval stay in service: requests meanwhile are answered, never 503", async () => {
    for (const replica of replicas) replica.child.kill("SIGSTOP");
    let answers: Array<Promise<number>> = [];
    try {
      // Checks every 200 ms: without a check timeout of their own, two slow ones take a replica out.
      await Bun.sleep(1200);
      answers = [0, 1, 2].map(() =>
        call(lb.urls.public!, tokens[0]!, "GET", "/v1/me").then(
          (r) => r.status,
          () => 0,
        ),
      );
      await Bun.sleep(300);
    } finally {
      for (const replica of replicas) replica.child.kill("SIGCONT");
    }
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
  }, 30_000);

  test("no replica left: the balancer's own 503 is JSON no_replica_available with Retry-After", async () => {
    await Promise.all(replicas.map((r) => r.kill()));
    let answer = await fetch(`${lb.urls.public}/v1/me`);
    for (let i = 0; i < 100 && answer.status !== 503; i++) {
      await Bun.sleep(50);
      answer = await fetch(`${lb.urls.public}/v1/me`);
    }
    expect(answer.status).toBe(503);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(await answer.json()).toEqual({
      error: "No gateway replica is available: the request was not applied, retry shortly.",
      code: "no_replica_available",
    });
  }, 30_000);
});
