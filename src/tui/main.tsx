/**
 * The TUI's entry: `gateway tui` and `bun run tui` call `runTui`. Nothing here imports Ink statically:
 * chalk decides on colour when it is first loaded and reads only FORCE_COLOR, so NO_COLOR is honoured by
 * setting FORCE_COLOR=0 before the app (and Ink) are imported. With stdout not a terminal it prints the
 * overview once (text, or `--json`) and returns, like `kubectl get` next to k9s. A refused token (401, or
 * a disabled admin API) is final either way: one line naming where the token came from, exit code 2.
 */
import { parseCommandArgs, refusal, UsageError } from "../server/cli/args.ts";
import { type AdminClient, createAdminClient } from "./client.ts";
import { describeError, isRefusal, refusalMessage } from "./errors.ts";
import { overviewText } from "./format.ts";
import { printableLines } from "./printable.ts";

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

const ARGS = {
  name: "tui",
  usage: USAGE,
  options: {
    url: { type: "string" },
    token: { type: "string" },
    readonly: { type: "boolean" },
    "read-only": { type: "boolean" },
    json: { type: "boolean" },
  },
} as const;

/** The options, or what is wrong with them (an unknown flag, a missing value, a bad URL). */
export function parseArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): TuiOptions | string {
  let parsed: ReturnType<typeof parseCommandArgs>;
  try {
    parsed = parseCommandArgs(ARGS, argv);
  } catch (error) {
    if (error instanceof UsageError) return error.what;
    throw error;
  }
  const values = parsed === "help" ? {} : parsed.values;
  for (const flag of ["url", "token"] as const) if (values[flag] === "") return `--${flag} needs a value`;
  const url = values.url as string | undefined;
  const token = values.token as string | undefined;
  const options: TuiOptions = {
    url: url ?? (env.ADMIN_URL || "http://127.0.0.1:8788"),
    token: token ?? env.ADMIN_TOKEN ?? "",
    json: values.json === true,
    help: parsed === "help",
    readonly: values.readonly === true || values["read-only"] === true,
    urlFrom: url !== undefined ? "--url" : env.ADMIN_URL ? "ADMIN_URL" : "the default",
    tokenFrom: token !== undefined ? "--token" : "ADMIN_TOKEN",
  };
  try {
    const parsedUrl = new URL(options.url);
    if (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:")
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
  // A line printed for the operator carries what the admin API answered: printable, like every screen.
  const stderr = { write: (text: string) => (io.stderr ?? process.stderr).write(printableLines(text)) };
  const options = parseArgs(argv, env);
  if (typeof options === "string") {
    stderr.write(`${refusal("tui", options)}\n`);
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
        options.json
          ? `${JSON.stringify(overview, null, 2)}\n`
          : printableLines(overviewText(client.url, overview)),
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
