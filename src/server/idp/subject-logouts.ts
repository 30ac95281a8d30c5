/**
 * A subject's logout reaches every process's bearer cache (token-cache.ts) within a second: a provider's
 * back-channel logout that ended sessions, an operator's revoke-all that ended any, or an account
 * deletion writes one `subject_logouts` row per subject, and every process that reads a row it has not
 * seen drops that subject's cached checks, so the next call with one of its tokens is checked with the
 * provider again.
 *
 * The row is written once the provider has answered the revocation of the sessions' refresh tokens
 * (which revokes their grants' access tokens too), not in the transaction that ended the sessions: a
 * process that dropped its checks before the provider revoked could check a token again in between,
 * hear "active", and cache that for another 60 s. The process that writes drops at once, before the
 * row is written (a row that cannot be written is logged, never failing the logout: the other processes
 * then forget the subject's checks within 60 s, as without this); the others learn of it from the change signal (SQLite: the shared change counter, watched
 * every 100 ms; PostgreSQL: a NOTIFY on commit), and on PostgreSQL they also read the table every
 * 500 ms, in case a notification was lost while a connection was re-established.
 *
 * A row older than twice the cache's 60 s lifetime can drop nothing (every check made before it has
 * expired, whatever the clocks of the replicas say): the next write deletes it, so the table holds
 * about two minutes of logouts and a full read of it stays small.
 */
import type { Storage } from "../db/sql.ts";
import { randomId } from "../lib/crypto.ts";
import type { Logger } from "../lib/log.ts";

const CHANNEL = "subject_logouts";
const KEEP_MS = 120_000;
/** PostgreSQL only: the read that catches a lost notification. */
const POLL_MS = 500;

export class SubjectLogouts {
  /** The ids of the rows read (or written) so far: a row not among them is a new logout. */
  private seen = new Set<string>();
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private stopListening: (() => void) | undefined;
  private poller: ReturnType<typeof setInterval> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  /** `drop`: forgets the subject's cached checks in this process. */
  constructor(
    private readonly storage: Storage,
    private readonly drop: (userId: string) => void,
    private readonly log: Logger,
  ) {}

  /**
   * The logout of each of `userIds`, once the provider has answered the revocation: dropped here at
   * once, then recorded for the other processes. Never throws (see the header).
   */
  async announce(userIds: Iterable<string>, now = Date.now()): Promise<void> {
    const subjects = [...new Set(userIds)];
    if (subjects.length === 0) return;
    const rows = subjects.map((userId) => ({ id: randomId(), userId }));
    for (const row of rows) {
      this.seen.add(row.id);
      this.drop(row.userId);
    }
    try {
      await this.storage.transaction(async (tx) => {
        tx.write("DELETE FROM subject_logouts WHERE at < $1", [now - KEEP_MS]);
        for (const row of rows)
          tx.write("INSERT INTO subject_logouts (id, user_id, at) VALUES ($1, $2, $3)", [
            row.id,
            row.userId,
            now,
          ]);
        tx.notify(CHANNEL);
      });
    } catch (error) {
      this.log("warn", "a logout was not recorded: other processes keep its bearer checks up to 60 s", {
        subjects: subjects.length,
        error: String(error),
      });
    }
  }

  /** Reads the rows already there (nothing is cached yet), then follows every process's new ones. */
  async start(): Promise<void> {
    await this.read(false);
    this.stopListening = this.storage.listen(CHANNEL, () => this.catchUp());
    if (this.storage.externalVersion() === undefined) {
      this.poller = setInterval(() => this.catchUp(), POLL_MS);
      this.poller.unref?.();
    }
  }

  stop(): void {
    this.stopped = true;
    this.stopListening?.();
    clearInterval(this.poller);
    clearTimeout(this.retry);
  }

  /** One read at a time; a wake during a read reads once more after it. */
  private catchUp(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.read(true)
      .catch(() => {
        // The database did not answer: try again shortly (a wake may not come).
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.catchUp(), POLL_MS);
        this.retry.unref?.();
      })
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain) {
          this.readAgain = false;
          this.catchUp();
        }
      });
  }

  /**
   * Reads the table; with `dropNew`, drops the subjects of rows not seen before. A row this process
   * wrote while the read ran may count as new at the next read: dropped twice, which costs one check.
   */
  private async read(dropNew: boolean): Promise<void> {
    const rows = await this.storage.all<{ id: string; userId: string }>(
      'SELECT id, user_id AS "userId" FROM subject_logouts',
    );
    for (const row of rows) if (dropNew && !this.seen.has(row.id)) this.drop(row.userId);
    this.seen = new Set(rows.map((row) => row.id));
  }
}
