/**
 * Bearer validation with a 60 s cache. Keyed by SHA-256 of the token so
 * raw tokens are never held as keys; valid and invalid answers are both cached, never past the token's
 * own expiry; bounded to 10,000 entries (LRU); concurrent misses for one token share one provider call.
 * A provider failure (unreachable, or a 200 of the wrong shape) is never cached: the next call asks again.
 *
 * A valid token still in use 45 s after its check is checked again in the background (the request
 * that notices is answered from the cache, still within its 60 s): a token in steady use never
 * misses, so its calls never wait on the provider, and a revocation shows up as soon as that check
 * answers. A background check that fails leaves the entry to expire at its time.
 *
 * With IDP_ADMIN_API_KEY the token is introspected (Hydra admin), which proves the user AND the OAuth
 * client, so per-app budgets can apply; only `active: true` with `token_use` absent or `access_token`
 * is accepted. Without the key the userinfo endpoint proves the user only (client unknown).
 *
 * A token whose subject the gateway refuses (subject.ts: control or invisible characters, too long) is
 * answered like a token the provider refuses: not valid, cached the same way, no user id ever formed.
 *
 * A subject's logout (subject-logouts.ts) drops every cached check of that subject on every process, so
 * the next call with one of its tokens is checked with the provider again; a check asked before the
 * drop and answered after it is used for its own request but not cached. Whose each dropped token was
 * is kept until its check would have expired (`formerSubject`): a deleted account's token that the
 * provider now refuses is still told apart from a token never seen.
 *
 * The provider may still accept a deleted account's tokens (its revocation comes after, best effort):
 * the cache does not judge that; the principal's resolution asks on every call (principal.ts).
 */
import { sha256 } from "../lib/crypto.ts";
import { Lru } from "../lib/lru.ts";
import { accessTokenSubject } from "./access-token-subject.ts";
import type { HydraClient } from "./hydra.ts";
import { subjectRefusal } from "./subject.ts";

export interface TokenPrincipal {
  userId: string;
  clientId: string | undefined;
}

/** Wraps the one provider call of a cache miss (the per-address limit); `ask` answers null for a refused token. */
export type CheckGate = (ask: () => Promise<TokenPrincipal | null>) => Promise<TokenPrincipal | null>;

const TTL_MS = 60_000;
const REFRESH_AFTER_MS = 45_000;
const CAPACITY = 10_000;

interface Entry {
  principal: TokenPrincipal | null;
  checkedAt: number;
}

export class TokenCache {
  private readonly cache = new Lru<string, Entry>(CAPACITY);
  private readonly inflight = new Map<string, Promise<TokenPrincipal | null>>();
  /** When each subject's checks were last dropped (this process's clock), kept for TTL_MS. */
  private readonly droppedAt = new Map<string, number>();
  /** The subject of each token whose check a logout dropped, until that check would have expired. */
  private readonly dropped = new Lru<string, string>(CAPACITY);
  hits = 0;
  misses = 0;

  constructor(private readonly hydra: HydraClient) {}

  /**
   * The principal for a bearer token, or null when the provider says it is not valid. Throws
   * IdpUnavailable. `gate` wraps the provider call only when this call is the one that asks (not
   * cached, none in flight): the per-address limit, which may make it wait. A call whose gate gave up
   * (an AbortError: the request that started it went away) is not an answer: those who joined it
   * start their own.
   */
  async validate(token: string, gate?: CheckGate): Promise<TokenPrincipal | null> {
    const key = sha256(token);
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached.principal;
    }
    this.misses++;
    const running = this.inflight.get(key);
    if (running)
      return running.catch((error) => {
        if ((error as Error)?.name === "AbortError") return this.validate(token, gate);
        throw error;
      });
    return this.check(token, key, gate);
  }

  /** Synchronous cache probe for the hot path; undefined means "not cached, call validate". */
  peek(token: string): TokenPrincipal | null | undefined {
    const key = sha256(token);
    const now = Date.now();
    const entry = this.cache.get(key, now);
    if (entry === undefined) return undefined;
    this.hits++;
    if (entry.principal !== null && now - entry.checkedAt >= REFRESH_AFTER_MS && !this.inflight.has(key))
      this.check(token, key).catch(() => {});
    return entry.principal;
  }

  /** Asks the provider (one call per token at a time) and caches the answer. */
  private check(
    token: string,
    key: string,
    gate: CheckGate = (ask) => ask(),
  ): Promise<TokenPrincipal | null> {
    const call: Promise<TokenPrincipal | null> = gate(async () => {
      const askedAt = Date.now();
      const { principal, expiresAt } = await this.lookup(token);
      // Forgotten meanwhile (logout): the answer is returned but not cached.
      if (this.inflight.get(key) !== call) return principal;
      if (principal !== null && (this.droppedAt.get(principal.userId) ?? -1) >= askedAt) return principal;
      const until = Math.min(askedAt + TTL_MS, expiresAt ?? Number.POSITIVE_INFINITY);
      this.cache.set(key, { principal, checkedAt: askedAt }, until);
      return principal;
    }).finally(() => {
      if (this.inflight.get(key) === call) this.inflight.delete(key);
    });
    this.inflight.set(key, call);
    return call;
  }

  /** Drops a token from the cache (after logout or revocation). */
  forget(token: string): void {
    const key = sha256(token);
    this.cache.delete(key);
    this.inflight.delete(key);
  }

  /** Drops every cached check of `userId` (its logout), and keeps the checks in flight from being cached. */
  forgetSubject(userId: string, now = Date.now()): void {
    for (const [subject, at] of this.droppedAt) if (at < now - TTL_MS) this.droppedAt.delete(subject);
    this.droppedAt.set(userId, now);
    this.cache.deleteWhere(
      (entry) => entry.principal?.userId === userId,
      (key, _entry, expiresAt) => this.dropped.set(key, userId, expiresAt),
    );
  }

  /** The subject a logout dropped this token's check for, while that check would still be cached. */
  formerSubject(token: string): string | undefined {
    return this.dropped.get(sha256(token));
  }

  private async lookup(token: string): Promise<{ principal: TokenPrincipal | null; expiresAt?: number }> {
    const proven = await accessTokenSubject(this.hydra, token);
    if (!proven || subjectRefusal(proven.userId) !== undefined) return { principal: null };
    return { principal: { userId: proven.userId, clientId: proven.clientId }, expiresAt: proven.expiresAt };
  }
}
