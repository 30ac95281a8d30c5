/**
 * How many provider calls one client address can cause by presenting bearer tokens the cache has
 * not seen: a token bucket per address, 20 checks in a burst, refilled at 5 per second. Over it the
 * caller gets 429 `too_many_token_checks` with Retry-After, and the provider is not called. Cache
 * hits are free and never counted, and a check the provider answers "valid" is given back (`refund`):
 * only refused tokens spend the bucket, so many signed-in users behind one address (a NAT, an app's
 * server) are not held up, while 20 calls at once stay the most one address can have in flight.
 * Without this, anyone could make the gateway introspect any number of random tokens.
 *
 * The buckets are an LRU of 10,000 addresses: an address pushed out starts again with a full bucket,
 * which at worst lets an attacker holding more than 10,000 addresses spend one more burst per address.
 * A request without a socket address (handled in process, as in tests) is not limited.
 */
import { Lru } from "../lib/lru.ts";
import { ApiError } from "./errors.ts";

export interface TokenCheckLimits {
  burst: number;
  perSecond: number;
  addresses: number;
}

export const TOKEN_CHECK_LIMITS: TokenCheckLimits = { burst: 20, perSecond: 5, addresses: 10_000 };

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenCheckLimiter {
  private readonly buckets: Lru<string, Bucket>;

  constructor(private readonly limits: TokenCheckLimits = TOKEN_CHECK_LIMITS) {
    this.buckets = new Lru(limits.addresses);
  }

  /** Spends one check for `address`, or throws 429 too_many_token_checks. */
  take(address: string | undefined, now = Date.now()): void {
    if (address === undefined) return;
    const { burst, perSecond } = this.limits;
    const bucket = this.buckets.get(address, now) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(address, bucket);
      const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw new ApiError(
        429,
        "too_many_token_checks",
        "Too many unknown bearer tokens from this address: retry later.",
        { "retry-after": String(seconds) },
      );
    }
    bucket.tokens -= 1;
    this.buckets.set(address, bucket);
  }

  /** Gives back a check `take` spent (the token proved valid). */
  refund(address: string | undefined, now = Date.now()): void {
    if (address === undefined) return;
    const bucket = this.buckets.get(address, now);
    if (bucket !== undefined) bucket.tokens = Math.min(this.limits.burst, bucket.tokens + 1);
  }

  get size(): number {
    return this.buckets.size;
  }
}
