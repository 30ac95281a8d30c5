/**
 * The per-address pacing of bearer cache misses: refused tokens spend credit, valid ones never do; a
 * check without credit waits (in order) and is never refused; one address never holds up another; a
 * waiting check whose request ends leaves the queue; the map of addresses is bounded.
 */
import { expect, test } from "bun:test";
import { TokenCheckLimiter } from "../../src/server/http/token-checks.ts";

/** A provider check the test answers: `answer(true)` valid, `answer(false)` refused. */
function providerCheck() {
  let settle!: (value: string | null) => void;
  const asked = { started: false, answer: (valid: boolean) => settle(valid ? "user" : null) };
  const ask = () => {
    asked.started = true;
    return new Promise<string | null>((resolve) => {
      settle = resolve;
    });
  };
  return { asked, ask };
}

const turn = () => Bun.sleep(0);

test("a refused token spends the address's credit; without credit a check waits and is never refused", async () => {
  const limiter = new TokenCheckLimiter({ burst: 2, perSecond: 0, addresses: 10 });
  const junk = [providerCheck(), providerCheck()];
  const junkAnswers = junk.map((c) => limiter.check("10.0.0.1", c.ask));
  for (const c of junk) c.asked.answer(false);
  expect(await Promise.all(junkAnswers)).toEqual([null, null]);

  // No credit left: the next check (a valid token) is not refused, it waits.
  const valid = providerCheck();
  let answered: string | null | undefined;
  void limiter.check("10.0.0.1", valid.ask).then((a) => {
    answered = a;
  });
  await turn();
  expect(valid.asked.started).toBe(false);
  expect(answered).toBeUndefined();
  // Another address is not held up by this one's junk.
  const other = providerCheck();
  const otherAnswer = limiter.check("10.0.0.2", other.ask);
  expect(other.asked.started).toBe(true);
  other.asked.answer(true);
  expect(await otherAnswer).toBe("user");
  expect(valid.asked.started).toBe(false);
});

test("the refill starts a waiting check: it gets the provider's answer", async () => {
  const limiter = new TokenCheckLimiter({ burst: 1, perSecond: 50, addresses: 10 });
  const junk = providerCheck();
  const first = limiter.check("10.0.0.1", junk.ask);
  junk.asked.answer(false);
  expect(await first).toBeNull();
  const valid = providerCheck();
  const waiting = limiter.check("10.0.0.1", valid.ask);
  expect(valid.asked.started).toBe(false);
  while (!valid.asked.started) await Bun.sleep(5);
  valid.asked.answer(true);
  expect(await waiting).toBe("user");
});

test("valid tokens never spend credit: 60 at once from one address all answered, at most the burst in flight", async () => {
  const limiter = new TokenCheckLimiter({ burst: 20, perSecond: 0, addresses: 10 });
  let inFlight = 0;
  let most = 0;
  const ask = async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await turn();
    inFlight--;
    return "user";
  };
  const answers = await Promise.all(Array.from({ length: 60 }, () => limiter.check("10.0.0.1", ask)));
  expect(answers).toEqual(Array(60).fill("user"));
  expect(most).toBe(20);
  // And the credit is whole afterwards: 20 refused tokens still start at once.
  const junk = Array.from({ length: 20 }, () => providerCheck());
  const pending = junk.map((c) => limiter.check("10.0.0.1", c.ask));
  expect(junk.every((c) => c.asked.started)).toBe(true);
  for (const c of junk) c.asked.answer(false);
  await Promise.all(pending);
});

test("waiting checks start in arrival order as credit comes back", async () => {
  const limiter = new TokenCheckLimiter({ burst: 1, perSecond: 0, addresses: 10 });
  const holder = providerCheck();
  const held = limiter.check("10.0.0.1", holder.ask);
  const started: number[] = [];
  const queued = [0, 1, 2].map((i) =>
    limiter.check("10.0.0.1", async () => {
      started.push(i);
      return "user";
    }),
  );
  expect(started).toEqual([]);
  holder.asked.answer(true);
  expect(await held).toBe("user");
  expect(await Promise.all(queued)).toEqual(["user", "user", "user"]);
  expect(started).toEqual([0, 1, 2]);
});

test("a provider failure gives the credit back, and the failure reaches the caller", async () => {
  const limiter = new TokenCheckLimiter({ burst: 1, perSecond: 0, addresses: 10 });
  const failing = limiter.check("10.0.0.1", () => Promise.reject(new Error("provider down")));
  await expect(failing).rejects.toThrow("provider down");
  const next = providerCheck();
  const answer = limiter.check("10.0.0.1", next.ask);
  expect(next.asked.started).toBe(true);
  next.asked.answer(true);
  expect(await answer).toBe("user");
});

test("a waiting check whose request ends is dropped: AbortError, the provider never asked", async () => {
  const limiter = new TokenCheckLimiter({ burst: 1, perSecond: 0, addresses: 10 });
  const holder = providerCheck();
  const held = limiter.check("10.0.0.1", holder.ask);
  const gone = providerCheck();
  const controller = new AbortController();
  const abandoned = limiter.check("10.0.0.1", gone.ask, controller.signal);
  const after = providerCheck();
  const next = limiter.check("10.0.0.1", after.ask);
  controller.abort();
  const error = await abandoned.catch((e: Error) => e);
  expect((error as Error).name).toBe("AbortError");
  // The credit coming back goes to the next live waiter, not the abandoned one.
  holder.asked.answer(true);
  await held;
  await turn();
  expect(gone.asked.started).toBe(false);
  expect(after.asked.started).toBe(true);
  after.asked.answer(true);
  expect(await next).toBe("user");
  // A request already gone by the time it would wait is dropped at once.
  const holding = providerCheck();
  const heldAgain = limiter.check("10.0.0.1", holding.ask);
  const late = providerCheck();
  const lateError = await limiter.check("10.0.0.1", late.ask, AbortSignal.abort()).catch((e: Error) => e);
  expect((lateError as Error).name).toBe("AbortError");
  expect(late.asked.started).toBe(false);
  holding.asked.answer(true);
  await heldAgain;
});

test("no address (in process) is never limited", async () => {
  const limiter = new TokenCheckLimiter({ burst: 1, perSecond: 0, addresses: 10 });
  for (let i = 0; i < 20; i++) expect(await limiter.check(undefined, async () => null)).toBeNull();
  expect(limiter.size).toBe(0);
});

test("the address map is bounded: a flood of addresses keeps at most `addresses` of them", async () => {
  const limiter = new TokenCheckLimiter({ burst: 2, perSecond: 1, addresses: 100 });
  for (let i = 0; i < 1000; i++) {
    await limiter.check(`10.1.${i >> 8}.${i & 255}`, async () => null);
    expect(limiter.size).toBeLessThanOrEqual(100);
  }
  expect(limiter.size).toBeGreaterThanOrEqual(50); // the most recent half at least
});
