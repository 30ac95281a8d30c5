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
  // The line is built from pieces (the fields serialized once, no merged object) and the timestamp is
  // formatted once per millisecond: the access log writes a line for every request.
  let lastMs = -1;
  let lastAt = "";
  return (level, message, fields) => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastAt = new Date(ms).toISOString();
    }
    const head = `{"at":"${lastAt}","level":"${level}","message":${JSON.stringify(message)}`;
    const rest = fields === undefined ? "}" : JSON.stringify(fields);
    write(rest.length > 2 ? `${head},${rest.slice(1)}` : `${head}}`);
  };
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
