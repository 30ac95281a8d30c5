/**
 * What every storage module sees of the database, whatever the engine: SQL text with `$1…$n`
 * placeholders, run as a read (`all`, `get`) or a write (`run`), and one unit of work per write
 * (`transaction`). The SQL is written once, in the common part of SQLite's and PostgreSQL's dialects:
 * `true`/`false` literals, `ON CONFLICT … DO …`, `RETURNING`, row-value comparisons, `||`, `coalesce`.
 * Times are integer milliseconds (bigint in PostgreSQL, returned as numbers); booleans come back as
 * 0/1 from SQLite and true/false from PostgreSQL, so readers wrap them in `Boolean()`.
 *
 * Decisions read inside the transaction that acts on them, never from a cache; `lock(key)` serializes
 * transactions that must not interleave (the invite cap per inviter, one refresh per session): SQLite
 * runs one write transaction at a time anyway, PostgreSQL takes a transaction-scoped advisory lock.
 */

export type Param = string | number | boolean | null;

export interface Sql {
  all<T = Record<string, unknown>>(text: string, params?: readonly Param[]): Promise<T[]>;
  get<T = Record<string, unknown>>(text: string, params?: readonly Param[]): Promise<T | undefined>;
  /** Runs a write; returns how many rows it changed. */
  run(text: string, params?: readonly Param[]): Promise<number>;
}

export interface Tx extends Sql {
  /**
   * A write whose answer is not needed. It runs in order with the transaction's other statements but
   * is not waited for: PostgreSQL sends it with the ones that follow (the last writes go out together
   * with COMMIT). If it fails, the transaction fails with its error and nothing of it remains. Use
   * `run` when the write's outcome decides what comes next.
   */
  write(text: string, params?: readonly Param[]): void;
  /** Waits until no other transaction holds `key`, then holds it until this one ends. */
  lock(key: string): Promise<void>;
  /**
   * Holds `key` shared until this transaction ends: any number of transactions hold it together, and
   * `lock(key)` waits for them all (and holds the next ones off). For many changes that one rare
   * operation must not interleave with (deleting a user against that user's memberships).
   */
  lockShared(key: string): Promise<void>;
  /** Runs `fn` once this transaction has committed (never after a rollback). */
  afterCommit(fn: () => void): void;
  /** Wakes every process's listeners of `channel` once this transaction has committed. */
  notify(channel: string): void;
}

export type Dialect = "sqlite" | "postgres";

export interface TransactionOptions {
  /**
   * What the transaction deletes or overwrites holds a secret: no free page of the database file (or its
   * log) may keep the old bytes (SQLite: `secure_delete`, then a WAL checkpoint that truncates it).
   */
  erase?: boolean;
  /**
   * How long to wait for another process's write lock before failing busy (default: the configured
   * write wait, 5 s). 0 tries once: for work that is retried later anyway and must not hold up an answer.
   */
  waitMs?: number;
}

/** A lock held outside any transaction (see `Storage.holdLock`). */
export interface HeldLock {
  release(): Promise<void>;
}

export interface Storage extends Sql {
  readonly dialect: Dialect;
  /**
   * Takes `key` if no one holds it, and keeps it outside any transaction until `release`, or until
   * this process's connection to the database ends (a process that dies frees it at once, with no
   * clock involved). Undefined when another holder has it. Engines without such a lock (SQLite)
   * leave this out; callers then claim a time-limited lease on a row instead.
   */
  holdLock?(key: string): Promise<HeldLock | undefined>;
  /**
   * Runs `fn` in one write transaction and returns its result; a throw rolls everything back. While
   * another process holds SQLite's write lock, waits (never blocking the event loop) up to
   * `writeWaitMs`, then fails with a busy error (503 `database_busy`).
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * For in-memory caches: a number that changes whenever another process has committed since, read
   * synchronously and cheaply (SQLite's change counter, sqlite-changes.ts). Undefined when the engine has no such
   * signal: then nothing may be cached, and every read goes to the database.
   */
  externalVersion(): number | undefined;
  /**
   * Calls `listener` (coalesced, never during a transaction) after a transaction of any process that
   * notified `channel` has committed, and whenever a notification may have been missed. Returns the
   * unsubscribe.
   */
  listen(channel: string, listener: () => void): () => void;
  /** Write transactions waiting for their turn right now (the queue behind SQLite's one writer). */
  readonly waitingWrites: number;
  close(): Promise<void>;
}

/** `$1…$n` → SQLite's `?1…?n` (same numbering, so a parameter may be used twice). */
export function toSqlitePlaceholders(text: string): string {
  return text.replace(/\$(\d+)/g, "?$1");
}
