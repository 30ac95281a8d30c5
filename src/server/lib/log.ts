/**
 * One JSON line per log event on stdout. Callers pass fields, never tokens: the gateway logs session
 * ids, user ids and client ids, and a test asserts no token ever appears in a log line.
 */
export type Logger = (
  level: "info" | "warn" | "error",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export function createLogger(write: (line: string) => void = stdoutLines()): Logger {
  return (level, message, fields) =>
    write(JSON.stringify({ at: new Date().toISOString(), level, message, ...fields }));
}

let stdoutWriter: ((line: string) => void) | undefined;

/**
 * Lines to stdout, written together once per turn of the event loop: under load the access log is
 * one write for many requests instead of one each. What is pending is written before the process exits.
 */
function stdoutLines(): (line: string) => void {
  if (stdoutWriter) return stdoutWriter;
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = `${pending.join("\n")}\n`;
    pending = [];
    process.stdout.write(text);
  };
  process.on("exit", flush);
  stdoutWriter = (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
  return stdoutWriter;
}
