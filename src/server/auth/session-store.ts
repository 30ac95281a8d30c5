/**
 * Session rows: what operators watch and revoke. A row is live while `ended_at` is null
 * and `expires_at` (the absolute lifetime) is in the future. Rows are cached in memory (LRU) for the hot
 * path; every change to a row goes through this module, which updates the cache in the same call, so
 * an ended session's cookie is refused from the very next request.
 *
 * `last_seen_at` is written lazily: at most once a minute per session, batched into one transaction.
 */
import { and, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { isBusy, type Storage } from "../db/open.ts";
import { sessions } from "../db/schema.ts";
import { appendEvent } from "../events/log.ts";
import { randomId } from "../lib/crypto.ts";
import { Lru } from "../lib/lru.ts";
import { keyIdOf } from "./seal.ts";

export type SessionRow = typeof sessions.$inferSelect;

export interface CreateSessionOptions {
  userId: string;
  clientId: string;
  accessExpiresAt: number;
  refreshHash: string | undefined;
  refreshSealed: string | undefined;
  cookieKeyId: string;
  lifetimeMs: number;
}

const TOUCH_EVERY_MS = 60_000;

export function isLive(row: SessionRow, now = Date.now()): boolean {
  return row.endedAt === null && row.expiresAt > now;
}

export class SessionStore {
  private readonly cache = new Lru<string, SessionRow>(10_000);
  private readonly touches = new Map<string, number>();
  private touchTimer: ReturnType<typeof setTimeout> | undefined;
  private cachedAt = -1;
  private readonly byId;

  constructor(private readonly storage: Storage) {
    this.byId = storage.db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sql.placeholder("id")))
      .prepare();
  }

  get(id: string): SessionRow | undefined {
    const version = this.storage.externalVersion();
    if (version !== this.cachedAt) {
      // Another process committed (it may have ended or rotated a session): start over.
      this.cachedAt = version;
      this.cache.clear();
    }
    const cached = this.cache.get(id);
    if (cached) return cached;
    const row = this.byId.get({ id });
    if (row) this.cache.set(id, row);
    return row;
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
    };
    await this.storage.write((tx) => {
      tx.insert(sessions).values(row).run();
      appendEvent(tx, {
        type: "session.created",
        userId: row.userId,
        actor: row.userId,
        data: { sessionId: row.id, clientId: row.clientId },
      });
    });
    this.cache.set(row.id, row);
    return row;
  }

  /** The row as the database has it now (another process may have changed it); refreshes the cache. */
  fresh(id: string): SessionRow | undefined {
    const row = this.byId.get({ id });
    if (row) this.cache.set(id, row);
    else this.cache.delete(id);
    return row;
  }

  /**
   * Claims the right to rotate a session at the provider: only while the row still holds the presented
   * refresh token and no other lease runs. Returns whether this caller holds the lease now.
   */
  claimRefresh(id: string, refreshHash: string, until: number, now = Date.now()): Promise<boolean> {
    return this.storage.write(
      () =>
        this.storage.sqlite
          .query(
            `UPDATE sessions SET refresh_lease_until = ?4 WHERE id = ?1 AND refresh_hash = ?2 AND ended_at IS NULL
             AND (refresh_lease_until IS NULL OR refresh_lease_until < ?3)`,
          )
          .run(id, refreshHash, now, until).changes === 1,
    );
  }

  /** Gives a lease back (the provider call failed without an answer about the session). */
  async releaseRefresh(id: string): Promise<void> {
    await this.storage.write(() => {
      this.storage.sqlite.query("UPDATE sessions SET refresh_lease_until = NULL WHERE id = ?").run(id);
    });
  }

  /**
   * Records a refresh: the new token's hash becomes current, the old one is remembered, the new cookie
   * (sealed) is kept for tabs still holding an older one, and the lease ends.
   */
  async rotate(
    id: string,
    refresh: { hash: string; sealed: string } | undefined,
    accessExpiresAt: number,
    cookieKeyId: string,
    currentCookie: string,
  ): Promise<SessionRow | undefined> {
    const now = Date.now();
    const updated = await this.storage.write((tx) => {
      const current = tx.select().from(sessions).where(eq(sessions.id, id)).get();
      if (!current || current.endedAt !== null) return undefined;
      const next = {
        refreshHash: refresh?.hash ?? current.refreshHash,
        refreshSealed: refresh?.sealed ?? current.refreshSealed,
        previousRefreshHash:
          refresh && refresh.hash !== current.refreshHash ? current.refreshHash : current.previousRefreshHash,
        rotatedAt: now,
        accessExpiresAt,
        lastSeenAt: now,
        cookieKeyId,
        currentCookie,
        refreshLeaseUntil: null,
      };
      tx.update(sessions).set(next).where(eq(sessions.id, id)).run();
      appendEvent(tx, {
        type: "session.refreshed",
        userId: current.userId,
        actor: current.userId,
        data: { sessionId: id },
      });
      return { ...current, ...next };
    });
    if (updated) this.cache.set(id, updated);
    return updated;
  }

  /** Ends a live session (one event, `session.ended` unless named). Returns the row as it was, or undefined. */
  async end(
    id: string,
    reason: string,
    actor: string | null,
    eventType: "session.ended" | "session.reuse_detected" = "session.ended",
  ): Promise<SessionRow | undefined> {
    const now = Date.now();
    const ended = await this.storage.write((tx) => {
      const current = tx.select().from(sessions).where(eq(sessions.id, id)).get();
      if (!current || current.endedAt !== null) return undefined;
      tx.update(sessions).set({ endedAt: now, endReason: reason }).where(eq(sessions.id, id)).run();
      appendEvent(tx, {
        type: eventType,
        userId: current.userId,
        actor: actor ?? current.userId,
        data: { sessionId: id, clientId: current.clientId, reason },
      });
      return current;
    });
    this.cache.delete(id);
    return ended;
  }

  /** Notes activity; the write happens later, batched, at most once a minute per session. */
  touch(row: SessionRow, now = Date.now()): void {
    if (now - row.lastSeenAt < TOUCH_EVERY_MS) return;
    row.lastSeenAt = now;
    this.touches.set(row.id, now);
    this.touchTimer ??= setTimeout(() => this.flushTouches(), 1000);
  }

  flushTouches(): void {
    clearTimeout(this.touchTimer);
    this.touchTimer = undefined;
    if (this.touches.size === 0) return;
    const batch = [...this.touches];
    this.touches.clear();
    try {
      this.storage.writeTx((tx) => {
        for (const [id, at] of batch)
          tx.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.id, id)).run();
      });
    } catch (error) {
      // Activity times are not worth a failed request or a crash: keep them for the next flush.
      if (!isBusy(error)) throw error;
      for (const [id, at] of batch) if (!this.touches.has(id)) this.touches.set(id, at);
      this.touchTimer ??= setTimeout(() => this.flushTouches(), 1000);
    }
  }

  /** Live sessions, newest first, keyset-paginated by (createdAt, id). */
  listLive(
    filter: { userId?: string; clientId?: string },
    limit: number,
    after?: { createdAt: number; id: string },
  ): SessionRow[] {
    const now = Date.now();
    return this.storage.db
      .select()
      .from(sessions)
      .where(
        and(
          isNull(sessions.endedAt),
          gt(sessions.expiresAt, now),
          filter.userId ? eq(sessions.userId, filter.userId) : undefined,
          filter.clientId ? eq(sessions.clientId, filter.clientId) : undefined,
          after
            ? or(
                lt(sessions.createdAt, after.createdAt),
                and(eq(sessions.createdAt, after.createdAt), lt(sessions.id, after.id)),
              )
            : undefined,
        ),
      )
      .orderBy(desc(sessions.createdAt), desc(sessions.id))
      .limit(limit)
      .all();
  }

  /**
   * Retention: deletes session rows that ended or expired more than `keepMs` ago (default 7 days, so
   * operators can still see recent sign-outs). Their events stay in the audit log. Returns how many.
   */
  purgeEnded(keepMs = 7 * 24 * 3600 * 1000, now = Date.now()): Promise<number> {
    const cutoff = now - keepMs;
    return this.storage.write(
      () =>
        this.storage.sqlite
          .query("DELETE FROM sessions WHERE (ended_at IS NOT NULL AND ended_at < ?1) OR expires_at < ?1")
          .run(cutoff).changes,
    );
  }

  /** Live rows whose sealed refresh token names another key than `keyId` (or none): start-up re-seals them. */
  liveSealedWithOtherKey(keyId: string): Array<{ id: string; refreshSealed: string }> {
    return this.storage.sqlite
      .query(
        `SELECT id, refresh_sealed AS refreshSealed FROM sessions
         WHERE ended_at IS NULL AND expires_at > ?1 AND refresh_sealed IS NOT NULL`,
      )
      .all(Date.now())
      .filter((row: any) => keyIdOf(row.refreshSealed) !== keyId) as Array<{
      id: string;
      refreshSealed: string;
    }>;
  }

  /** Replaces sealed refresh tokens (a re-seal with the current key); rows that ended meanwhile are skipped. */
  async replaceSealed(updates: Array<{ id: string; refreshSealed: string }>): Promise<void> {
    if (updates.length === 0) return;
    await this.storage.write(() => {
      const update = this.storage.sqlite.query(
        "UPDATE sessions SET refresh_sealed = ?2 WHERE id = ?1 AND ended_at IS NULL",
      );
      for (const { id, refreshSealed } of updates) update.run(id, refreshSealed);
    });
    for (const { id } of updates) this.cache.delete(id);
  }

  /** Live sessions per id of the key their browser cookie is sealed with (null: sealed before key ids). */
  liveByCookieKey(now = Date.now()): Array<{ keyId: string | null; sessions: number }> {
    return this.storage.sqlite
      .query(
        `SELECT cookie_key_id AS keyId, count(*) AS sessions FROM sessions
         WHERE ended_at IS NULL AND expires_at > ?1 GROUP BY cookie_key_id`,
      )
      .all(now) as Array<{ keyId: string | null; sessions: number }>;
  }

  countLive(): number {
    const row = this.storage.db
      .select({ n: sql<number>`count(*)` })
      .from(sessions)
      .where(and(isNull(sessions.endedAt), gt(sessions.expiresAt, Date.now())))
      .get();
    return row?.n ?? 0;
  }
}
