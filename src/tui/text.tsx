/**
 * The only `Text` the screens use: Ink's, with every string or number among its children passed through
 * `printable` (printable.ts), so no escape sequence or invisible character from data reaches the terminal
 * whichever screen, prompt or line draws it. Nested `Text`s are this one too. Nothing else in src/tui
 * imports Ink's `Text` (a test holds that).
 */
import { Text as InkText, type TextProps } from "ink";
import { Children, type ReactNode } from "react";
import { printable } from "./printable.ts";

export function Text(props: TextProps) {
  return <InkText {...props}>{Children.map(props.children, safe)}</InkText>;
}

function safe(child: ReactNode): ReactNode {
  if (typeof child === "string") return printable(child);
  if (typeof child === "number" || typeof child === "bigint") return printable(String(child));
  return child;
}
