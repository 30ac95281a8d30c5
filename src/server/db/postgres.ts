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
 * - `notify` is `pg_notify`, delivered to every replica's listener at commit; a listener that was
 *   reconnecting may miss one, so listeners also poll (see events-stream.ts).
 * - Migrations run under a session advisory lock: replicas starting together migrate once.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { Channels } from "./channels.ts";
import { migrationMetas } from "./migration-metas.ts";
import { migrationJournal, migrationSql } from "./migrations-pg.gen.ts";
import type { Param, Storage, TransactionOptions, Tx } from "./sql.ts";

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
}

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

  let inFlight = 0;
  const channels = new Channels();
  const transaction = async <T>(
    fn: (tx: Tx) => Promise<T>,
    _options: TransactionOptions = {},
  ): Promise<T> => {
    inFlight++;
    const hooks: Array<() => void> = [];
    const notified = new Set<string>();
    try {
      const result = await client.begin(async (t) => {
        const tx: Tx = {
          all: (text, params) => rows(t, text, params),
          get: async (text, params) => (await rows<any>(t, text, params))[0],
          run: async (text, params) => (await t.unsafe(text, params as Param[], { prepare: true })).count,
          lock: async (key) => {
            await t.unsafe("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [key], { prepare: true });
          },
          afterCommit: (hook) => hooks.push(hook),
          notify: (channel) => notified.add(channel),
        };
        const result = await fn(tx);
        // Delivered to every replica's listener when (and only if) this transaction commits.
        for (const channel of notified)
          await t.unsafe("SELECT pg_notify($1, '')", [channel], { prepare: true });
        return result;
      });
      for (const hook of hooks) hook();
      return result as T;
    } finally {
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
      await client.end({ timeout: 5 });
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
