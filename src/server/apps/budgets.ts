/**
 * Per-app request budgets: when the caller's OAuth client is known (a session, or introspection), at
 * most `budget.requestsPerMinute` resource API calls per app per minute, counted in fixed one-minute
 * windows in memory; the next call gets 429 `budget_exceeded` with Retry-After. Under the userinfo
 * fallback the client is unknown and budgets are not enforced.
 *
 * One principal may take only a share of its app's budget (`budget.userShare`, default a tenth, at
 * least one call): otherwise a single user, or a single stolen token, could spend the whole minute's
 * budget and lock every other user of the app out. A refused call is not charged to the app.
 */
import { ApiError } from "../http/errors.ts";
import type { AppRegistry } from "./registry.ts";

export const DEFAULT_USER_SHARE = 0.1;

interface Window {
  start: number;
  count: number;
  /** Calls per user in this window (dropped with the window, so memory stays bounded by a minute's users). */
  users: Map<string, number>;
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

  constructor(private readonly apps: AppRegistry) {}

  /** Counts one call of `userId` for the app; throws 429 when the app's budget or the user's share is spent. */
  take(appId: string, clientId: string | undefined, userId: string, now = Date.now()): void {
    if (clientId === undefined) return;
    const budget = this.apps.app(appId)?.budget;
    if (budget === undefined) return;
    const limit = budget.requestsPerMinute;
    const start = now - (now % 60_000);
    let window = this.windows.get(appId);
    if (!window || window.start !== start) {
      window = { start, count: 0, users: new Map() };
      this.windows.set(appId, window);
    }
    const retryAfter = { "retry-after": String(Math.max(1, Math.ceil((start + 60_000 - now) / 1000))) };
    if (window.count >= limit) {
      throw new ApiError(
        429,
        "budget_exceeded",
        `This app's budget of ${limit} requests per minute is spent.`,
        retryAfter,
      );
    }
    const allowance = userAllowance(limit, budget.userShare);
    const used = window.users.get(userId) ?? 0;
    if (used >= allowance) {
      throw new ApiError(
        429,
        "budget_exceeded",
        `Your share of this app's budget (${allowance} of ${limit} requests per minute) is spent.`,
        retryAfter,
      );
    }
    window.count++;
    window.users.set(userId, used + 1);
  }
}
