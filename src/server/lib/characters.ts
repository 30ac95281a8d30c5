/**
 * The characters that make text read as something else: what the API refuses in names and subjects
 * (domain/text.ts, idp/subject.ts) and what the operator's terminal never draws as it is (tui/printable.ts),
 * written once so the two never drift apart.
 */

/** Invisible characters: control, format, separators (spaces included), lone surrogates. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\p{Cs}]/u;
const JOINERS = new Set(["\u200c", "\u200d"]);

/**
 * Whether `chars[i]` is a zero-width joiner or non-joiner between two visible characters: emoji
 * sequences and several scripts need them, so names keep them there (and only there).
 */
export function isJoinerBetweenVisible(chars: readonly string[], i: number): boolean {
  const before = chars[i - 1];
  const after = chars[i + 1];
  return (
    JOINERS.has(chars[i]!) &&
    before !== undefined &&
    after !== undefined &&
    !INVISIBLE.test(before) &&
    !INVISIBLE.test(after)
  );
}
