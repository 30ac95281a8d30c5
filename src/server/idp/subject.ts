/**
 * The provider's subject (`sub`) becomes the user id everywhere: session and membership rows, events,
 * the admin API's paths, the operator's terminal. Trust boundary: the provider may be anyone's (any
 * OpenID provider, a misconfigured one), so its subject is checked where it enters: the ID token at
 * sign-in, introspection or userinfo for a bearer token, the consent request. A subject is refused,
 * never mapped (a mapped id would be a second name for one person, and two subjects could map to one):
 * - control characters (C0, DEL, C1): escape sequences a terminal acts on;
 * - format characters (bidi overrides, zero-width characters, the BOM) and line or paragraph
 *   separators: text that reads as something else or hides;
 * - lone surrogates (not text);
 * - more than 256 UTF-16 units: longer than the admin API takes as an id.
 */
import { Refusal } from "../domain/refusal.ts";
import { textRefusal } from "../domain/text.ts";

export const SUBJECT_MAX_LENGTH = 256;
const SEPARATORS = /[\p{Zl}\p{Zp}]/u;

/** Why the provider's subject is refused, or undefined when it may be a user id. */
export function subjectRefusal(subject: string): string | undefined {
  if (subject.length === 0) return "is empty";
  if (subject.length > SUBJECT_MAX_LENGTH) return `is longer than ${SUBJECT_MAX_LENGTH} characters`;
  if (SEPARATORS.test(subject)) return "must not contain line or paragraph separators";
  return textRefusal(subject);
}

/**
 * Throws 403 `invalid_subject` when the subject is refused: the account exists at the provider, but the
 * gateway cannot serve its id. The reason goes to the log line, never the body.
 */
export function checkSubject(subject: string): void {
  const why = subjectRefusal(subject);
  if (why === undefined) return;
  throw new Refusal("invalid_subject", { log: { cause: `the provider's subject ${why}` } });
}
