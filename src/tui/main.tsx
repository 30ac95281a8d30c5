/**
 * The TUI's entry: `gateway tui` and `bun run tui` call `runTui`. Nothing here imports Ink statically:
 * chalk decides on colour when it is first loaded and reads only FORCE_COLOR, so NO_COLOR is honoured by
 * setting FORCE_COLOR=0 before the app (and Ink) are imported. With stdout not a terminal it prints the
 * overview once (text, or `--json`) and returns, like `kubectl get` next to k9s. A refused token (401, or
 * a disabled admin API) is final either way: one line naming where the token came from, exit code 2.
 */
import { type AdminClient, createAdminClient } from "./client.ts";
import { describeError, isRefusal, refusalMessage } from "./errors.ts";
import { overviewText } from "./format.ts";

export const USAGE = `Usage: gateway tui [--url URL] [--token TOKEN] [--readonly] [--json]

Operator dashboard over the gateway's admin API.
  --url URL      admin API base URL (env ADMIN_URL; default http://127.0.0.1:8788)
  --token TOKEN  admin bearer token (env ADMIN_TOKEN)
  --readonly     no destructive action (revoke, withdraw, remove, role change)
  --json         with stdout not a terminal: print the overview as JSON
  --help         this text
Environment: NO_COLOR disables colour. A refused token exits 2.
`;

export interface TuiOptions {
  url: string;
  token: string;
  json: boolean;
  help: boolean;
  readonly: boolean;
  /** Where the URL and the token came from, to name them in messages. */
  urlFrom: "--url" | "ADMIN_URL" | "the default";
  tokenFrom: "--token" | "ADMIN_TOKEN";
}

export function parseArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): TuiOptions | string {
  const options: TuiOptions = {
    url: env.ADMIN_URL || "http://127.0.0.1:8788",
    token: env.ADMIN_TOKEN ?? "",
    json: false,
    help: false,
    readonly: false,
    urlFrom: env.ADMIN_URL ? "ADMIN_URL" : "the default",
    tokenFrom: "ADMIN_TOKEN",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    if (flag === "--json") options.json = true;
    else if (flag === "--readonly" || flag === "--read-only") options.readonly = true;
    else if (flag === "--help" || flag === "-h") options.help = true;
    else if (flag === "--url" || flag === "--token") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") return `${flag} needs a value`;
      if (flag === "--url") {
        options.url = value;
        options.urlFrom = "--url";
      } else {
        options.token = value;
        options.tokenFrom = "--token";
      }
    } else return `unknown argument: ${arg}`;
  }
  try {
    const parsed = new URL(options.url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      return `${options.urlFrom} must be http(s): ${options.url}`;
  } catch {
    return `${options.urlFrom} is not a URL: ${options.url}`;
  }
  return options;
}

/** Streams and a client, replaceable by tests. */
export interface TuiIo {
  stdout?: { isTTY?: boolean; write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  client?: AdminClient;
}

export async function runTui(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  io: TuiIo = {},
): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const options = parseArgs(argv, env);
  if (typeof options === "string") {
    stderr.write(`gateway tui: ${options}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    stdout.write(USAGE);
    return 0;
  }
  if (!options.token && !io.client) {
    stderr.write("gateway tui: no admin token: pass --token or set ADMIN_TOKEN\n");
    return 2;
  }
  const client = io.client ?? createAdminClient({ url: options.url, token: options.token });

  if (!stdout.isTTY) {
    try {
      const overview = await client.getOverview();
      stdout.write(
        options.json ? `${JSON.stringify(overview, null, 2)}\n` : overviewText(client.url, overview),
      );
      return 0;
    } catch (error) {
      if (isRefusal(error)) {
        stderr.write(`gateway tui: ${refusalMessage(client.url, error.code, options.tokenFrom)}\n`);
        return 2;
      }
      stderr.write(`gateway tui: cannot read the overview from ${client.url}: ${describeError(error)}\n`);
      return 1;
    }
  }

  if (env.NO_COLOR) process.env.FORCE_COLOR = "0";
  const [{ render }, { App }, { createElement }] = await Promise.all([
    import("ink"),
    import("./app.tsx"),
    import("react"),
  ]);
  let refused: string | undefined;
  const onFatal = (code: string) => {
    refused = code;
  };
  const instance = render(createElement(App, { client, readonly: options.readonly, onFatal }), {
    alternateScreen: true,
    // Whole frames: incremental rendering rewrote only the lines it believed changed, so a screen disturbed
    // by keys echoed before raw mode (typed while the TUI starts) kept a broken header ("…") for good.
    incrementalRendering: false,
    maxFps: 15,
    // A CI=true environment would otherwise make Ink draw nothing until exit; we are on a terminal here.
    interactive: true,
  });
  await instance.waitUntilExit();
  if (refused === undefined) return 0;
  // After Ink has left the alternate screen, so the line stays in the terminal.
  stderr.write(`gateway tui: ${refusalMessage(client.url, refused, options.tokenFrom)}\n`);
  return 2;
}
