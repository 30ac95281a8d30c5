/**
 * The replicated engine: PostgreSQL through postgres.js (the `postgres` package), for any number of
 * gateway processes on any number of hosts. Chosen over Bun's built-in SQL client because drizzle's
 * adapter for it still mishandles JSON and timestamps, and over node-postgres for speed; its LISTEN
 * re-subscribes by itself after a dropped connection.
 *
 * - Every statement is prepared once per connection. `bigint` (times, counts) comes back as a number.
 * - A transaction is READ COMMITTED; what must not interleave takes `tx.lock(key)`, a transaction-
 *   scoped advisory lock (released at commit or rollback, and by the server if this process dies).
 * - Nothing is cached (`externalVersion` is undefined): reads go to the database, so every replica
 *   sees every commit on its very next request.
 * - `notify` is a `pg_notify` sent after the commit, coalesced per process: at most one per channel
 *   every NOTIFY_GAP_MS (under load one notification covers many commits, instead of one statement
 *   each). A listener that was reconnecting, or a process that died inside the gap, may miss one,
 *   so listeners also poll (see events-stream.ts).
 * - `holdLock` is a session advisory lock on a connection of a separate small pool, held outside any
 *   transaction (an open transaction would hold back the event stream's cursor): one refresh per
 *   session across replicas, freed by the server the moment its holder's connection ends.
 * - Migrations run under a session advisory lock: replicas starting together migrate once.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { Channels } from "./channels.ts";
import { migrationMetas } from "./migration-metas.ts";
import { migrationJournal, migrationSql } from "./migrations-pg.gen.ts";
import { OwnConnection } from "./postgres-own.ts";
import type { Param, Storage, TransactionOptions, Tx } from "./sql.ts";

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Connections for locks held outside transactions, each for as long as it is held (default 20). */
  lockPoolSize?: number;
}

/** The longest a committed transaction's notification waits, to be sent with those of other commits. */
const NOTIFY_GAP_MS = 5;

/** An arbitrary constant: the advisory lock every replica takes around its migrations. */
const MIGRATION_LOCK = 7_242_023_001;

type Client = postgres.Sql<Record<string, never>>;
type Runner = Pick<postgres.Sql, "unsafe">;

const rows = async <T>(runner: Runner, text: string, params: readonly Param[] = []): Promise<T[]> =>
  [...(await runner.unsafe(text, params as Param[], { prepare: true }))] as T[];

