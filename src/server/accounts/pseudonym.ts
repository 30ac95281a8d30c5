/**
 * Who a deleted user becomes: a stable pseudonym, `deleted:` + an HMAC-SHA-256 of the user id under a
 * key derived from the sealing keys (never stored in the database, so whoever reads the database cannot
 * test a guessed id against it). The same id always gives the same pseudonym under one key: the ledger
 * rows and the audit events of one deleted user stay together, and a second delete finds the first.
 * After a key rotation the previous keys' pseudonyms are still recognised (`all`), and so are those of
 * pruned keys, whose pseudonym keys the key source keeps (keyring.ts): a prune never undeletes anyone.
 *
 * `DeletedUsers.guard` keeps deletion final: every transaction that may create or change a membership
 * or a link for a user holds that user's lock shared (so one user's changes never wait on each other),
 * the deletion holds it exclusively for its whole transaction, and each change then refuses a user
 * already deleted. Without it, a join whose caller was resolved just before the deletion committed
 * would leave a membership of a user who no longer exists.
 *
 * `DeletedUsers.isDeleted` answers every credential's resolution (a bearer token's cache hits included)
 * on every process at once: a deleted user stays deleted, so that answer is kept; a live one is kept
 * only while no other process has committed (SQLite's change signal, as the session rows are), so a
 * deletion committed by another process is read on the very next request. Without such a signal
 * (PostgreSQL) a live user is read by primary key on every request, as everything else is there.
 */
import type { Storage, Tx } from "../db/sql.ts";
import { Lru } from "../lib/lru.ts";

export class Pseudonyms {
  /** Every membership change asks (its guard): the HMACs of recent users are kept. */
  private readonly known = new Lru<string, string[]>(10_000);

  /** `keys`: the pseudonym keys (`pseudonymKeys(ring)`), the current sealing key's first. */
  constructor(private readonly keys: readonly Uint8Array[]) {}

  /** The pseudonym under the current key. */
  of(userId: string): string {
    return pseudonymWith(this.keys[0]!, userId);
  }

  /** The pseudonyms under every key of the ring, current first. */
  all(userId: string): string[] {
    let names = this.known.get(userId);
    if (!names) {
      names = this.keys.map((key) => pseudonymWith(key, userId));
      this.known.set(userId, names);
    }
    return names;
  }
}

function pseudonymWith(key: Uint8Array, userId: string): string {
  const mac = new Bun.CryptoHasher("sha256", key).update(userId).digest();
  return `deleted:${Buffer.from(mac.subarray(0, 16)).toString("base64url")}`;
}

export class DeletedUsers {
  /** Users known to be deleted: never stale (a deletion is final). */
  private readonly gone = new Lru<string, true>(10_000);
  /** Users read as not deleted, with the change signal's value before that read. */
  private readonly live = new Lru<string, number>(50_000);
  /** Moves with each deletion by this process: a read begun before it is not kept as live. */
  private deletions = 0;

  constructor(
    readonly pseudonyms: Pseudonyms,
    private readonly storage: Pick<Storage, "get" | "externalVersion">,
  ) {}

  /** Whether `userId`'s account is deleted: synchronous when memory can answer (see the header). */
  isDeleted(userId: string): boolean | Promise<boolean> {
    if (this.gone.get(userId)) return true;
    const version = this.storage.externalVersion();
    if (version !== undefined && this.live.get(userId) === version) return false;
    return this.read(userId, version);
  }

  private async read(userId: string, version: number | undefined): Promise<boolean> {
    const deletions = this.deletions;
    const names = this.pseudonyms.all(userId);
    // Asked on every bearer call on PostgreSQL: the primary key alone, not the stored report.
    const deleted =
      (await this.storage.get(
        `SELECT 1 AS hit FROM deleted_users WHERE pseudonym IN (${marks(names)})`,
        names,
      )) !== undefined;
    if (deleted) this.gone.set(userId, true);
    else if (version !== undefined && deletions === this.deletions) this.live.set(userId, version);
    return deleted;
  }

  /** Once this process's deletion of `userId` has committed (its own commits do not move the signal). */
  noteDeleted(userId: string): void {
    this.deletions++;
    this.gone.set(userId, true);
    this.live.delete(userId);
  }

  /** The lock every membership change of `userId` holds shared, and the deletion exclusively. */
  static lockKey(userId: string): string {
    return `user:${userId}`;
  }

  /**
   * Holds each user's lock shared (in one order; only a deletion holds one exclusively) and answers the
   * first of them that is deleted, if any. Call before locking any resource row.
   */
  async guard(tx: Tx, userIds: readonly (string | undefined)[]): Promise<string | undefined> {
    const ids = [...new Set(userIds.filter((id): id is string => id !== undefined))].sort();
    if (ids.length === 0) return undefined;
    const names = ids.flatMap((id) => this.pseudonyms.all(id).map((name) => ({ id, name })));
    // Issued together, run in order: the locks are held before the read.
    const [, found] = await Promise.all([
      Promise.all(ids.map((id) => tx.lockShared(DeletedUsers.lockKey(id)))),
      tx.all<{ pseudonym: string }>(
        `SELECT pseudonym FROM deleted_users WHERE pseudonym IN (${marks(names)})`,
        names.map((n) => n.name),
      ),
    ]);
    const hit = found[0];
    return hit && names.find((n) => n.name === hit.pseudonym)?.id;
  }

  /** Records a deletion (inside its transaction): the pseudonym, when, and the report a repeat answers. */
  record(tx: Tx, pseudonym: string, deletedAt: number, report: string): void {
    tx.write("INSERT INTO deleted_users (pseudonym, deleted_at, report) VALUES ($1, $2, $3)", [
      pseudonym,
      deletedAt,
      report,
    ]);
  }

  /** The stored report of a deleted user, if this user id was deleted. */
  async find(
    tx: Pick<Tx, "get">,
    userId: string,
  ): Promise<{ pseudonym: string; report: string } | undefined> {
    const names = this.pseudonyms.all(userId);
    return tx.get<{ pseudonym: string; report: string }>(
      `SELECT pseudonym, report FROM deleted_users WHERE pseudonym IN (${marks(names)})`,
      names,
    );
  }
}

/** `$1, $2, …`: one placeholder per value. */
const marks = (values: readonly unknown[]) => values.map((_, i) => `$${i + 1}`).join(", ");
