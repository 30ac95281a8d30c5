/**
 * Reconnect delays: 2 s doubling to a 60 s cap, each scaled by a random factor in [0.8, 1.2) so that many
 * operators' terminals do not hammer a restarting gateway in lockstep. Never below the base, never above the cap.
 */
export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
  random?: () => number;
}

export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 2000;
  const cap = options.capMs ?? 60_000;
  const random = options.random ?? Math.random;
  const raw = Math.min(cap, base * 2 ** Math.max(0, Math.min(attempt, 30)));
  const jittered = raw * (0.8 + 0.4 * random());
  return Math.round(Math.min(cap, Math.max(base, jittered)));
}

/** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
