/**
 * A refusal is a domain value: a stable code (refusals.ts), the facts that chose its words, and what a
 * caller may do next (retry after some seconds). Rules return one (`decide()`'s answer) and services
 * throw one; neither knows HTTP. Only `http/errors.ts` turns it into an answer, reading the status and
 * the message from the one table, so a module can neither invent a status nor reword a code.
 *
 * Like jose's errors: one class, a string `code` to switch on, `instanceof Refusal` to catch. Its
 * `message` is the table's text for its facts, which the body carries as `error`.
 */
import { REFUSALS, type RefusalCode } from "./refusals.ts";

export type { RefusalCode } from "./refusals.ts";

type Entry<C extends RefusalCode> = (typeof REFUSALS)[C];
type FactsIn<T> = T extends (facts: infer F) => unknown ? F : never;

/** The facts a code's words (or status) are chosen from; undefined when it has one text. */
export type RefusalFacts<C extends RefusalCode> = [
  FactsIn<Entry<C>["message"]> | FactsIn<Entry<C>["status"]>,
] extends [never]
  ? undefined
  : FactsIn<Entry<C>["message"]> | FactsIn<Entry<C>["status"]>;

/** What a refusal carries besides its facts; none of it reaches the body but `body`. */
export interface RefusalOptions {
  /** When the caller may try again (the answer's Retry-After). */
  retryAfterSeconds?: number;
  /** The request's body was left unread, so its connection cannot carry another request. */
  endsConnection?: boolean;
  /** Fields the body carries besides `error` and `code` (a refused refresh's `reason`). */
  body?: Readonly<Record<string, string>>;
  /** For the log only, never the body: why (what the identity provider did), and structured facts. */
  log?: { cause: string; fields?: Record<string, unknown> };
}

/** The second argument: the code's facts (required when its words need them) and the options. */
export type RefusalDetails<C extends RefusalCode> =
  RefusalFacts<C> extends undefined
    ? [details?: RefusalOptions]
    : undefined extends RefusalFacts<C>
      ? [details?: RefusalOptions | (NonNullable<RefusalFacts<C>> & RefusalOptions)]
      : [details: RefusalFacts<C> & RefusalOptions];

export class Refusal<C extends RefusalCode = RefusalCode> extends Error {
  readonly code: C;
  /** The facts the words were chosen from (the HTML error page shows some of them). */
  readonly facts: Readonly<Record<string, unknown>>;
  readonly retryAfterSeconds?: number;
  readonly endsConnection?: boolean;
  readonly body?: Readonly<Record<string, string>>;
  readonly log?: { cause: string; fields?: Record<string, unknown> };

  constructor(code: C, ...[details]: RefusalDetails<C>) {
    const { retryAfterSeconds, endsConnection, body, log, ...facts } = (details ?? {}) as RefusalOptions;
    super(pick(REFUSALS[code].message, facts));
    this.name = "Refusal";
    this.code = code;
    this.facts = facts;
    this.retryAfterSeconds = retryAfterSeconds;
    this.endsConnection = endsConnection;
    this.body = body;
    this.log = log;
  }

  /** Narrows to one code, so its facts can be read with their type. */
  is<K extends RefusalCode>(code: K): this is Refusal<K> & { facts: NonNullable<RefusalFacts<K>> } {
    return (this.code as RefusalCode) === code;
  }
}

/** A table value for these facts: the value itself, or what its function answers for them. */
export function pick<T>(value: T | ((facts: never) => T), facts: Readonly<Record<string, unknown>>): T {
  return typeof value === "function" ? (value as (facts: unknown) => T)(facts) : value;
}
