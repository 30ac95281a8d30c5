/**
 * Copy to the operator's clipboard with OSC 52: the terminal (or tmux with `set-clipboard on`) sets its
 * clipboard from an escape sequence on stdout, so it works over SSH with nothing installed on the server.
 * Terminals that do not support it ignore the sequence.
 */
export function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, "utf8").toString("base64")}\u0007`;
}
