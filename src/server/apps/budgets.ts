/**
 * Per-app request budgets (CONTRACT §3): when the caller's OAuth client is known (a session, or
 * introspection), at most `budget.requestsPerMinute` resource API calls per app per minute, counted in
 * fixed one-minute windows in memory; the next call gets 429 `budget_exceeded` with Retry-After.
 * Under the userinfo fallback the client is unknown and budgets are not enforced (seed "Authentication").
 */
import { ApiError } from "../http/errors.ts";
import type { AppRegistry } from "./registry.ts";

export class Budgets {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly apps: AppRegistry) {}

  /** Counts one call for the app; throws 429 when its budget for this minute is spent. */
  take(appId: string, clientId: string | undefined, now = Date.now()): void {
    if (clientId === undefined) return;
    const limit = this.apps.app(appId)?.budget?.requestsPerMinute;
    if (limit === undefined) return;
    const start = now - (now % 60_000);
    let window = this.windows.get(appId);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(appId, window);
    }
    if (window.count >= limit) {
      const retryAfter = Math.max(1, Math.ceil((start + 60_000 - now) / 1000));
      throw new ApiError(
        429,
        "budget_exceeded",
        `This app's budget of ${limit} requests per minute is spent.`,
        {
          "retry-after": String(retryAfter),
        },
      );
    }
    window.count++;
  }
}
