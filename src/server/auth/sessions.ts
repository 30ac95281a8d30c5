/**
 * Browser sessions: sign-in (a row + a sealed cookie), resolution on every request, refresh, sign-out.
 *
 * Lifetimes: a session ends `lifetimeMs` after sign-in (30 days), whatever its refreshes; its access
 * token lasts what the provider grants (less the leeway below), and a refresh renews only the token.
 *
 * Refresh is single-flight per (session, refresh token): concurrent refreshes from several tabs make
 * one provider call and all get its result. Hydra treats a reused refresh token as theft and revokes
 * the whole grant, so a rotated-away token never reaches the provider: the immediately previous one gets
 * the current session (within the rotation grace, 30 s, or while the current token was never presented,
 * for at most the lost-answer window, 10 minutes), and its cookies are never cleared. Resolving a cookie notes the first
 * request that presents a rotation's new token (refresh-grace.ts keeps the rule).
 *
 * Any other rotated-away token is theft, as Hydra sees it: a copy of the cookie was refreshed elsewhere
 * (or the copy is refreshing after its owner did). Whoever refreshed first must not keep the session,
 * so the session ends, its grant is revoked at the provider, and a `session.reuse_detected` event tells
 * the operator. The provider's `invalid_grant` also ends a session.
 */
import type { AppRegistry } from "../apps/registry.ts";
import type { HydraClient, TokenSet } from "../idp/hydra.ts";
import { sha256 } from "../lib/crypto.ts";
import type { Logger } from "../lib/log.ts";
import { Lru } from "../lib/lru.ts";
import { Refresher, type RefreshOutcome } from "./refresh.ts";
import { type CookieSealer, readSealedValues, type SessionCookie } from "./seal.ts";
import { endReasonOf, type SessionEndReason } from "./session-end.ts";
import { isLive, type SessionRow, type SessionStore } from "./session-store.ts";

/** What `GET /auth/session` answers for a live session (the route sends it). */
export function signedInView(userId: string) {
  return { authenticated: true as const, user_id: userId };
}

/**
 * Expiry leeway: an access token counts as expired 30 s before the provider says (clock skew), or at
 * half its lifetime for tokens shorter than a minute (else a 20 s token would be born expired).
 */
export const EXPIRY_LEEWAY_MS = 30_000;

export function accessExpiry(expiresInSeconds: number, now = Date.now()): number {
  const lifetime = Math.max(0, expiresInSeconds) * 1000;
  return now + lifetime - Math.min(EXPIRY_LEEWAY_MS, lifetime / 2);
}
/** How long a just-rotated refresh token is answered from the rotation result instead of the provider. */
export const ROTATION_GRACE_MS = 30_000;
/** How long the previous refresh token still gets the current session while the current one was never presented. */
export const LOST_ANSWER_GRACE_MS = 10 * 60_000;

export interface ResolvedSession {
  row: SessionRow;
  cookie: SessionCookie;
}

export interface SessionServiceOptions {
  store: SessionStore;
  sealer: CookieSealer;
  hydra: HydraClient;
  apps: AppRegistry;
  cookieName: string;
  lifetimeMs: number;
  /** How long a just-rotated refresh token still gets the current session (default 30 s). */
  rotationGraceMs?: number;
  /** How long a lost refresh answer may be retried with the previous token (default 10 minutes). */
  lostAnswerGraceMs?: number;
  /** How long a refresh request waits for the provider before answering 502 (default 5 s). */
  refreshWaitMs?: number;
  /** How long the provider's refresh call itself may run, answered or not (default 30 s). */
  refreshCallTimeoutMs?: number;
  log?: Logger;
}

/** What a refresh request gets (the refresher's outcome, theft already acted on). */
export type RefreshResult = Exclude<RefreshOutcome, { kind: "reused" }> | { kind: "reused" };

export class SessionService {
  private readonly unsealed = new Lru<string, SessionCookie>(10_000);
  private readonly refresher: Refresher;

  constructor(private readonly options: SessionServiceOptions) {
    this.refresher = new Refresher({
      store: options.store,
      sealer: options.sealer,
      hydra: options.hydra,
      apps: options.apps,
      graceMs: options.rotationGraceMs ?? ROTATION_GRACE_MS,
      lostAnswerMs: options.lostAnswerGraceMs ?? LOST_ANSWER_GRACE_MS,
      waitMs: options.refreshWaitMs ?? 5000,
      callTimeoutMs: options.refreshCallTimeoutMs ?? 30_000,
      accessExpiry: (expiresIn) => accessExpiry(expiresIn),
      end: (sessionId, reason) => this.end(sessionId, reason, null),
      remember: (sealed, cookie, expiresAt) => this.unsealed.set(sealed, cookie, expiresAt),
    });
  }

  get cookieName(): string {
    return this.options.cookieName;
  }

