/**
 * Text the API stores or matches never carries invisible or look-alike tricks: no control characters
 * (Cc), no format characters (Cf: bidi overrides such as U+202E, zero-width spaces such as U+200B, the
 * BOM), and no lone surrogates (JSON can carry "\ud800"; it is not text). Names, and browse queries
 * (which match names), are normalized to NFC and their 200-character limit counts characters (code
 * points), not UTF-16 units.
 *
 * In names (and browse queries, which match names) the zero-width joiner and non-joiner (U+200D,
 * U+200C) are allowed between two visible characters: emoji sequences and several scripts need them.
 */
import { isJoinerBetweenVisible } from "../lib/characters.ts";
import { Refusal } from "./refusal.ts";

const CONTROL = /\p{Cc}/u;
const FORMAT = /\p{Cf}/u;

export const NAME_MAX_CHARACTERS = 200;

/** Why `text` is refused, or undefined. `joinersBetweenVisible` allows ZWJ/ZWNJ inside a word. */
export function textRefusal(text: string, joinersBetweenVisible = false): string | undefined {
  if (!text.isWellFormed()) return "must not contain lone surrogates";
  if (CONTROL.test(text)) return "must not contain control characters";
  if (!FORMAT.test(text)) return undefined;
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    if (!FORMAT.test(chars[i]!)) continue;
    if (!(joinersBetweenVisible && isJoinerBetweenVisible(chars, i)))
      return "must not contain invisible format characters (such as bidi overrides or zero-width spaces)";
  }
  return undefined;
}

/** Throws 400 invalid_request naming the field when the text is refused. */
export function checkText(field: string, text: string, joinersBetweenVisible = false): void {
  const why = textRefusal(text, joinersBetweenVisible);
  if (why) throw new Refusal("invalid_request", { field, why });
}

/** A resource name as stored: trimmed, NFC, 1-200 characters, no look-alike tricks. */
export function cleanName(raw: string): string {
  const name = raw.trim().normalize("NFC");
  checkText("name", name, true);
  const length = [...name].length;
  if (length < 1 || length > NAME_MAX_CHARACTERS)
    throw new Refusal("invalid_request", {
      field: "name",
      why: `must be 1-${NAME_MAX_CHARACTERS} characters after trimming`,
    });
  return name;
}

/**
 * A browse query as names are stored: NFC (so a decomposed "e\u0301" finds a composed "é"), at most as
 * many characters as a name, counted the same way. Its characters are checked with the name rule by
 * `checkFields`. Empty means no query.
 */
export function cleanQuery(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const query = raw.normalize("NFC");
  if ([...query].length > NAME_MAX_CHARACTERS)
    throw new Refusal("invalid_request", {
      field: "query",
      why: `must be at most ${NAME_MAX_CHARACTERS} characters`,
    });
  return query;
}

export interface FieldRules {
  /** Fields checked elsewhere (a name is trimmed before its check). */
  skip: ReadonlySet<string>;
  /** Fields that follow the name rule (joiners allowed inside words). */
  nameLike: ReadonlySet<string>;
}

/** Every string field of a request part (body or query), checked. */
export function checkFields(part: unknown, rules: FieldRules): void {
  if (part === null || typeof part !== "object") return;
  for (const [field, value] of Object.entries(part)) {
    if (typeof value === "string" && !rules.skip.has(field))
      checkText(field, value, rules.nameLike.has(field));
  }
}
