/**
 * SQLite's writer with group commit: write transactions wait in one queue, and each turn of the writer
 * runs as many of them as are waiting (at most `cap`) inside one `BEGIN IMMEDIATE … COMMIT`, one after
 * the other, each in its own savepoint. One commit (one append to the WAL, each changed page written
 * once) then answers many writes.
 *
 * - A member that throws is rolled back to its savepoint: only its own writes are undone, the others
 *   go on. Its promise is rejected once the batch's outcome is known, like every other answer.
 * - Members resolve, and their afterCommit hooks (and notifications) run, only after COMMIT returned:
 *   nothing is answered before it is as durable as a lone transaction's commit.
 * - If BEGIN, COMMIT, or a statement that makes SQLite roll back the whole transaction (a full disk, an
 *   I/O error) fails, nothing of the batch remains and every member fails with that error (a refused
 *   member too: its refusal may have been decided on writes that were never committed).
 * - `erase` transactions run alone (secure_delete, then a WAL checkpoint that truncates the log).
 *
 * A member sees the writes of the members before it (they share the connection), as if they had
 * committed just before it: the same order the queue gives without batching. Reads outside any
 * transaction (the reader connection) see the batch only once it has committed.
 *
 * The first transaction queued starts the writer's turn one task later (`setImmediate`), so that the
 * requests that arrived together all join the batch: they would otherwise each commit alone, since a
 * transaction whose statements never leave the event loop's current task runs to its commit before the
 * next request is even read.
 */
import type { Database } from "bun:sqlite";
import type { Param, Tx } from "./sql.ts";
import type { ChangeSignal } from "./sqlite-changes.ts";

/** How many transactions one commit answers at most (measured: more gains nothing, and holds answers). */
export const BATCH_CAP = 64;

/** What the writer needs of the connection. */
export interface WriterConnection {
  readonly db: Database;
  all<T>(text: string, params?: readonly Param[]): T[];
  get<T>(text: string, params?: readonly Param[]): T | undefined;
  run(text: string, params?: readonly Param[]): number;
}

export interface Job<T = unknown> {
  fn: (tx: Tx) => Promise<T>;
  erase: boolean;
  waitMs: number;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** A member of a batch, once its `fn` has run. */
interface Done {
  job: Job;
  hooks: Array<() => void>;
  ok: boolean;
  value: unknown;
}

export class BatchWriter {
  private readonly queue: Job[] = [];
  private running: Promise<void> | undefined;
  /** 1 while the head of the queue sleeps on another process's write lock. */
  private sleeping = 0;

  constructor(
    private readonly conn: WriterConnection,
    /** Wakes the listeners of a channel (after a commit). */
    private readonly wake: (channel: string) => void,
    /** Told of this process's own transactions, so the change signal does not count them (sqlite-changes.ts). */
    private readonly own: Pick<ChangeSignal, "beginOwn" | "endOwn">,
    private readonly cap = BATCH_CAP,
  ) {}

  /** Transactions waiting for their turn (queued, or the head waiting for another process's lock). */
  get waiting(): number {
    return this.queue.length + this.sleeping;
  }

