/**
 * Refreshing a session without ever tripping Hydra's reuse detection (a reused refresh token revokes
 * the whole grant), across tabs, restarts, a gave-up request and several processes on one database.
 *
 * - What the grace needs lives on the session row, sealed where it holds tokens: the current cookie
 *   (`current_cookie`), the previous token's hash, when it was rotated, and when the current token was
 *   first presented. Whether a token that is not the current one gets the current session or is theft
 *   is refresh-grace.ts's rule, answered the same by whichever process, even right after a restart.
 *   Theft: the caller ends the session (see sessions.ts).
 * - One rotation at a time per session: a process claims the session (`SessionStore.claimRefresh`: a
 *   lock held by its database connection on PostgreSQL, a lease on the row on SQLite), only while the
 *   row still holds the presented token, before calling the provider; a process that finds the claim
 *   taken waits for the row to change. In one process, concurrent requests share one call.
 * - A request waits at most `waitMs` (5 s) and then answers 502, but the provider call goes on (bounded
 *   by `callTimeoutMs`, 30 s) and its result is stored if it arrives, so the session is never left on
 *   a spent token; the next refresh finds either the rotation or the claim, and waits for it.
 */
import type { AppRegistry } from "../apps/registry.ts";
import { type HydraClient, IdpUnavailable } from "../idp/hydra.ts";
import { sha256 } from "../lib/crypto.ts";
import { olderTokenVerdict } from "./refresh-grace.ts";
import type { CookieSealer, SessionCookie } from "./seal.ts";
import { isLive, type SessionRow, type SessionStore } from "./session-store.ts";

export type RefreshOutcome =
  | { kind: "ok"; sealed: string | undefined; cookie: SessionCookie; row: SessionRow }
  | { kind: "missing" }
  /** A token of the session rotated away before the grace: the caller treats it as theft. */
  | { kind: "reused"; row: SessionRow }
  | { kind: "ended" };

export interface RefresherOptions {
  store: SessionStore;
  sealer: CookieSealer;
  hydra: HydraClient;
  apps: AppRegistry;
  graceMs: number;
  /** How long the previous token gets the current session while the current one was never presented. */
  lostAnswerMs: number;
  /** How long one request waits for a rotation before answering 502 (the rotation goes on). */
  waitMs: number;
  /** How long the provider call itself may take. */
  callTimeoutMs: number;
  /** Access expiry from the provider's `expires_in`. */
  accessExpiry(expiresInSeconds: number): number;
  /** Ends a session whose grant the provider says is gone. */
  end(sessionId: string, reason: string): Promise<unknown>;
  /** Remembers a sealed cookie value and its contents (the resolve cache). */
  remember(sealed: string, cookie: SessionCookie, expiresAt: number): void;
}

const POLL_MS = 50;

export class Refresher {
  private readonly inflight = new Map<string, Promise<RefreshOutcome>>();

  constructor(private readonly options: RefresherOptions) {}

  async refresh(sessionId: string, cookie: SessionCookie): Promise<RefreshOutcome> {
    const { store } = this.options;
    const presented = sha256(cookie.rt!);
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const row = await store.fresh(sessionId);
      if (!row || !isLive(row)) return { kind: "ended" };
      if (presented !== row.refreshHash) return this.olderToken(row, presented, cookie);
      const running = this.inflight.get(row.id);
      if (running) return within(running, deadline);
      const leaseUntil = Date.now() + this.options.callTimeoutMs + 1000;
      const claim = await store.claimRefresh(row.id, presented, leaseUntil);
      if (claim) {
        const call = this.rotate(row, cookie)
          .finally(() => claim.release().catch(() => {}))
          .finally(() => this.inflight.delete(row.id));
        this.inflight.set(row.id, call);
        return within(call, deadline);
      }
      // Another process is rotating this session: wait for the row to change.
      if (Date.now() + POLL_MS > deadline)
        throw new IdpUnavailable("a refresh of this session is still running");
      await Bun.sleep(POLL_MS);
    }
  }

  /** A token that is no longer the session's current one: the current session, or reuse (refresh-grace.ts). */
  private async olderToken(
    row: SessionRow,
    presented: string,
    cookie: SessionCookie,
  ): Promise<RefreshOutcome> {
    const { graceMs, lostAnswerMs } = this.options;
    if (olderTokenVerdict(row, presented, Date.now(), { graceMs, lostAnswerMs }) === "theft")
      return { kind: "reused", row };
    const sealed = row.currentCookie ?? undefined;
    const current = sealed ? await this.options.sealer.unseal(sealed) : null;
    if (sealed && current && current.sid === row.id) {
      this.options.remember(sealed, current, row.expiresAt);
      return { kind: "ok", sealed, cookie: current, row };
    }
    return { kind: "ok", sealed: undefined, cookie, row };
  }

  private async rotate(row: SessionRow, cookie: SessionCookie): Promise<RefreshOutcome> {
    const { store, sealer, hydra, apps } = this.options;
    const client = apps.lookupClient(row.clientId)?.client;
    const result = await hydra.refresh(
      { clientId: row.clientId, clientSecret: client?.clientSecret },
      cookie.rt!,
      this.options.callTimeoutMs,
    );
    if (!result.ok) {
      // invalid_grant: the token expired, was revoked or reused; the grant is gone, so is the session.
      // Anything else (invalid_client, a provider hiccup) says nothing about the session: keep it.
      if (result.error !== "invalid_grant") throw new IdpUnavailable(`refresh answered ${result.error}`);
      await this.options.end(row.id, "refresh_invalid");
      return { kind: "ended" };
    }
    const tokens = result.tokens;
    const aexp = this.options.accessExpiry(tokens.expiresIn);
    const next: SessionCookie = {
      ...cookie,
      at: tokens.accessToken,
      rt: tokens.refreshToken ?? cookie.rt,
      aexp,
    };
    const [sealed, refreshSealed] = await Promise.all([
      sealer.seal(next),
      tokens.refreshToken ? sealer.sealText(tokens.refreshToken) : undefined,
    ]);
    const refresh =
      tokens.refreshToken && refreshSealed
        ? { hash: sha256(tokens.refreshToken), sealed: refreshSealed }
        : undefined;
    const updated = await store.rotate(row.id, refresh, aexp, sealer.currentKeyId, sealed);
    if (!updated) return { kind: "ended" };
    this.options.remember(sealed, next, updated.expiresAt);
    return { kind: "ok", sealed, cookie: next, row: updated };
  }
}

/** The call's outcome if it settles before the deadline; else 502, while the call goes on. */
function within<T>(call: Promise<T>, deadline: number): Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) {
    call.catch(() => {});
    return Promise.reject(new IdpUnavailable("the refresh is taking too long"));
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IdpUnavailable("the refresh is taking too long")), left);
  });
  call.catch(() => {});
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
