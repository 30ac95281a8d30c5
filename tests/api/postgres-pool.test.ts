/**
 * A PostgreSQL replica costs the same per request however long it has been loaded. postgres.js 3.4.9
 * kept a slot per query in the array of its busy connections whenever more queries were in flight
 * than connections, and searched that whole array each time a connection changed state: after N such
 * queries every query walked about N slots, so a replica's CPU per cookie check grew for as long as
 * the load lasted (patches/postgres@3.4.9.patch). The walk is counted here, not timed: the array the
 * pool searches for a connection must stay about the size of the pool.
 * Runs in the PostgreSQL pass of the suite.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { testEngine } from "../helpers/postgres.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";

/** The gateway's pool (openPostgres' default) and the callers the benchmark puts on it (wrk -c32). */
const POOL = 10;
const CALLERS = 32;

/** A postgres.js pool connection: what its pool moves between its queues (open, busy, full, …). */
const isPoolConnection = (value: unknown) =>
  typeof value === "object" && value !== null && "idleTimer" in value && "execute" in value;

/** Records the longest array searched for a pool connection (the pool's `Queue.remove`), until restored. */
function watchPoolSearches() {
  const original = Array.prototype.indexOf;
  const watch = {
    longest: 0,
    searches: 0,
    restore() {
      Array.prototype.indexOf = original;
    },
  };
  Array.prototype.indexOf = function (this: unknown[], value: unknown, from?: number) {
    if (isPoolConnection(value)) {
      watch.searches++;
      watch.longest = Math.max(watch.longest, this.length);
    }
    return original.call(this, value, from);
  } as typeof original;
  return watch;
}

describe.if(testEngine === "postgres")("a replica under sustained load", () => {
  let stack: Stack;
  let watch: ReturnType<typeof watchPoolSearches> | undefined;
  beforeAll(async () => {
    stack = await startStack();
  }, 60_000);
  afterEach(() => watch?.restore());
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  test("32 callers' cookie checks on a 10-connection pool: its bookkeeping stays the pool's size", async () => {
    const { browser } = await signIn(stack, "sustained-load");
    const cookie = browser.cookieHeader(stack.url);
    watch = watchPoolSearches();
    const statuses = new Map<number, number>();
    let signedIn = 0;
    const caller = async () => {
      for (let i = 0; i < 120; i++) {
        const res = await fetch(`${stack.url}/auth/session`, { headers: { cookie } });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (((await res.json()) as { authenticated?: boolean }).authenticated === true) signedIn++;
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, caller));
    watch.restore();

    expect([...statuses]).toEqual([[200, CALLERS * 120]]);
    expect(signedIn).toBe(CALLERS * 120);
    // The pool moved its connections between queues (one search per move) thousands of times…
    expect(watch.searches).toBeGreaterThan(1000);
    // …and never searched more than a few pools' worth of slots (3.4.9 as released: thousands).
    expect(watch.longest).toBeLessThanOrEqual(3 * POOL);
  }, 60_000);
});
