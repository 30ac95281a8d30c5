/**
 * Per-app request budgets: when the caller's OAuth client is known (a session, or introspection), at
 * most `budget.requestsPerMinute` resource API calls per app per minute, counted in fixed one-minute
 * windows; the next call gets 429 `budget_exceeded` with Retry-After. Under the userinfo fallback the
 * client is unknown and budgets are not enforced.
 *
 * One principal may take only a share of its app's budget (`budget.userShare`, default a tenth, at
 * least one call): otherwise a single user, or a single stolen token, could spend the whole minute's
 * budget and lock every other user of the app out. A refused call is not charged to the app.
 *
 * Both are shared by every process on the database: a call spends one reserved call of the app's
 * window and one of the user's, which a process reserves a few at a time (budget-windows.ts, never
 * past the budget or the share) and spends from memory. So all processes together never allow more
 * than the budget, nor one user more than the share; what a process reserved and did not spend by the
 * end of the minute is lost (at most `reserveSize - 1` calls per process, per count, per minute).
 *
 * When the database cannot take the reservation's write (a full disk, a read-only database, a write
 * lock held past the wait), a read is not refused for it: the process counts it in memory only, within
 * its local allowance (the whole budget and the user's whole share per minute, by this process's count
 * of what it allowed, reserved or not), and `unreservedReads` counts it (the overshoot: calls the
 * shared count never saw). Writes fail as the database makes them fail (503). After a failure, reads
 * stop waiting on the database; one reservation a second is tried in the background until one succeeds.
 */

import { isDatabaseDown } from "../db/failures.ts";
import type { Storage } from "../db/sql.ts";
import { Refusal } from "../domain/refusal.ts";
import { type CountKey, reserveCalls } from "./budget-windows.ts";
import type { AppRegistry } from "./registry.ts";

export const DEFAULT_USER_SHARE = 0.1;
/** While the database cannot take writes, how often a read tries a reservation again (in the background). */
const PROBE_MS = 1000;

/** One count of a window, as this process sees it. */
interface Pool {
  /** Calls reserved from the shared count by this process, and spent of them. */
  reserved: number;
  spent: number;
  /** Calls allowed with nothing reserved (the database could not take the reservation). */
  unreserved: number;
  /** A reservation in flight (concurrent calls wait for the same one). */
  reserving: Promise<number> | undefined;
}

interface Window {
  start: number;
  app: Pool;
  /** Per user of this window (dropped with the window, so memory stays bounded by a minute's users). */
  users: Map<string, Pool>;
}

export interface TakeOptions {
  /** A read (GET, HEAD): allowed locally when the database cannot take the reservation. */
  read?: boolean;
  now?: number;
}

/**
 * How many calls of an app's minute one principal may make: `ceil(requestsPerMinute * userShare)`, at
 * least one. The product is rounded to 12 significant digits first: in binary floating point
 * 100 * 0.07 is 7.000000000000001, which must not round up to 8.
 */
export function userAllowance(requestsPerMinute: number, userShare = DEFAULT_USER_SHARE): number {
  return Math.max(1, Math.ceil(Number((requestsPerMinute * userShare).toPrecision(12))));
}

const pool = (): Pool => ({ reserved: 0, spent: 0, unreserved: 0, reserving: undefined });
const hasReserved = (p: Pool) => p.spent < p.reserved;
/** What this process allowed of the count this minute, reserved or not. */
const allowed = (p: Pool) => p.spent + p.unreserved;
const windowStart = (now: number) => now - (now % 60_000);

export class Budgets {
  private readonly windows = new Map<string, Window>();
  /** Set when a reservation failed for want of the database; cleared when one succeeds. */
  private databaseDown = false;
  private lastProbe = 0;
  /** Reads allowed with no reservation behind them since start-up (`/metrics`). */
  unreservedReads = 0;

  constructor(
    private readonly apps: AppRegistry,
    private readonly storage: Storage,
  ) {}

