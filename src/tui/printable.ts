/**
 * Text from data (ids, names, event data, error messages) is drawn on the operator's terminal, and a
 * terminal acts on what it is sent: an escape sequence (ESC, or the one-byte C1 CSI) can recolour,
 * clear, retitle the window or write the clipboard; a bidi override makes text read as something else;
 * a zero-width character hides. So every string drawn goes through `printable` (the `Text` of text.tsx,
 * table cells, the non-TTY lines): each such character becomes a visible "?", one for one, so widths and
 * cuts stay as counted. The zero-width joiner and non-joiner stay between two visible characters
 * (emoji sequences and several scripts need them), as in resource names.
 */

import { isJoinerBetweenVisible } from "../server/lib/characters.ts";

/** Control (C0, DEL, C1), format, line and paragraph separator characters, and lone surrogates. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

export function printable(text: string): string {
  if (!UNSAFE.test(text)) return text;
  const chars = [...text];
  return chars.map((c, i) => (!UNSAFE.test(c) || isJoinerBetweenVisible(chars, i) ? c : "?")).join("");
}

/** Lines of text for a stream (the non-TTY output, stderr): each line printable, the line breaks kept. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}
