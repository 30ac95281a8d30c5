/**
 * The storage contract every engine keeps (src/server/db/sql.ts), checked against the engine this pass
 * of the suite runs on: a SQLite file, or a database in the test PostgreSQL cluster
 * (TEST_DATABASE=postgres). CI runs the suite once per engine, so both keep the same contract; a new
 * engine passes this file before anything else. Each test opens two handles on one database where the
 * contract is about other processes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/server/db/open.ts";
import type { Storage, Tx } from "../../src/server/db/sql.ts";
import { sharedPostgres, testEngine } from "../helpers/postgres.ts";
import { tempDir } from "../helpers/stack.ts";

let target: string;
let storage: Storage;
/** A second handle on the same database: another process, as far as the contract goes. */
let other: Storage;

beforeAll(async () => {
  target =
    testEngine === "postgres"
      ? await (await sharedPostgres()).createDatabase("conformance")
      : join(tempDir("sg-conformance-"), "conformance.db");
  storage = await openStorage(target);
  other = await openStorage(target);
  await storage.run("CREATE TABLE kv (k text PRIMARY KEY, v bigint NOT NULL, flag boolean)");
}, 60_000);

afterAll(async () => {
  await other?.close();
  await storage?.close();
}, 30_000);

const value = async (s: Storage, k: string) =>
  (await s.get<{ v: number }>("SELECT v FROM kv WHERE k = $1", [k]))?.v;

