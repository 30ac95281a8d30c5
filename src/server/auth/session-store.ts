/**
 * Session rows: what operators watch and revoke. A row is live while `ended_at` is null
 * and `expires_at` (the absolute lifetime) is in the future. Rows are cached in memory (LRU) for the hot
 * path; every change to a row goes through this module, which updates the cache in the same call, so
 * an ended session's cookie is refused from the very next request.
 *
 * `last_seen_at` is written lazily: at most once a minute per session, batched (session-touches.ts).
 *
 * A deleted account never gets a session again: `create` holds the user's deletion lock shared and
 * refuses a deleted user in its transaction, and the deletion ends every session of the user in its
 * own. So a live row is always a live account's, and a cookie needs no other check.
 */
import type { DeletedUsers } from "../accounts/pseudonym.ts";
import type { sessions } from "../db/schema.ts";
import type { HeldLock, Param, Storage, Tx } from "../db/sql.ts";
import { Refusal } from "../domain/refusal.ts";
import { appendEvent } from "../events/log.ts";
import { randomId } from "../lib/crypto.ts";
import { Lru } from "../lib/lru.ts";
import { keyIdOf } from "./seal.ts";
import { SessionTouches } from "./session-touches.ts";

export type SessionRow = typeof sessions.$inferSelect;

export interface CreateSessionOptions {
  userId: string;
  clientId: string;
  accessExpiresAt: number;
  refreshHash: string | undefined;
  refreshSealed: string | undefined;
  cookieKeyId: string;
  lifetimeMs: number;
  /** The provider's login session id (the ID token's `sid`), when it sent one. */
  providerSid?: string;
  /** A coarse description of the browser that signed in (device.ts). */
  device?: string;
  /** The sign-in's ID token, sealed (the `id_token_hint` of a sign-out at the provider). */
  idTokenSealed?: string;
}

const COLUMNS = `id, user_id AS "userId", client_id AS "clientId", created_at AS "createdAt",
  last_seen_at AS "lastSeenAt", access_expires_at AS "accessExpiresAt", expires_at AS "expiresAt",
  ended_at AS "endedAt", end_reason AS "endReason", refresh_hash AS "refreshHash",
  refresh_sealed AS "refreshSealed", previous_refresh_hash AS "previousRefreshHash",
  rotated_at AS "rotatedAt", cookie_key_id AS "cookieKeyId", current_cookie AS "currentCookie",
  refresh_lease_until AS "refreshLeaseUntil", current_seen_at AS "currentSeenAt",
  provider_sid AS "providerSid", device, id_token_sealed AS "idTokenSealed"`;
const BY_ID = `SELECT ${COLUMNS} FROM sessions WHERE id = $1`;

export function isLive(row: SessionRow, now = Date.now()): boolean {
  return row.endedAt === null && row.expiresAt > now;
}

export class SessionStore {
  private readonly cache = new Lru<string, SessionRow>(10_000);
  private readonly touches: SessionTouches;
  private cachedAt: number | undefined = -1;
  /** Counts this process's changes to the cache (see `fresh`). */
  private changes = 0;

  /** `deleted`: refuses a session to a deleted account (absent only for tools that never create one). */
  constructor(
    private readonly storage: Storage,
    private readonly deleted?: DeletedUsers,
  ) {
    this.touches = new SessionTouches(storage);
  }

  /**
   * Synchronous fast path: the row from memory while nothing else can have changed it, else undefined
   * (call `get`). Without a cheap change signal (PostgreSQL) nothing is kept: every request reads the
   * row by primary key, so a logout on any replica is seen on the very next request.
   */
  peek(id: string): SessionRow | undefined {
    const version = this.storage.externalVersion();
    if (version === undefined) return undefined;
    if (version !== this.cachedAt) {
      // Another process committed (it may have ended or rotated a session): start over.
      this.cachedAt = version;
      this.changes++;
      this.cache.clear();
    }
    return this.cache.get(id);
  }

  async get(id: string): Promise<SessionRow | undefined> {
    return this.peek(id) ?? this.fresh(id);
  }

  /** The row as the database has it now (another process may have changed it); refreshes the cache. */
  async fresh(id: string): Promise<SessionRow | undefined> {
    const changes = this.changes;
    const row = await this.storage.get<SessionRow>(BY_ID, [id]);
    // A commit of this process changed the cache meanwhile: the row read may predate it.
    if (changes === this.changes) this.remember(id, row);
    return row;
  }

  private remember(id: string, row: SessionRow | undefined): void {
    this.changes++;
    if (row && this.storage.externalVersion() !== undefined) this.cache.set(id, row);
    else this.cache.delete(id);
  }

