/**
 * The embedded engine: one SQLite file (WAL, synchronous=NORMAL, foreign keys), migrated at open from
 * the SQL embedded in the program. Two connections per process:
 *
 * - the writer runs the write transactions from one queue (`waitingWrites` is its depth), one at a time,
 *   with group commit (sqlite-writer.ts): each turn runs the transactions waiting then (up to 64) one
 *   after the other in one `BEGIN IMMEDIATE … COMMIT`, each in its own savepoint, so a refusal undoes
 *   only its own writes; every answer, and every afterCommit hook, waits for that COMMIT. A deferred
 *   transaction that reads then writes would fail with SQLITE_BUSY under two writers (busy_timeout
 *   cannot help a lock upgrade). Only this process's queue uses the writer, so a transaction's awaits
 *   never let another request see or join it; it sees the writes of the batch's earlier members, as
 *   if they had committed just before it;
 * - the reader answers every read outside a transaction, from the last commit (WAL snapshots), so no
 *   read ever sees a transaction that may still roll back.
 *
 * A busy lock (another process writing) never blocks the event loop: `busy_timeout` is 0, `BEGIN
 * IMMEDIATE` fails at once, and the queue tries again after a short sleep (5 ms growing to 50 ms, with
 * jitter) for at most `writeWaitMs` (5 s); reads keep flowing meanwhile. Past that the busy error goes
 * up and is answered 503 `database_busy`.
 *
 * Checkpoints run on a thread of their own (sqlite-checkpointer.ts), every 100 ms, so the event loop
 * never waits for the disk's syncs. The writer's automatic checkpoint, which runs inside a COMMIT on
 * the event loop, waits for 10,000 pages of log (40 MB; SQLite's default is 1,000): only a backstop.
 * Durability is the same: a checkpoint syncs the log first.
 *
 * `externalVersion` moves only when another process commits (sqlite-changes.ts: SQLite's own change
 * counter in its shared-memory file, one memory read; the batch writer reports this process's commits):
 * read caches compare it on every read and start over when it moved. Listeners of
 * notification channels are woken after this process's commits, and, while there are any, by a
 * check of that version every 100 ms (another process committed: something may have been notified).
 */
import { Database, type Statement } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { Channels } from "./channels.ts";
import { migrationMetas } from "./migration-metas.ts";
import { migrationJournal, migrationSql } from "./migrations.gen.ts";
import type { Param, Storage, TransactionOptions, Tx } from "./sql.ts";
import { toSqlitePlaceholders } from "./sql.ts";
import { changeSignal } from "./sqlite-changes.ts";
import { startCheckpointer } from "./sqlite-checkpointer.ts";
import { BatchWriter } from "./sqlite-writer.ts";

export { isBusy } from "./sqlite-writer.ts";

/** Pages of WAL before the writer's automatic checkpoint, the backstop (see the module comment). */
const CHECKPOINT_PAGES = 10_000;

export interface SqliteOptions {
  /** How long a write waits for another process's write lock before giving up (default 5 s). */
  writeWaitMs?: number;
}

/** Prepared statements of one connection, by SQL text (a statement prepared per call costs 3× its run). */
class Connection {
  private readonly statements = new Map<string, Statement>();
  constructor(readonly db: Database) {}

  prepare(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(toSqlitePlaceholders(text));
      this.statements.set(text, statement);
    }
    return statement;
  }

  all<T>(text: string, params: readonly Param[] = []): T[] {
    return this.prepare(text).all(...(params as Param[])) as T[];
  }

  get<T>(text: string, params: readonly Param[] = []): T | undefined {
    return (this.prepare(text).get(...(params as Param[])) as T | null) ?? undefined;
  }

  run(text: string, params: readonly Param[] = []): number {
    return this.prepare(text).run(...(params as Param[])).changes;
  }

  close(): void {
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
    this.db.close();
  }
}

function openConnection(path: string): Database {
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 0");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // 64 MiB of page cache (the default is 2 MiB): a write reads the index pages it changes, and with a
  // million memberships they no longer fit in 2 MiB; measured ~20% faster join/leave writes.
  db.exec("PRAGMA cache_size = -65536");
  return db;
}

export interface SqliteStorage extends Storage {
  readonly dialect: "sqlite";
  /** The file's path (":memory:" for a private in-memory database: one connection then). */
  readonly path: string;
  /**
   * The writer connection, for SQLite-only tools and tests (bulk seeding, fault injection). Use it only
   * while no transaction runs, or inside one; never to bypass the queue for a write.
   */
  readonly sqlite: Database;
}

export function openSqlite(path: string, options: SqliteOptions = {}): SqliteStorage {
  const writeWaitMs = options.writeWaitMs ?? 5000;
  if (path !== ":memory:") restrictFiles(path);
  const writerDb = openConnection(path);
  writerDb.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
  migrate(writerDb);
  const writer = new Connection(writerDb);
  // An in-memory database exists only on its one connection.
  const reader = path === ":memory:" ? writer : new Connection(openConnection(path));
  if (reader !== writer) reader.db.exec("PRAGMA query_only = ON");
  const changes = changeSignal(path, writerDb);
  const checkpointer = path === ":memory:" ? undefined : startCheckpointer(path);
  const channels = new Channels();
  const version = () => changes.version();
  let polled = -1;
  let poller: ReturnType<typeof setInterval> | undefined;
  const poll = () => {
    if (channels.size === 0) {
      clearInterval(poller);
      poller = undefined;
      return;
    }
    const now = version();
    if (now !== polled) channels.wakeAll();
    polled = now;
  };

  const writes = new BatchWriter(writer, (channel) => channels.wake(channel), changes);
  const transaction = <T>(fn: (tx: Tx) => Promise<T>, txOptions: TransactionOptions = {}): Promise<T> =>
    writes.run(fn, txOptions.erase === true, txOptions.waitMs ?? writeWaitMs);

  return {
    dialect: "sqlite",
    path,
    sqlite: writerDb,
    all: async (text, params) => reader.all(text, params),
    get: async (text, params) => reader.get(text, params),
    run: (text, params) => transaction(async (tx) => tx.run(text, params)),
    transaction,
    externalVersion: version,
    listen(channel, listener) {
      const remove = channels.add(channel, listener);
      if (!poller) {
        polled = version();
        poller = setInterval(poll, 100);
        poller.unref?.();
      }
      return remove;
    },
    get waitingWrites() {
      return writes.waiting;
    },
    async close() {
      await writes.idle();
      await checkpointer?.stop();
      clearInterval(poller);
      if (reader !== writer) reader.close();
      writer.close();
      changes.close();
    },
  };
}

/**
 * The database holds who is signed in and sealed refresh tokens: only the gateway's user may read it.
 * A new data folder is created 0700 and a new database file 0600 (SQLite creates its -wal and -shm
 * files with the database file's mode); existing files that group or others can read are narrowed to 0600.
 */
function restrictFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

/**
 * Applies the embedded migrations with drizzle's migrator (the same MigrationMeta list its file reader
 * would build). Two processes starting at once are safe: drizzle runs them in one transaction, and
 * the second finds them applied.
 */
function migrate(sqlite: Database): void {
  const db = drizzle({ client: sqlite });
  const metas = migrationMetas(migrationJournal, migrationSql);
  (db as any).dialect.migrate(metas, (db as any).session, {});
}
