/** The per-address token bucket for bearer cache misses: burst, refill, Retry-After, bounded map. */
import { expect, test } from "bun:test";
import type { ApiError } from "../../src/server/http/errors.ts";
import { TokenCheckLimiter } from "../../src/server/http/token-checks.ts";

function refusal(run: () => void): ApiError | undefined {
  try {
    run();
  } catch (error) {
    return error as ApiError;
  }
  return undefined;
}

test("a burst of 20, then one check per 200 ms; Retry-After rounds up to whole seconds", () => {
  const limiter = new TokenCheckLimiter();
  for (let i = 0; i < 20; i++) limiter.take("10.0.0.1", 1000);
  const refused = refusal(() => limiter.take("10.0.0.1", 1000));
  expect(refused?.status).toBe(429);
  expect(refused?.code).toBe("too_many_token_checks");
  expect(refused?.headers).toEqual({ "retry-after": "1" });
  expect(refusal(() => limiter.take("10.0.0.2", 1000))).toBeUndefined(); // another address
  expect(refusal(() => limiter.take("10.0.0.1", 1200))).toBeUndefined();
  expect(refusal(() => limiter.take("10.0.0.1", 1200))?.status).toBe(429);
});

test("no address (in process) is never limited", () => {
  const limiter = new TokenCheckLimiter({ burst: 1, perSecond: 1, addresses: 10 });
  for (let i = 0; i < 100; i++) limiter.take(undefined);
  expect(limiter.size).toBe(0);
});

test("the bucket map is bounded: a flood of addresses keeps at most `addresses` buckets", () => {
  const limiter = new TokenCheckLimiter({ burst: 2, perSecond: 1, addresses: 100 });
  for (let i = 0; i < 1000; i++) {
    limiter.take(`10.1.${i >> 8}.${i & 255}`, 0);
    expect(limiter.size).toBeLessThanOrEqual(100);
  }
  expect(limiter.size).toBeGreaterThanOrEqual(50); // the most recent half at least
});

test("a check given back (the token proved valid) is spent again; never past the burst", () => {
  const limiter = new TokenCheckLimiter({ burst: 2, perSecond: 0, addresses: 10 });
  limiter.take("10.0.0.1", 0);
  limiter.take("10.0.0.1", 0);
  expect(refusal(() => limiter.take("10.0.0.1", 0))?.status).toBe(429);
  limiter.refund("10.0.0.1", 0);
  expect(refusal(() => limiter.take("10.0.0.1", 0))).toBeUndefined();
  expect(refusal(() => limiter.take("10.0.0.1", 0))?.status).toBe(429);
  for (let i = 0; i < 5; i++) limiter.refund("10.0.0.1", 0);
  limiter.take("10.0.0.1", 0);
  limiter.take("10.0.0.1", 0);
  expect(refusal(() => limiter.take("10.0.0.1", 0))?.status).toBe(429);
});