  async create(options: CreateSessionOptions): Promise<SessionRow> {
    const now = Date.now();
    const row: SessionRow = {
      id: randomId(),
      userId: options.userId,
      clientId: options.clientId,
      createdAt: now,
      lastSeenAt: now,
      accessExpiresAt: options.accessExpiresAt,
      expiresAt: now + options.lifetimeMs,
      endedAt: null,
      endReason: null,
      refreshHash: options.refreshHash ?? null,
      refreshSealed: options.refreshSealed ?? null,
      previousRefreshHash: null,
      rotatedAt: null,
      cookieKeyId: options.cookieKeyId,
      currentCookie: null,
      refreshLeaseUntil: null,
      currentSeenAt: null,
      providerSid: options.providerSid ?? null,
      device: options.device ?? null,
      idTokenSealed: options.idTokenSealed ?? null,
    };
    await this.storage.transaction(async (tx) => {
      if (await this.deleted?.guard(tx, [row.userId])) throw new Refusal("account_deleted");
      await tx.run(
        `INSERT INTO sessions (id, user_id, client_id, created_at, last_seen_at, access_expires_at, expires_at,
           refresh_hash, refresh_sealed, cookie_key_id, provider_sid, device, id_token_sealed)
         VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          row.id,
          row.userId,
          row.clientId,
          now,
          row.accessExpiresAt,
          row.expiresAt,
          row.refreshHash,
          row.refreshSealed,
          row.cookieKeyId,
          row.providerSid,
          row.device,
          row.idTokenSealed,
        ],
      );
      appendEvent(tx, {
        type: "session.created",
        userId: row.userId,
        actor: row.userId,
        data: { sessionId: row.id, clientId: row.clientId },
      });
      tx.afterCommit(() => this.remember(row.id, row));
    });
    return row;
  }

  /**
   * Claims the right to rotate a session at the provider, only while the row still holds the presented
   * refresh token and no one else holds the claim; undefined otherwise. Release it once the rotation is
   * stored (or given up).
   *
   * - Where the engine holds locks outside transactions (PostgreSQL): a lock on the session, then the
   *   row read again under it. A holder that dies frees it at once; no clock is involved.
   * - Otherwise (SQLite, processes of one host sharing one clock): a lease on the row until `until`,
   *   longer than the provider call may last. A holder that dies blocks the session's refresh until then.
   */
  async claimRefresh(id: string, refreshHash: string, until: number): Promise<HeldLock | undefined> {
    if (this.storage.holdLock) {
      const lock = await this.storage.holdLock(`refresh:${id}`);
      if (!lock) return undefined;
      const current = await this.storage
        .get("SELECT 1 AS ok FROM sessions WHERE id = $1 AND refresh_hash = $2 AND ended_at IS NULL", [
          id,
          refreshHash,
        ])
        .catch(async (error) => {
          await lock.release();
          throw error;
        });
      if (current) return lock;
      await lock.release();
      return undefined;
    }
    const changed = await this.storage.run(
      `UPDATE sessions SET refresh_lease_until = $4 WHERE id = $1 AND refresh_hash = $2 AND ended_at IS NULL
       AND (refresh_lease_until IS NULL OR refresh_lease_until < $3)`,
      [id, refreshHash, Date.now(), until],
    );
    if (changed !== 1) return undefined;
    return {
      // A stored rotation has ended the lease already; this gives back one that was not used.
      release: async () => {
        await this.storage.run(
          "UPDATE sessions SET refresh_lease_until = NULL WHERE id = $1 AND refresh_lease_until = $2",
          [id, until],
        );
      },
    };
  }

  /**
   * Records a refresh: the new token's hash becomes current, the old one is remembered, the new cookie
   * (sealed) is kept for tabs still holding an older one, and the lease ends. A new token has never been
   * presented; a provider that kept the token has just seen it presented.
   */
  async rotate(
    id: string,
    refresh: { hash: string; sealed: string } | undefined,
    accessExpiresAt: number,
    cookieKeyId: string,
    currentCookie: string,
  ): Promise<SessionRow | undefined> {
    const now = Date.now();
    return this.storage.transaction(async (tx) => {
      const current = await tx.get<SessionRow>(BY_ID, [id]);
      if (!current || current.endedAt !== null) return undefined;
      const rotated = refresh !== undefined && refresh.hash !== current.refreshHash;
      const next = {
        refreshHash: refresh?.hash ?? current.refreshHash,
        refreshSealed: refresh?.sealed ?? current.refreshSealed,
        previousRefreshHash: rotated ? current.refreshHash : current.previousRefreshHash,
        rotatedAt: now,
        accessExpiresAt,
        lastSeenAt: now,
        cookieKeyId,
        currentCookie,
        refreshLeaseUntil: null,
        currentSeenAt: rotated ? null : now,
      };
      await tx.run(
        `UPDATE sessions SET refresh_hash = $2, refresh_sealed = $3, previous_refresh_hash = $4, rotated_at = $5,
           access_expires_at = $6, last_seen_at = $5, cookie_key_id = $7, current_cookie = $8,
           refresh_lease_until = NULL, current_seen_at = $9 WHERE id = $1`,
        [
          id,
          next.refreshHash,
          next.refreshSealed,
          next.previousRefreshHash,
          now,
          accessExpiresAt,
          cookieKeyId,
          currentCookie,
          next.currentSeenAt,
        ],
      );
      appendEvent(tx, {
        type: "session.refreshed",
        userId: current.userId,
        actor: current.userId,
        data: { sessionId: id },
      });
      const updated = { ...current, ...next };
      tx.afterCommit(() => this.remember(id, updated));
      return updated;
    });
  }

  /**
   * Notes that a request presented the session's current refresh token (once per rotation): from then
   * on the previous token is theft after the grace (refresh-grace.ts). Written before the request goes
   * on, so any process's next refresh sees it; tried once, never waiting on another process's lock.
   */
  async markCurrentSeen(id: string, refreshHash: string, now = Date.now()): Promise<void> {
    await this.storage.transaction(
      (tx) =>
        tx.run(
          `UPDATE sessions SET current_seen_at = $3
           WHERE id = $1 AND refresh_hash = $2 AND current_seen_at IS NULL AND ended_at IS NULL`,
          [id, refreshHash, now],
        ),
      { waitMs: 0 },
    );
    this.changes++;
    this.cache.delete(id);
  }

  /** Ends a live session (one event, `session.ended` unless named). Returns the row as it was, or undefined. */
  async end(
    id: string,
    reason: string,
    actor: string | null,
    eventType: "session.ended" | "session.reuse_detected" = "session.ended",
  ): Promise<SessionRow | undefined> {
    const now = Date.now();
    try {
      return await this.storage.transaction(async (tx) => {
        const current = await tx.get<SessionRow>(BY_ID, [id]);
        if (!current || current.endedAt !== null) return undefined;
        await tx.run("UPDATE sessions SET ended_at = $2, end_reason = $3 WHERE id = $1", [id, now, reason]);
        appendEvent(tx, {
          type: eventType,
          userId: current.userId,
          actor: actor ?? current.userId,
          data: { sessionId: id, clientId: current.clientId, reason },
        });
        return current;
      });
    } finally {
      this.changes++;
      this.cache.delete(id);
    }
  }

  /**
   * Ends every live session of a user inside the caller's transaction (an account deletion); the rows
   * leave the cache once it commits, so their cookies are refused from the next request. Returns the
   * rows as they were (their sealed refresh tokens, for revocation at the provider after the commit).
   */
  async endAllOf(tx: Tx, userId: string, reason: string, now = Date.now()): Promise<SessionRow[]> {
    const live = await tx.all<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions WHERE user_id = $1 AND ended_at IS NULL ORDER BY created_at, id`,
      [userId],
    );
    if (live.length === 0) return live;
    tx.write("UPDATE sessions SET ended_at = $2, end_reason = $3 WHERE user_id = $1 AND ended_at IS NULL", [
      userId,
      now,
      reason,
    ]);
    tx.afterCommit(() => {
      this.changes++;
      for (const row of live) this.cache.delete(row.id);
    });
    return live;
  }

  /**
   * Ends the live sessions of one client that a provider's logout names: those of its login session
   * `providerSid` when given, else every one of `userId`. One `session.ended` event each, in one
   * transaction; the rows leave the cache as it commits. Returns the rows as they were.
   */
  async endNamed(
    match: { clientId: string; providerSid?: string; userId?: string },
    reason: string,
    now = Date.now(),
  ): Promise<SessionRow[]> {
    const by = match.providerSid !== undefined ? "provider_sid" : "user_id";
    const value = match.providerSid ?? match.userId;
    if (value === undefined) return [];
    return this.endWhere(`${by} = $1 AND client_id = $2`, [value, match.clientId], reason, null, now);
  }

  /**
   * Ends a user's own live sessions among `clientIds` (one app's clients): the one with id `only`, or
   * every one but `except`. One `session.ended` event each, actor the user. Returns the rows as they were.
   */
  endOwn(
    match: { userId: string; clientIds: readonly string[]; only?: string; except?: string },
    reason: string,
    now = Date.now(),
  ): Promise<SessionRow[]> {
    if (match.clientIds.length === 0) return Promise.resolve([]);
    const params: Param[] = [match.userId, ...match.clientIds];
    const clients = match.clientIds.map((_, i) => `$${i + 2}`).join(", ");
    let where = `user_id = $1 AND client_id IN (${clients})`;
    if (match.only !== undefined) where += ` AND id = $${params.push(match.only)}`;
    if (match.except !== undefined) where += ` AND id <> $${params.push(match.except)}`;
    return this.endWhere(where, params, reason, match.userId, now);
  }

  /**
   * Ends the live sessions `where` selects, in one transaction; the rows leave the cache as it commits.
   * Each row's update re-checks that it is still live, so two concurrent calls end (and record) each
   * session once: the second waits for the first's row lock and then finds it ended.
   */
  private async endWhere(
    where: string,
    params: Param[],
    reason: string,
    actor: string | null,
    now: number,
  ): Promise<SessionRow[]> {
    const nowAt = params.length + 1;
    try {
      return await this.storage.transaction(async (tx) => {
        const live = await tx.all<SessionRow>(
          `SELECT ${COLUMNS} FROM sessions WHERE ${where} AND ended_at IS NULL AND expires_at > $${nowAt}
           ORDER BY created_at, id`,
          [...params, now],
        );
        const ended: SessionRow[] = [];
        for (const row of live) {
          const changed = await tx.run(
            "UPDATE sessions SET ended_at = $2, end_reason = $3 WHERE id = $1 AND ended_at IS NULL",
            [row.id, now, reason],
          );
          if (changed === 0) continue;
          ended.push(row);
          appendEvent(tx, {
            type: "session.ended",
            userId: row.userId,
            actor,
            data: { sessionId: row.id, clientId: row.clientId, reason },
          });
        }
        tx.afterCommit(() => {
          for (const row of ended) this.cache.delete(row.id);
        });
        return ended;
      });
    } finally {
      this.changes++;
    }
  }

  /** Notes activity; the write happens later, batched, at most once a minute per session. */
  touch(row: Pick<SessionRow, "id" | "lastSeenAt">, now = Date.now()): void {
    this.touches.touch(row, now);
  }

  /** Writes the activity noted so far (a clean stop). */
  flushTouches(): Promise<void> {
    return this.touches.flush();
  }

  /** Live sessions, newest first, keyset-paginated by (createdAt, id). */
  listLive(
    filter: { userId?: string; clientId?: string },
    limit: number,
    after?: { createdAt: number; id: string },
  ): Promise<SessionRow[]> {
    return this.storage.all<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions WHERE ended_at IS NULL AND expires_at > $1
       AND (CAST($2 AS text) IS NULL OR user_id = $2) AND (CAST($3 AS text) IS NULL OR client_id = $3)
       AND (CAST($4 AS bigint) IS NULL OR (created_at, id) < ($4, $5))
       ORDER BY created_at DESC, id DESC LIMIT $6`,
      [
        Date.now(),
        filter.userId ?? null,
        filter.clientId ?? null,
        after?.createdAt ?? null,
        after?.id ?? null,
        limit,
      ] satisfies Param[],
    );
  }

  /** Live rows whose sealed refresh token names another key than `keyId` (or none): start-up re-seals them. */
  async liveSealedWithOtherKey(keyId: string): Promise<Array<{ id: string; refreshSealed: string }>> {
    const rows = await this.storage.all<{ id: string; refreshSealed: string }>(
      `SELECT id, refresh_sealed AS "refreshSealed" FROM sessions
       WHERE ended_at IS NULL AND expires_at > $1 AND refresh_sealed IS NOT NULL`,
      [Date.now()],
    );
    return rows.filter((row) => keyIdOf(row.refreshSealed) !== keyId);
  }

  /** Replaces sealed refresh tokens (a re-seal with the current key); rows that ended meanwhile are skipped. */
  async replaceSealed(updates: Array<{ id: string; refreshSealed: string }>): Promise<void> {
    if (updates.length === 0) return;
    await this.storage.transaction(async (tx) => {
      for (const { id, refreshSealed } of updates)
        await tx.run("UPDATE sessions SET refresh_sealed = $2 WHERE id = $1 AND ended_at IS NULL", [
          id,
          refreshSealed,
        ]);
    });
    this.changes++;
    for (const { id } of updates) this.cache.delete(id);
  }
}
