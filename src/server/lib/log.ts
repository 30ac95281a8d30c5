/**
 * One JSON line per log event on stdout. Callers pass fields, never tokens: the gateway logs session
 * ids, user ids and client ids, and a test asserts no token ever appears in a log line.
 */
export type Logger = (
  level: "info" | "warn" | "error",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export function createLogger(
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  return (level, message, fields) =>
    write(JSON.stringify({ at: new Date().toISOString(), level, message, ...fields }));
}