export interface PostgresStorage extends Storage {
  readonly dialect: "postgres";
  /** The driver, for PostgreSQL-only tools and tests (fault injection, LISTEN). */
  readonly client: Client;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresStorage> {
  const poolSize = options.poolSize ?? 10;
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    connect_timeout: 5,
    // Idle connections are closed after a while: a quiet replica holds none open.
    idle_timeout: 30,
    types: {
      bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: Number },
    },
  }) as unknown as Client;
  await migrate(client);
  // Held locks get connections of their own: one held across a slow provider call must never take a
  // connection from the requests. Opened on first use, closed when idle.
  const lockClient = postgres(url, {
    max: options.lockPoolSize ?? 20,
    onnotice: () => {},
    connect_timeout: 5,
    idle_timeout: 30,
  }) as unknown as Client;

  let inFlight = 0;
  const channels = new Channels();
  const outgoing = new Set<string>();
  let sendTimer: ReturnType<typeof setTimeout> | undefined;
  const sendNotifications = () => {
    sendTimer = undefined;
    for (const channel of outgoing)
      client.unsafe("SELECT pg_notify($1, '')", [channel], { prepare: true }).catch(() => {});
    outgoing.clear();
  };
  const announce = (channel: string) => {
    outgoing.add(channel);
    sendTimer ??= setTimeout(sendNotifications, NOTIFY_GAP_MS);
  };
  /**
   * One transaction on a connection of its own, its statements pipelined: BEGIN goes out with the
   * first statements, statements issued together (`Promise.all`) travel together, and the writes
   * nobody waits for (`tx.write`) go out with COMMIT. A membership change is two round trips: BEGIN
   * with its reads, then its writes with COMMIT.
   */
  const transaction = async <T>(
    fn: (tx: Tx) => Promise<T>,
    _options: TransactionOptions = {},
  ): Promise<T> => {
    inFlight++;
    const hooks: Array<() => void> = [];
    const notified = new Set<string>();
    let connection: OwnConnection | undefined;
    try {
      connection = await OwnConnection.reserve(client);
      const t = connection;
      /** Statements not waited for, each settling to its error or undefined. */
      const unawaited: Array<Promise<Error | undefined>> = [];
      const send = (text: string, params: readonly Param[] = []) =>
        unawaited.push(
          t.query(text, params).then(
            () => undefined,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          ),
        );
      // Can fail only with the connection, and then so does everything after it.
      send("BEGIN");
      const tx: Tx = {
        all: async (text, params) => [...(await t.query(text, params))] as any[],
        get: async (text, params) => (await t.query(text, params))[0] as any,
        run: async (text, params) => (await t.query(text, params)).count,
        write: (text, params) => void send(text, params),
        lock: async (key) => {
          await t.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [key]);
        },
        lockShared: async (key) => {
          await t.query("SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))", [key]);
        },
        afterCommit: (hook) => hooks.push(hook),
        notify: (channel) => notified.add(channel),
      };
      /** The first statement not waited for that failed: what failed the transaction. */
      const firstFailure = async () => (await Promise.all(unawaited)).find((error) => error !== undefined);
      let result: T;
      try {
        result = await fn(tx);
      } catch (error) {
        if (t.alive) await t.query("ROLLBACK").catch(() => {});
        // A statement after a failed write fails too ("transaction is aborted"): report the cause.
        throw (await firstFailure()) ?? error;
      }
      // Sent behind the writes still in flight; after a failed one, PostgreSQL answers it by rolling back.
      const committed = t.query("COMMIT").then(
        () => undefined,
        (error: unknown) => error,
      );
      const failure = await firstFailure();
      const commitError = await committed;
      if (failure) throw failure;
      if (commitError) throw commitError;
      for (const channel of notified) announce(channel);
      for (const hook of hooks) hook();
      return result;
    } finally {
      connection?.release();
      inFlight--;
    }
  };

  return {
    dialect: "postgres",
    client,
    all: (text, params) => rows(client, text, params),
    get: async (text, params) => (await rows<any>(client, text, params))[0],
    run: async (text, params) => (await client.unsafe(text, params as Param[], { prepare: true })).count,
    transaction,
    async holdLock(key) {
      const connection = await OwnConnection.reserve(lockClient);
      let held = false;
      try {
        const [row] = await connection.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held", [
          key,
        ]);
        held = row?.held === true;
      } finally {
        if (!held) connection.release();
      }
      if (!held) return undefined;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          try {
            // An ended connection has no lock left to give back: the server freed it with the session.
            if (connection.alive)
              await connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]);
          } finally {
            connection.release();
          }
        },
      };
    },
    externalVersion: () => undefined,
    listen(channel, listener) {
      // One LISTEN per channel; postgres.js re-runs `onlisten` after it reconnects, and a notification
      // sent while it was away is lost, so listeners are woken then to read what they may have missed.
      return channels.add(channel, listener, () => {
        void client
          .listen(
            channel,
            () => channels.wake(channel),
            () => channels.wake(channel),
          )
          .catch(() => channels.wake(channel));
      });
    },
    get waitingWrites() {
      return Math.max(0, inFlight - poolSize);
    },
    async close() {
      clearTimeout(sendTimer);
      sendNotifications();
      await Promise.all([client.end({ timeout: 5 }), lockClient.end({ timeout: 5 })]);
    },
  };
}

/** Applies the embedded migrations once, whichever replica gets there first (the others wait, then find them applied). */
async function migrate(client: Client): Promise<void> {
  const reserved = await client.reserve();
  try {
    await reserved.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    const db = drizzle({ client });
    const metas = migrationMetas(migrationJournal, migrationSql);
    await (db as any).dialect.migrate(metas, (db as any).session, {});
  } finally {
    await reserved.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => {});
    reserved.release();
  }
}