describe(`the storage contract (${testEngine})`, () => {
  test("$n placeholders, a parameter used twice, integers beyond 2^32 as numbers, booleans", async () => {
    expect(await storage.run("INSERT INTO kv (k, v, flag) VALUES ($1, $2, $3)", ["a", 2 ** 40, true])).toBe(
      1,
    );
    const row = await storage.get<{ v: number; same: boolean; flag: unknown }>(
      "SELECT v, k = $1 AND $1 = 'a' AS same, flag FROM kv WHERE k = $1",
      ["a"],
    );
    expect(row?.v).toBe(2 ** 40);
    expect(typeof row?.v).toBe("number");
    expect(Boolean(row?.same)).toBe(true);
    expect(Boolean(row?.flag)).toBe(true);
    expect(await storage.get("SELECT v FROM kv WHERE k = $1", ["nobody"])).toBeUndefined();
    expect(await storage.all("SELECT v FROM kv WHERE k = $1", ["nobody"])).toEqual([]);
    expect(await storage.run("UPDATE kv SET v = v + 1 WHERE k = $1", ["nobody"])).toBe(0);
  });

  test("a transaction commits all of its writes, and its result comes back", async () => {
    const result = await storage.transaction(async (tx) => {
      expect(await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["t1", 1])).toBe(1);
      tx.write("INSERT INTO kv (k, v) VALUES ($1, $2)", ["t2", 2]);
      return "done";
    });
    expect(result).toBe("done");
    expect(await value(storage, "t1")).toBe(1);
    expect(await value(other, "t2")).toBe(2);
  });

  test("a throw rolls back every write of the transaction, waited for or not", async () => {
    const failed = storage.transaction(async (tx) => {
      await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["r1", 1]);
      tx.write("INSERT INTO kv (k, v) VALUES ($1, $2)", ["r2", 2]);
      throw new Error("refused");
    });
    await expect(failed).rejects.toThrow("refused");
    expect(await value(storage, "r1")).toBeUndefined();
    expect(await value(storage, "r2")).toBeUndefined();
  });

  test("a write not waited for that fails fails the transaction with its own error, and nothing remains", async () => {
    await storage.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["dup", 1]);
    let returned = false;
    const failed = storage.transaction(async (tx) => {
      tx.write("UPDATE kv SET v = 100 WHERE k = $1", ["dup"]);
      tx.write("INSERT INTO kv (k, v) VALUES ($1, $2)", ["dup", 2]);
      tx.write("INSERT INTO kv (k, v) VALUES ($1, $2)", ["after-dup", 3]);
      returned = true;
    });
    await expect(failed).rejects.toThrow(/unique|duplicate/i);
    // SQLite runs each write at once, so its fn stops at the failure; PostgreSQL learns it at commit.
    expect(returned).toBe(testEngine === "postgres");
    expect(await value(storage, "dup")).toBe(1);
    expect(await value(storage, "after-dup")).toBeUndefined();
  });

  test("statements of a transaction run in the order they were issued: a read sees the writes before it", async () => {
    const seen = await storage.transaction(async (tx) => {
      tx.write("INSERT INTO kv (k, v) VALUES ($1, $2)", ["o1", 1]);
      tx.write("UPDATE kv SET v = v * 10 WHERE k = $1", ["o1"]);
      const [a, b] = await Promise.all([
        tx.get<{ v: number }>("SELECT v FROM kv WHERE k = $1", ["o1"]),
        tx.run("UPDATE kv SET v = v + 1 WHERE k = $1", ["o1"]),
      ]);
      const c = await tx.get<{ v: number }>("SELECT v FROM kv WHERE k = $1", ["o1"]);
      return [a?.v, b, c?.v];
    });
    expect(seen).toEqual([10, 1, 11]);
  });

  test("nothing of an open transaction is visible outside it until it commits", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => {
      written = resolve;
    });
    const running = storage.transaction(async (tx) => {
      await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["hidden", 1]);
      written();
      await gate;
    });
    await wrote;
    expect(await value(storage, "hidden")).toBeUndefined();
    expect(await value(other, "hidden")).toBeUndefined();
    release();
    await running;
    expect(await value(storage, "hidden")).toBe(1);
    expect(await value(other, "hidden")).toBe(1);
  });

  test("afterCommit runs after a commit, never after a rollback", async () => {
    const ran: string[] = [];
    await storage.transaction(async (tx) => {
      tx.afterCommit(() => ran.push("committed"));
      expect(ran).toEqual([]);
    });
    await storage
      .transaction(async (tx) => {
        tx.afterCommit(() => ran.push("rolled back"));
        throw new Error("no");
      })
      .catch(() => {});
    expect(ran).toEqual(["committed"]);
  });

  test("lock(key): transactions of two processes holding one key run one after the other", async () => {
    await storage.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["counter", 0]);
    // Read, wait, write back: without the lock the increments would overwrite each other.
    const increment = (s: Storage) =>
      s.transaction(async (tx: Tx) => {
        await tx.lock("conformance:counter");
        const current = await tx.get<{ v: number }>("SELECT v FROM kv WHERE k = $1", ["counter"]);
        await Bun.sleep(5);
        await tx.run("UPDATE kv SET v = $1 WHERE k = $2", [current!.v + 1, "counter"]);
      });
    await Promise.all(Array.from({ length: 10 }, (_, i) => increment(i % 2 ? storage : other)));
    expect(await value(storage, "counter")).toBe(10);
  }, 30_000);

  test("lockShared(key): lock(key) waits for every shared holder, and holds the next off until it ends", async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const shared = storage.transaction(async (tx: Tx) => {
      await tx.lockShared("conformance:user");
      held();
      await gate;
      order.push("shared done");
    });
    await holding;
    const exclusive = other.transaction(async (tx: Tx) => {
      await tx.lock("conformance:user");
      order.push("exclusive holds");
      await Bun.sleep(50);
      order.push("exclusive done");
    });
    await Bun.sleep(100); // the exclusive one is waiting by now
    release();
    await Promise.all([shared, exclusive]);
    const after = other.transaction(async (tx: Tx) => {
      await tx.lockShared("conformance:user");
      order.push("next shared");
    });
    await after;
    expect(order).toEqual(["shared done", "exclusive holds", "exclusive done", "next shared"]);
  }, 30_000);

  test.if(testEngine === "postgres")(
    "lockShared(key): shared holders of one key run at the same time (PostgreSQL)",
    async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = storage.transaction(async (tx: Tx) => {
        await tx.lockShared("conformance:together");
        await gate;
      });
      // Would wait for the first (and never end) if the lock were exclusive.
      await other.transaction((tx: Tx) => tx.lockShared("conformance:together"));
      release();
      await first;
    },
    30_000,
  );

  test("notify(channel) wakes the listeners of every process once the transaction commits, not before", async () => {
    let wakes = 0;
    const stop = other.listen("conformance_channel", () => wakes++);
    try {
      await Bun.sleep(300); // the listener is subscribed
      wakes = 0;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const running = storage.transaction(async (tx) => {
        await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["notified", 1]);
        tx.notify("conformance_channel");
        await gate;
      });
      await Bun.sleep(300);
      expect(wakes).toBe(0);
      release();
      await running;
      for (let i = 0; i < 100 && wakes === 0; i++) await Bun.sleep(20);
      expect(wakes).toBeGreaterThan(0);
    } finally {
      stop();
    }
  }, 30_000);

  test("externalVersion: moves when another process commits (SQLite), or is undefined and nothing may be cached (PostgreSQL)", async () => {
    const before = storage.externalVersion();
    await other.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["elsewhere", 1]);
    const after = storage.externalVersion();
    if (testEngine === "postgres") {
      expect(before).toBeUndefined();
      expect(after).toBeUndefined();
    } else {
      expect(typeof before).toBe("number");
      expect(after).not.toBe(before);
      await storage.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["here", 1]);
      expect(storage.externalVersion()).toBe(after); // its own commits do not move it
    }
  });

  test("holdLock: one holder at a time, free again on release or the moment its holder's connection dies", async () => {
    if (!storage.holdLock) {
      // SQLite has no lock outside transactions: callers use a lease on a row instead.
      expect(testEngine).toBe("sqlite");
      return;
    }
    const first = await storage.holdLock("conformance:held");
    expect(first).toBeDefined();
    expect(await other.holdLock!("conformance:held")).toBeUndefined();
    expect(await storage.holdLock("conformance:held")).toBeUndefined(); // not re-entrant either
    await first!.release();
    const second = await other.holdLock!("conformance:held");
    expect(second).toBeDefined();
    // The holder's process dies: its connection ends, and the lock is free at once.
    const terminated = await storage.get<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_locks WHERE locktype = 'advisory'
       AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(Number(terminated?.n)).toBe(1);
    let third = await storage.holdLock("conformance:held");
    for (let i = 0; i < 50 && !third; i++) {
      await Bun.sleep(20);
      third = await storage.holdLock("conformance:held");
    }
    expect(third).toBeDefined();
    await third!.release();
    await second!.release().catch(() => {}); // its connection is gone already
  }, 30_000);

  test("a transaction whose connection ends fails as unavailable, leaves nothing, and the next one works", async () => {
    if (testEngine !== "postgres") return; // one file, no connection to lose
    const failed = storage.transaction(async (tx) => {
      await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["lost", 1]);
      const me = await tx.get<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await other.run("SELECT pg_terminate_backend($1)", [me!.pid]);
      await Bun.sleep(50);
      tx.write("INSERT INTO kv (k, v) VALUES ($1, $2)", ["lost-too", 1]);
      await tx.run("UPDATE kv SET v = 2 WHERE k = $1", ["lost"]);
    });
    await expect(failed).rejects.toMatchObject({ code: expect.stringMatching(/^(CONNECTION_|57P01)/) });
    expect(await value(storage, "lost")).toBeUndefined();
    expect(await value(storage, "lost-too")).toBeUndefined();
    await storage.transaction(async (tx) => {
      await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["after-loss", 1]);
    });
    expect(await value(other, "after-loss")).toBe(1);
  }, 30_000);

  /** `n` transactions issued at once; `i` inserts `${prefix}-i`, and the one at `throwAt` throws after its insert. */
  const concurrentInserts = (
    prefix: string,
    n: number,
    throwAt: number,
    extra?: (tx: Tx, i: number) => void,
  ) =>
    Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        storage.transaction(async (tx) => {
          await tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", [`${prefix}-${i}`, i]);
          extra?.(tx, i);
          if (i === throwAt) throw new Error(`refused ${i}`);
          // What this transaction sees of the others: on SQLite, the members before it in its batch.
          const seen = await tx.get<{ n: number }>("SELECT count(*) AS n FROM kv WHERE k LIKE $1", [
            `${prefix}-%`,
          ]);
          return Number(seen?.n);
        }),
      ),
    );
  const keysLike = async (s: Storage, prefix: string) =>
    (await s.all<{ k: string }>("SELECT k FROM kv WHERE k LIKE $1 ORDER BY v", [`${prefix}-%`])).map(
      (r) => r.k,
    );

  test("many transactions at once, one throws: only the thrower's writes are undone, and only it fails", async () => {
    const outcomes = await concurrentInserts("many", 40, 17);
    expect(outcomes.map((o) => o.status)).toEqual(
      Array.from({ length: 40 }, (_, i) => (i === 17 ? "rejected" : "fulfilled")),
    );
    expect((outcomes[17] as PromiseRejectedResult).reason.message).toBe("refused 17");
    const expected = Array.from({ length: 40 }, (_, i) => `many-${i}`).filter((k) => k !== "many-17");
    expect(await keysLike(storage, "many")).toEqual(expected);
    expect(await keysLike(other, "many")).toEqual(expected);
    if (testEngine === "sqlite") {
      // They ran as one batch, in order: each saw the members before it (never the thrower's row).
      const seen = outcomes.map((o) => (o.status === "fulfilled" ? o.value : undefined));
      expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => (i === 17 ? undefined : i < 17 ? i + 1 : i)));
    }
  });

  test("afterCommit hooks of transactions issued at once run once their commit is visible to other connections", async () => {
    const visible: Array<Promise<string[]>> = [];
    const outcomes = await concurrentInserts("hooked", 30, 9, (tx, i) =>
      tx.afterCommit(() => {
        // Issued in the hook (SQLite reads at once): what a reader outside the transaction sees now.
        visible[i] = keysLike(other, "hooked");
      }),
    );
    expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(1);
    expect(visible[9]).toBeUndefined(); // the refused one's hook never runs
    for (let i = 0; i < 30; i++) {
      if (i === 9) continue;
      const keys = await visible[i]!;
      expect([i, keys.includes(`hooked-${i}`)]).toEqual([i, true]);
      // SQLite: the whole batch committed together before any of its hooks ran.
      if (testEngine === "sqlite") expect(keys).toHaveLength(29);
    }
  });

  test.if(testEngine === "sqlite")(
    "a batch whose COMMIT fails fails every member with that error, and nothing of it remains (SQLite)",
    async () => {
      await storage.run(
        "CREATE TABLE kv_child (k text PRIMARY KEY, parent text REFERENCES kv (k) DEFERRABLE INITIALLY DEFERRED)",
      );
      // The member at 4 leaves a dangling deferred reference: SQLite checks it at COMMIT, which fails.
      const outcomes = await concurrentInserts("doomed", 10, -1, (tx, i) => {
        if (i === 4) tx.write("INSERT INTO kv_child (k, parent) VALUES ($1, $2)", ["orphan", "nobody"]);
      });
      expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill("rejected"));
      for (const o of outcomes) expect((o as PromiseRejectedResult).reason.code).toMatch(/SQLITE_CONSTRAINT/);
      expect(await keysLike(storage, "doomed")).toEqual([]);
      expect(await keysLike(other, "doomed")).toEqual([]);
      expect(await storage.get("SELECT k FROM kv_child")).toBeUndefined();
      // The writer goes on.
      expect(await concurrentInserts("after-doomed", 3, -1)).toHaveLength(3);
      expect(await keysLike(other, "after-doomed")).toHaveLength(3);
    },
  );

  test.if(testEngine === "sqlite")(
    "while another process holds the write lock past waitMs, BEGIN fails: every transaction fails busy, none applied (SQLite)",
    async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held!: () => void;
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      const holder = other.transaction(async () => {
        held();
        await gate;
      });
      await holding;
      const attempts = Array.from({ length: 6 }, (_, i) =>
        storage.transaction((tx) => tx.run("INSERT INTO kv (k, v) VALUES ($1, $2)", [`blocked-${i}`, i]), {
          waitMs: 30,
        }),
      );
      await Bun.sleep(0);
      expect(storage.waitingWrites).toBe(6); // queued, and the first waiting for the lock
      const outcomes = await Promise.allSettled(attempts);
      release();
      await holder;
      for (const o of outcomes) expect((o as PromiseRejectedResult).reason?.code).toMatch(/^SQLITE_BUSY/);
      expect(storage.waitingWrites).toBe(0);
      expect(await keysLike(storage, "blocked")).toEqual([]);
      await storage.run("INSERT INTO kv (k, v) VALUES ($1, $2)", ["unblocked", 1]);
      expect(await value(other, "unblocked")).toBe(1);
    },
    30_000,
  );

  test.if(testEngine === "sqlite")(
    "an erase transaction runs alone, never in a batch with others (SQLite)",
    async () => {
      const secureDelete = (options?: { erase: true }) =>
        storage.transaction(
          async (tx) => Number(Object.values((await tx.get("PRAGMA secure_delete")) ?? {})[0]),
          options,
        );
      const seen = await Promise.all([secureDelete(), secureDelete({ erase: true }), secureDelete()]);
      expect(seen).toEqual([0, 1, 0]);
    },
  );

  test("a transaction waits while another process holds the write lock or its key, then goes on", async () => {
    expect(storage.waitingWrites).toBe(0);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holder = other.transaction(async (tx) => {
      await tx.lock("conformance:queue");
      await tx.run("UPDATE kv SET v = v + 1 WHERE k = $1", ["counter"]);
      await gate;
    });
    await Bun.sleep(100);
    const waiting = storage.transaction(async (tx) => {
      await tx.lock("conformance:queue");
      await tx.run("UPDATE kv SET v = v + 1 WHERE k = $1", ["counter"]);
    });
    await Bun.sleep(100);
    expect(await value(storage, "counter")).toBe(10); // neither has committed
    release();
    await Promise.all([holder, waiting]);
    expect(await value(storage, "counter")).toBe(12);
    expect(storage.waitingWrites).toBe(0);
  }, 30_000);
});