  /**
   * From memory alone: the live session for a Cookie header when its value was seen before, null when
   * there is no usable session, undefined when the value must be unsealed or its row read.
   */
  private fromMemory(cookieHeader: string | null): ResolvedSession | null | undefined {
    const values = readSealedValues(cookieHeader, this.options.cookieName);
    if (values.length === 0) return null;
    let unknown = false;
    for (const value of values) {
      const cookie = this.unsealed.get(value);
      if (cookie === undefined) {
        unknown = true;
        continue;
      }
      const row = this.options.store.peek(cookie.sid);
      if (row === undefined) {
        unknown = true;
        continue;
      }
      if (!isLive(row)) continue;
      // The first request presenting a rotation's new token notes it, on the async path.
      if (this.unseenCurrent(row, cookie)) {
        unknown = true;
        continue;
      }
      return { row, cookie };
    }
    return unknown ? undefined : null;
  }

  /** The cookie holds the session's current refresh token, and no request has presented it since its rotation. */
  private unseenCurrent(row: SessionRow, cookie: SessionCookie): boolean {
    return (
      row.currentSeenAt === null &&
      row.previousRefreshHash !== null &&
      cookie.rt !== undefined &&
      sha256(cookie.rt) === row.refreshHash
    );
  }

  /** The live session behind a Cookie header, or null: synchronous when memory answers. */
  resolve(cookieHeader: string | null): ResolvedSession | null | Promise<ResolvedSession | null> {
    const known = this.fromMemory(cookieHeader);
    return known !== undefined ? known : this.unseal(cookieHeader);
  }

  private async unseal(cookieHeader: string | null): Promise<ResolvedSession | null> {
    for (const value of readSealedValues(cookieHeader, this.options.cookieName)) {
      const cookie = this.unsealed.get(value) ?? (await this.options.sealer.unseal(value));
      if (!cookie) continue;
      const row = await this.options.store.get(cookie.sid);
      if (!row || row.userId !== cookie.uid) continue;
      this.unsealed.set(value, cookie, row.expiresAt);
      if (!isLive(row)) continue;
      if (this.unseenCurrent(row, cookie)) await this.noteCurrentSeen(row);
      return { row, cookie };
    }
    return null;
  }

  /**
   * Best effort: a database that cannot take writes must not refuse a signed-in read. Left unnoted,
   * the next request presenting the token notes it again; meanwhile no refresh can rotate either.
   */
  private async noteCurrentSeen(row: SessionRow): Promise<void> {
    try {
      await this.options.store.markCurrentSeen(row.id, row.refreshHash!);
    } catch (error) {
      this.options.log?.("warn", "could not note the session's new refresh token as presented", {
        session: row.id,
        error: String(error),
      });
    }
  }

  /**
   * Why the Cookie header carries no live session (the failure path only): the newest session among
   * the cookies the gateway can unseal, or `no_session` when there is none.
   */
  async endReason(cookieHeader: string | null): Promise<SessionEndReason> {
    let newest: SessionRow | undefined;
    for (const value of readSealedValues(cookieHeader, this.options.cookieName)) {
      const cookie = this.unsealed.get(value) ?? (await this.options.sealer.unseal(value));
      const row = cookie ? await this.options.store.get(cookie.sid) : undefined;
      if (row && row.userId === cookie?.uid && (!newest || row.createdAt > newest.createdAt)) newest = row;
    }
    return endReasonOf(newest);
  }

  /** Starts a session after a successful code exchange. Returns the row and the sealed cookie value. */
  async start(
    tokens: TokenSet,
    userId: string,
    clientId: string,
    providerSid?: string,
    device?: string,
  ): Promise<{ row: SessionRow; sealed: string }> {
    const accessExpiresAt = accessExpiry(tokens.expiresIn);
    const row = await this.options.store.create({
      userId,
      clientId,
      accessExpiresAt,
      refreshHash: tokens.refreshToken ? sha256(tokens.refreshToken) : undefined,
      refreshSealed: tokens.refreshToken
        ? await this.options.sealer.sealText(tokens.refreshToken)
        : undefined,
      cookieKeyId: this.options.sealer.currentKeyId,
      lifetimeMs: this.options.lifetimeMs,
      providerSid,
      device,
      idTokenSealed: tokens.idToken ? await this.options.sealer.sealText(tokens.idToken) : undefined,
    });
    const cookie: SessionCookie = {
      sid: row.id,
      uid: userId,
      cid: clientId,
      at: tokens.accessToken,
      rt: tokens.refreshToken,
      aexp: accessExpiresAt,
    };
    const sealed = await this.options.sealer.seal(cookie);
    this.unsealed.set(sealed, cookie, row.expiresAt);
    return { row, sealed };
  }

