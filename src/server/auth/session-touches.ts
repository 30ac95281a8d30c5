/**
 * When a session was last used (`last_seen_at`, what operators see): noted in memory on each use and
 * written later, at most once a minute per session, in one transaction a second, so signed-in reads
 * never wait on a write. Activity times are not worth a failed request: a busy database keeps them for
 * the next flush, and at worst a crash loses a minute of them. Part of the sessions store.
 */
import type { Storage } from "../db/sql.ts";

const TOUCH_EVERY_MS = 60_000;

export class SessionTouches {
  private readonly pending = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;

  constructor(private readonly storage: Pick<Storage, "transaction">) {}

  touch(row: { id: string; lastSeenAt: number }, now: number): void {
    if (now - row.lastSeenAt < TOUCH_EVERY_MS) return;
    row.lastSeenAt = now;
    this.pending.set(row.id, now);
    this.timer ??= setTimeout(() => void this.flush(), 1000);
  }

  /** Writes the noted activity times in one transaction. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return this.flushing ?? Promise.resolve();
    const batch = [...this.pending];
    this.pending.clear();
    const flush = this.storage
      .transaction(async (tx) => {
        for (const [id, at] of batch)
          await tx.run("UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2", [id, at]);
      })
      .catch(() => {
        for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
        this.timer ??= setTimeout(() => void this.flush(), 1000);
      })
      .finally(() => {
        if (this.flushing === flush) this.flushing = undefined;
      });
    this.flushing = flush;
    return flush;
  }
}
