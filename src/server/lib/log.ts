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

/** Pending text is written once it reaches this much, or FLUSH_MS after its first line. */
const FLUSH_BYTES = 32 * 1024;
const FLUSH_MS = 10;

/**
 * Lines to stdout, written together: at most FLUSH_MS after a line is logged, or as soon as 32 KiB is
 * pending. Under load the access log is then one write for a hundred requests or so, instead of one
 * each (a write cost about as much as building three lines); what is pending is written before the
 * process exits.
 */
function stdoutLines(): (line: string) => void {
  if (stdoutWriter) return stdoutWriter;
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    process.stdout.write(text);
  };
  process.on("exit", flush);
  stdoutWriter = (line) => {
    pending += `${line}\n`;
    if (pending.length >= FLUSH_BYTES) flush();
    else timer ??= setTimeout(flush, FLUSH_MS).unref();
  };
  return stdoutWriter;
}
