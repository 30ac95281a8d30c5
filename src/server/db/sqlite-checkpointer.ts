/**
 * WAL checkpoints off the event loop. A checkpoint copies the pages the log holds back into the
 * database file and syncs both; SQLite runs it inside the COMMIT that crosses `wal_autocheckpoint`,
 * so on the event loop every request waits for it. Measured on a file of 200,000 rows: 1,000 pages
 * took 20 ms (8 ms of it CPU, the rest waiting for the disk), 10,000 pages 207 ms (42 ms CPU). Under
 * the join/leave bench that wait was the writes' p99.
 *
 * So a thread of its own (a Worker, with its own connection) runs `PRAGMA wal_checkpoint(PASSIVE)`
 * every 100 ms: PASSIVE never waits for a lock and never blocks a writer or a reader, copies what no
 * reader still needs, and does nothing (no I/O) when the log is already copied. The log then stays
 * small and the writer's own automatic checkpoint (10,000 pages, sqlite.ts) is only a backstop.
 * Durability is unchanged: a commit is in the log before it is answered, whoever copies it later.
 *
 * The worker's connection is closed by SQLite itself before the worker ends (`stop`): closing a
 * descriptor of the database file any other way would drop this process's locks on it.
 */

/** The worker's code, as text: no separate entry point to bundle into the single binary. */
const WORKER = `
import { Database } from "bun:sqlite";
let db, checkpoint, timer;
self.onmessage = ({ data }) => {
  if (data.stop) {
    clearInterval(timer);
    try {
      checkpoint?.finalize();
      db?.close();
    } finally {
      postMessage("stopped");
    }
    return;
  }
  db = new Database(data.path, { create: false });
  db.exec("PRAGMA busy_timeout = 0");
  checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  timer = setInterval(() => {
    try {
      const row = checkpoint.get();
      if (data.report) postMessage(row);
    } catch {
      // Busy (another process is checkpointing) or closing: the next turn tries again.
    }
  }, data.everyMs);
};
`;

export interface CheckpointerOptions {
  /** How often to checkpoint (default 100 ms). */
  everyMs?: number;
  /** Called with each checkpoint's result (tests): frames in the log, frames copied. */
  onCheckpoint?: (result: { busy: number; log: number; checkpointed: number }) => void;
}

export interface Checkpointer {
  /** Stops the timer and closes the worker's connection (at most 5 s), then ends the worker. */
  stop(): Promise<void>;
}

let workerUrl: string | undefined;

export function startCheckpointer(path: string, options: CheckpointerOptions = {}): Checkpointer {
  workerUrl ??= URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" }));
  const worker = new Worker(workerUrl);
  // Not what keeps the process alive (Bun adds unref to Worker; the DOM type has none).
  (worker as Worker & { unref(): void }).unref();
  let stopped: (() => void) | undefined;
  // The writer's own automatic checkpoint stays as the backstop should the worker fail.
  worker.onerror = () => {};
  worker.onmessage = ({ data }) => {
    if (data === "stopped") stopped?.();
    else options.onCheckpoint?.(data);
  };
  worker.postMessage({ path, everyMs: options.everyMs ?? 100, report: options.onCheckpoint !== undefined });
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        const timeout = setTimeout(resolve, 5000);
        stopped = () => {
          clearTimeout(timeout);
          resolve();
        };
        worker.postMessage({ stop: true });
      }).then(() => worker.terminate());
      return stopping;
    },
  };
}
