/**
 * Per-app request budgets: when the caller's OAuth client is known (a session, or introspection), at
 * most `budget.requestsPerMinute` resource API calls per app per minute, counted in fixed one-minute
 * windows; the next call gets 429 `budget_exceeded` with Retry-After. Under the userinfo fallback the
 * client is unknown and budgets are not enforced.
 *
 * The budget is shared by every process on the database: a process reserves calls of the current
 * window a few at a time (`budget_windows`, never past the budget, under a lock), and spends them from
 * memory. So all processes together never allow more than the budget; a process's unspent reservation
 * at the end of a minute is lost (at most `reserveSize - 1` calls per process per minute refused early).
 * Small budgets reserve one call at a time (a database write per budgeted call).
 *
 * One principal may take only a share of its app's budget (`budget.userShare`, default a tenth, at
 * least one call): otherwise a single user, or a single stolen token, could spend the whole minute's
 * budget and lock every other user of the app out. The share is counted per process: a user whose
 * calls are spread over N processes may get up to N shares, never more than the app's budget. A
 * refused call is not charged to the app.
 */
import type { Storage } from "../db/sql.ts";
import { ApiError } from "../http/errors.ts";
import type { AppRegistry } from "./registry.ts";

export const DEFAULT_USER_SHARE = 0.1;

interface Window {
  start: number;
  /** Calls reserved from the shared window by this process, and spent of them. */
  reserved: number;
  spent: number;
  /** A reservation in flight (concurrent calls wait for the same one). */
  reserving: Promise<number> | undefined;
  /** Calls per user in this window (dropped with the window, so memory stays bounded by a minute's users). */
  users: Map<string, number>;
}

/** How many calls a process reserves at once: 1 for small budgets, at most 100 (a fiftieth of the budget). */
export function reserveSize(requestsPerMinute: number): number {
  return Math.max(1, Math.min(100, Math.floor(requestsPerMinute / 50)));
}

/**
 * How many calls of an app's minute one principal may make: `ceil(requestsPerMinute * userShare)`, at
 * least one. The product is rounded to 12 significant digits first: in binary floating point
 * 100 * 0.07 is 7.000000000000001, which must not round up to 8.
 */
export function userAllowance(requestsPerMinute: number, userShare = DEFAULT_USER_SHARE): number {
  return Math.max(1, Math.ceil(Number((requestsPerMinute * userShare).toPrecision(12))));
}

export class Budgets {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly apps: AppRegistry,
    private readonly storage: Storage,
  ) {}

  /**
   * Counts one call when that needs nothing but memory (no budget, or calls already reserved and the
   * user under their share): true. False when `take` must decide (reserve, or refuse); nothing counted.
   */
  takeNow(appId: string, clientId: string | undefined, userId: string, now = Date.now()): boolean {
    if (clientId === undefined) return true;
    const budget = this.apps.app(appId)?.budget;
    if (budget === undefined) return true;
    const window = this.windows.get(appId);
    if (!window || window.start !== now - (now % 60_000) || window.spent >= window.reserved) return false;
    const used = window.users.get(userId) ?? 0;
    if (used >= userAllowance(budget.requestsPerMinute, budget.userShare)) return false;
    window.spent++;
    window.users.set(userId, used + 1);
    return true;
  }

  /** Counts one call of `userId` for the app; throws 429 when the app's budget or the user's share is spent. */
  async take(appId: string, clientId: string | undefined, userId: string, now = Date.now()): Promise<void> {
    if (this.takeNow(appId, clientId, userId, now)) return;
    // takeNow answered true when there is no client or no budget.
    const budget = this.apps.app(appId)!.budget!;
    const limit = budget.requestsPerMinute;
    const start = now - (now % 60_000);
    let window = this.windows.get(appId);
    if (!window || window.start !== start) {
      window = { start, reserved: 0, spent: 0, reserving: undefined, users: new Map() };
      this.windows.set(appId, window);
    }
    const retryAfter = { "retry-after": String(Math.max(1, Math.ceil((start + 60_000 - now) / 1000))) };
    const allowance = userAllowance(limit, budget.userShare);
    const used = window.users.get(userId) ?? 0;
    // A user past their share is refused before anything is reserved for them.
    if (used >= allowance) throw userShareSpent(allowance, limit, retryAfter);
    while (window.spent >= window.reserved) {
      window.reserving ??= this.reserve(appId, start, limit).finally(() => {
        window.reserving = undefined;
      });
      const granted = await window.reserving;
      if (granted === 0 && window.spent >= window.reserved)
        throw new ApiError(
          429,
          "budget_exceeded",
          `This app's budget of ${limit} requests per minute is spent.`,
          retryAfter,
        );
    }
    const usedNow = window.users.get(userId) ?? 0;
    if (usedNow >= allowance) throw userShareSpent(allowance, limit, retryAfter);
    window.spent++;
    window.users.set(userId, usedNow + 1);
  }

  /** Reserves calls of the shared window for this process; returns how many (0 once the budget is spent). */
  private async reserve(appId: string, start: number, limit: number): Promise<number> {
    const window = this.windows.get(appId);
    const granted = await this.storage.transaction(async (tx) => {
      await tx.lock(`budget:${appId}`);
      const row = await tx.get<{ reserved: number }>(
        "SELECT reserved FROM budget_windows WHERE app_id = $1 AND window_start = $2",
        [appId, start],
      );
      const reserved = Number(row?.reserved ?? 0);
      const grant = Math.min(reserveSize(limit), limit - reserved);
      if (grant <= 0) return 0;
      if (row) {
        await tx.run("UPDATE budget_windows SET reserved = $3 WHERE app_id = $1 AND window_start = $2", [
          appId,
          start,
          reserved + grant,
        ]);
      } else {
        // Old windows go as new ones come: the table holds about one row per app.
        await tx.run("DELETE FROM budget_windows WHERE app_id = $1 AND window_start < $2", [appId, start]);
        await tx.run("INSERT INTO budget_windows (app_id, window_start, reserved) VALUES ($1, $2, $3)", [
          appId,
          start,
          grant,
        ]);
      }
      return grant;
    });
    if (window && window.start === start) window.reserved += granted;
    return granted;
  }
}

function userShareSpent(allowance: number, limit: number, retryAfter: Record<string, string>): ApiError {
  return new ApiError(
    429,
    "budget_exceeded",
    `Your share of this app's budget (${allowance} of ${limit} requests per minute) is spent.`,
    retryAfter,
  );
}
