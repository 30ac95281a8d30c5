/**
 * How many provider calls one client address can cause with bearer tokens the cache has not seen,
 * without ever refusing a token the provider would accept. Nobody knows a token is junk before the
 * provider has answered, so this limit never answers for the provider: it only makes an address wait.
 *
 * Each address holds credit: 20 at most, refilled at 5 per second. A check takes one credit when it
 * starts; an answer "valid" (or a provider failure) gives it back at once, an answer "refused" keeps
 * it. So valid tokens cost nothing however many arrive at once (many users behind one NAT or one
 * server), at most 20 checks of an address are in flight, and an address that sends junk spends its
 * credit and is then held to 5 checks a second. A check that finds no credit waits, in arrival order,
 * for a credit to come back or to refill; it is never refused. A wait ends when its request does (the
 * client went away, or the listener's idle timeout closed it), so waits cannot pile up past the
 * connections an address holds. The address is the real client's behind a trusted proxy
 * (client-address.ts), so one client's junk only ever slows that client.
 *
 * The addresses are an LRU of 10,000: an address pushed out starts again with full credit, which at
 * worst lets an attacker holding more than 10,000 addresses spend one more burst per address. A
 * request without a socket address (handled in process, as in tests) is not limited.
 */
import { Lru } from "../lib/lru.ts";

export interface TokenCheckLimits {
  burst: number;
  perSecond: number;
  addresses: number;
}

export const TOKEN_CHECK_LIMITS: TokenCheckLimits = { burst: 20, perSecond: 5, addresses: 10_000 };

interface Address {
  credit: number;
  at: number;
  /** Checks waiting for credit, oldest first. */
  waiting: Array<() => void>;
  timer?: ReturnType<typeof setTimeout>;
}

/** Why a waiting check ended without asking the provider: its request ended first. */
function abandoned(): DOMException {
  return new DOMException("The request ended while its token check waited.", "AbortError");
}

export class TokenCheckLimiter {
  private readonly addresses: Lru<string, Address>;

  constructor(private readonly limits: TokenCheckLimits = TOKEN_CHECK_LIMITS) {
    this.addresses = new Lru(limits.addresses);
  }

  /**
   * Runs `ask` (one provider check) for `address` once it has credit; an answer of null (the token
   * refused) spends that credit. Rejects with an AbortError if `signal` aborts while waiting.
   */
  check<T>(
    address: string | undefined,
    ask: () => Promise<T | null>,
    signal?: AbortSignal,
  ): Promise<T | null> {
    if (address === undefined) return ask();
    const state = this.stateOf(address);
    return new Promise<T | null>((resolve, reject) => {
      const start = () => {
        ask().then(
          (answer) => {
            if (answer !== null) this.giveBack(state);
            resolve(answer);
          },
          (error) => {
            this.giveBack(state);
            reject(error);
          },
        );
      };
      if (state.waiting.length === 0 && this.take(state)) return start();
      if (signal?.aborted) return reject(abandoned());
      const leave = () => {
        state.waiting.splice(state.waiting.indexOf(run), 1);
        reject(abandoned());
      };
      const run = () => {
        signal?.removeEventListener("abort", leave);
        start();
      };
      signal?.addEventListener("abort", leave, { once: true });
      state.waiting.push(run);
      this.admit(state);
    });
  }

  /** How many addresses are tracked. */
  get size(): number {
    return this.addresses.size;
  }

  private stateOf(address: string): Address {
    let state = this.addresses.get(address);
    if (state === undefined) {
      state = { credit: this.limits.burst, at: Date.now(), waiting: [] };
      this.addresses.set(address, state);
    }
    return state;
  }

  /** Takes one credit if there is one (after the refill since the last look). */
  private take(state: Address, now = Date.now()): boolean {
    state.credit = Math.min(
      this.limits.burst,
      state.credit + ((now - state.at) / 1000) * this.limits.perSecond,
    );
    state.at = now;
    if (state.credit < 1) return false;
    state.credit -= 1;
    return true;
  }

  private giveBack(state: Address): void {
    state.credit = Math.min(this.limits.burst, state.credit + 1);
    this.admit(state);
  }

  /** Starts the waiting checks there is credit for; the next refill wakes the rest. */
  private admit(state: Address): void {
    while (state.waiting.length > 0 && this.take(state)) state.waiting.shift()!();
    if (state.waiting.length === 0 || state.timer !== undefined || this.limits.perSecond <= 0) return;
    const ms = Math.ceil(((1 - state.credit) / this.limits.perSecond) * 1000);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.admit(state);
    }, ms);
  }
}