  run<T>(fn: (tx: Tx) => Promise<T>, erase: boolean, waitMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, erase, waitMs, resolve, reject } as Job);
      this.running ??= this.drain();
    });
  }

  /** Resolves once the queue is empty and no batch runs. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (let head = this.queue.shift(); head; head = this.queue.shift()) await this.batch(head);
    } finally {
      this.running = undefined;
    }
  }

  /** Takes the file's write lock, waiting (without blocking) while another process holds it. */
  private async begin(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (let delay = 5; ; delay = Math.min(50, delay * 2)) {
      try {
        this.conn.db.exec("BEGIN IMMEDIATE");
        this.own.beginOwn();
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() + delay > deadline) throw error;
      }
      this.sleeping++;
      try {
        await Bun.sleep(delay * (0.5 + Math.random()));
      } finally {
        this.sleeping--;
      }
    }
  }

  /** One turn: `head`, then whatever is queued meanwhile (never with an erase), in one transaction. */
  private async batch(head: Job): Promise<void> {
    const db = this.conn.db;
    try {
      await this.begin(head.waitMs);
    } catch (error) {
      head.reject(error);
      return;
    }
    const taken: Job[] = [head];
    const done: Done[] = [];
    let failure: { error: unknown } | undefined;
    try {
      if (head.erase) db.exec("PRAGMA secure_delete = ON");
      for (let job: Job | undefined = head; job; job = this.next(head, taken.length)) {
        if (job !== head) taken.push(job);
        const member = await this.member(job);
        done.push(member);
        // SQLite rolled the whole transaction back (a full disk, an I/O error): no member remains.
        if (!db.inTransaction)
          throw member.ok ? new Error("the write transaction was rolled back") : member.value;
      }
      db.exec("COMMIT");
    } catch (error) {
      failure = { error };
    }
    try {
      if (db.inTransaction) db.exec("ROLLBACK");
      if (head.erase) {
        db.exec("PRAGMA secure_delete = OFF");
        truncateLog(db);
      }
    } catch (error) {
      failure ??= { error };
    }
    // In the same synchronous step as the COMMIT (or ROLLBACK, or checkpoint): all of it was ours.
    this.own.endOwn();
    if (failure) {
      for (const job of taken) job.reject(failure.error);
      return;
    }
    for (const { job, hooks, ok, value } of done) {
      if (!ok) {
        job.reject(value);
        continue;
      }
      try {
        for (const hook of hooks) hook();
        job.resolve(value);
      } catch (error) {
        job.reject(error);
      }
    }
  }

  /** The next member of the batch, if one is queued and the batch may grow. */
  private next(head: Job, size: number): Job | undefined {
    if (head.erase || size >= this.cap || this.queue[0]?.erase) return undefined;
    return this.queue.shift();
  }

  /** Runs one member in its own savepoint: released when it returns, rolled back to when it throws. */
  private async member(job: Job): Promise<Done> {
    const conn = this.conn;
    const hooks: Array<() => void> = [];
    let open = true;
    const live = () => {
      if (!open) throw new Error("the transaction has ended");
      return conn;
    };
    const tx: Tx = {
      all: async (text, params) => live().all(text, params),
      get: async (text, params) => live().get(text, params),
      run: async (text, params) => live().run(text, params),
      write: (text, params) => {
        live().run(text, params);
      },
      // One write transaction at a time already: nothing else to wait for.
      lock: async () => {},
      lockShared: async () => {},
      afterCommit: (hook) => hooks.push(hook),
      notify: (channel) => hooks.push(() => this.wake(channel)),
    };
    conn.run("SAVEPOINT member");
    try {
      const value = await job.fn(tx);
      if (conn.db.inTransaction) conn.run("RELEASE member");
      return { job, hooks, ok: true, value };
    } catch (error) {
      if (conn.db.inTransaction) {
        conn.run("ROLLBACK TO member");
        conn.run("RELEASE member");
      }
      return { job, hooks, ok: false, value: error };
    } finally {
      open = false;
    }
  }
}

/**
 * After an erase: the log copied into the file and truncated, so it no longer holds what was erased.
 * The background checkpointer (sqlite-checkpointer.ts) may hold the checkpoint lock for a few
 * milliseconds, and a TRUNCATE checkpoint then answers busy at once: it is tried again, waiting in
 * this synchronous step (the change signal's own window), for at most a second. Erases are rare.
 */
function truncateLog(db: Database): void {
  const checkpoint = db.query("PRAGMA wal_checkpoint(TRUNCATE)");
  for (let attempt = 0; attempt < 500; attempt++) {
    const result = checkpoint.get() as { busy: number } | null;
    if (result === null || result.busy === 0) return;
    Bun.sleepSync(2);
  }
}

/** SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended codes). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}