  /**
   * Counts one call when that needs nothing but memory (no budget, or calls of the app and of the user
   * already reserved): true. False when the reservation must decide (reserve, or refuse); nothing counted.
   */
  private takeFromMemory(
    appId: string,
    clientId: string | undefined,
    userId: string,
    now = Date.now(),
  ): boolean {
    if (clientId === undefined) return true;
    const budget = this.apps.app(appId)?.budget;
    if (budget === undefined) return true;
    const window = this.windows.get(appId);
    if (!window || window.start !== windowStart(now)) return false;
    const user = window.users.get(userId);
    if (!user || !hasReserved(user) || !hasReserved(window.app)) return false;
    if (allowed(window.app) >= budget.requestsPerMinute) return false;
    if (allowed(user) >= userAllowance(budget.requestsPerMinute, budget.userShare)) return false;
    window.app.spent++;
    user.spent++;
    return true;
  }

  /**
   * Counts one call of `userId` for the app; throws 429 when the app's budget or the user's share is
   * spent. Synchronous (undefined) when memory decides: no budget, or calls already reserved.
   */
  take(
    appId: string,
    clientId: string | undefined,
    userId: string,
    options: TakeOptions = {},
  ): undefined | Promise<void> {
    const now = options.now ?? Date.now();
    if (this.takeFromMemory(appId, clientId, userId, now)) return;
    return this.reserveAndTake(appId, userId, options, now);
  }

  private async reserveAndTake(appId: string, userId: string, options: TakeOptions, now: number) {
    // takeFromMemory answered true when there is no client or no budget.
    const budget = this.apps.app(appId)!.budget!;
    const limit = budget.requestsPerMinute;
    const allowance = userAllowance(limit, budget.userShare);
    const window = this.window(appId, now);
    const user = window.users.get(userId) ?? window.users.set(userId, pool()).get(userId)!;
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
    const shareSpent = () => new Refusal("budget_exceeded", { limit, allowance, retryAfterSeconds });
    const budgetSpent = () => new Refusal("budget_exceeded", { limit, retryAfterSeconds });
    const userKey: CountKey = { appId, start: window.start, userId };
    const appKey: CountKey = { appId, start: window.start };
    for (;;) {
      // What this process alone allowed is refused at once, before anything is reserved.
      if (allowed(user) >= allowance) throw shareSpent();
      if (allowed(window.app) >= limit) throw budgetSpent();
      if (hasReserved(user) && hasReserved(window.app)) break;
      if (options.read && this.databaseDown) {
        this.probe(hasReserved(user) ? [window.app, appKey, limit] : [user, userKey, allowance], now);
        break;
      }
      try {
        // The user's share first: a user past it reserves nothing of the app's.
        await this.ensure(user, userKey, allowance, shareSpent);
        await this.ensure(window.app, appKey, limit, budgetSpent);
      } catch (error) {
        if (!options.read || !isDatabaseDown(error)) throw error;
        this.databaseDown = true;
        this.lastProbe = now;
      }
    }
    const unreserved = spend(user) + spend(window.app);
    if (unreserved > 0) this.unreservedReads++;
  }

  private window(appId: string, now: number): Window {
    const start = windowStart(now);
    let window = this.windows.get(appId);
    if (!window || window.start !== start) {
      window = { start, app: pool(), users: new Map() };
      this.windows.set(appId, window);
    }
    return window;
  }

  /** A reserved call in the pool, reserving if need be; `refusal` when the shared count has none left. */
  private async ensure(p: Pool, key: CountKey, cap: number, refusal: () => Refusal): Promise<void> {
    if (!hasReserved(p) && (await this.fill(p, key, cap)) === 0 && !hasReserved(p)) throw refusal();
  }

  /** Reserves calls of the shared count for this process; how many (0 once the cap is reserved). */
  private fill(p: Pool, key: CountKey, cap: number): Promise<number> {
    p.reserving ??= reserveCalls(this.storage, key, cap)
      .then((granted) => {
        p.reserved += granted;
        this.databaseDown = false;
        return granted;
      })
      .finally(() => {
        p.reserving = undefined;
      });
    return p.reserving;
  }

  /** While the database is down: at most once a second, a reservation in the background (nobody waits for it). */
  private probe([p, key, cap]: [Pool, CountKey, number], now: number): void {
    if (now - this.lastProbe < PROBE_MS) return;
    this.lastProbe = now;
    this.fill(p, key, cap).catch(() => {});
  }
}

/** Spends a reserved call of the pool, or counts one with nothing reserved: 1 then, else 0. */
function spend(p: Pool): number {
  if (hasReserved(p)) {
    p.spent++;
    return 0;
  }
  p.unreserved++;
  return 1;
}