  /**
   * Rotates a resolved session (the caller has checked the request may act on it). A token reused after
   * its grace is theft: the session ends and its grant is revoked. Throws IdpUnavailable when the
   * provider does not answer in time (the rotation goes on; see refresh.ts).
   */
  async refresh(resolved: ResolvedSession | null): Promise<RefreshResult> {
    if (!resolved?.cookie.rt) return { kind: "missing" };
    const outcome = await this.refresher.refresh(resolved.row.id, resolved.cookie);
    if (outcome.kind !== "reused") return outcome;
    await this.endForReuse(outcome.row);
    return { kind: "reused" };
  }

  /** Ends a session row (logout, invalid grant, operator revoke). Returns the row if it was live. */
  end(sessionId: string, reason: string, actor: string | null): Promise<SessionRow | undefined> {
    return this.options.store.end(sessionId, reason, actor);
  }

  /**
   * An operator's revoke: the session ends at once (its cookie is refused from the next request), then
   * its refresh token is revoked at the provider, best effort (at most 2 s). Undefined if it was not live.
   */
  async revoke(sessionId: string, actor: string): Promise<SessionRow | undefined> {
    const row = await this.options.store.end(sessionId, "revoked", actor);
    if (row) await this.revokeAtProvider(row);
    return row;
  }

  /**
   * A provider's back-channel logout: the sessions it names end at once (cookies refused from the next
   * request, on every process), then their refresh tokens are revoked at the provider. Returns the rows
   * as they were.
   */
  async endProviderLogout(match: {
    clientId: string;
    providerSid?: string;
    userId?: string;
  }): Promise<SessionRow[]> {
    const ended = await this.options.store.endNamed(match, "provider_logout");
    await Promise.all(ended.map((row) => this.revokeAtProvider(row)));
    return ended;
  }

  /**
   * The person ends their own sessions in one app (`only` one of them, or all `except` the current):
   * they end at once (reason `signed_out_elsewhere`), then their refresh tokens are revoked at the
   * provider. Returns how many ended (0: no such live session of this person in this app).
   */
  async endOwn(match: {
    userId: string;
    clientIds: readonly string[];
    only?: string;
    except?: string;
  }): Promise<number> {
    const ended = await this.options.store.endOwn(match, "signed_out_elsewhere");
    await Promise.all(ended.map((row) => this.revokeAtProvider(row)));
    return ended.length;
  }

  /** Theft: the session ends (one `session.reuse_detected` event) and its grant is revoked at the provider. */
  private async endForReuse(row: SessionRow): Promise<void> {
    const ended = await this.options.store.end(row.id, "refresh_reuse", null, "session.reuse_detected");
    if (ended) await this.revokeAtProvider(ended);
  }

  /** Revokes the session's current refresh token (and with it the grant's tokens), best effort. */
  async revokeAtProvider(row: SessionRow): Promise<void> {
    if (!row.refreshSealed || !this.options.hydra.configured) return;
    const token = await this.options.sealer.unsealText(row.refreshSealed);
    if (token) await this.revokeToken(row.clientId, token, row.id);
  }

  /**
   * Revokes a refresh token at the provider (RFC 7009), best effort. A provider without a revocation
   * endpoint leaves the token valid until it expires: that is logged every time, never silent.
   */
  async revokeToken(clientId: string, token: string, sessionId: string): Promise<void> {
    const client = this.options.apps.lookupClient(clientId)?.client;
    const result = await this.options.hydra.revoke({ clientId, clientSecret: client?.clientSecret }, token);
    if (result.outcome === "unsupported")
      this.options.log?.("warn", "revocation is impossible: the refresh token stays valid at the provider", {
        sessionId,
        hint: "set IDP_REVOCATION_URL",
      });
    else if (result.outcome === "refused")
      this.options.log?.("warn", "the provider did not confirm the revocation", {
        sessionId,
        ...result.call,
        cause: result.cause,
      });
  }

  /**
   * Re-seals, with the current key, every live session's refresh token sealed with another key (after a
   * rotation), so an operator's revoke keeps reaching the provider once the previous key is dropped.
   * A value no key of the ring opens is left as it is. Returns how many rows were re-sealed.
   */
  async resealRefreshTokens(): Promise<number> {
    const { store, sealer } = this.options;
    const updates: Array<{ id: string; refreshSealed: string }> = [];
    for (const row of await store.liveSealedWithOtherKey(sealer.currentKeyId)) {
      const token = await sealer.unsealText(row.refreshSealed);
      if (token !== null) updates.push({ id: row.id, refreshSealed: await sealer.sealText(token) });
    }
    await store.replaceSealed(updates);
    return updates.length;
  }

  /** Seconds until the cookie's access token needs a refresh (never negative). */
  static expiresIn(cookie: SessionCookie): number {
    return Math.max(0, Math.floor((cookie.aexp - Date.now()) / 1000));
  }
}
