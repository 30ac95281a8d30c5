/**
 * Every command's arguments go through this one parser (node's `util.parseArgs`, strict), so each one
 * answers `--help`/`-h` with its own usage on stdout (exit 0) and refuses anything it does not know with
 * one line on stderr (exit 2) before it does anything: no database is opened, no port bound, nobody
 * signed in because of a flag the command did not expect.
 */
import { parseArgs } from "node:util";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** The option may be given several times; its value is then the list, in order. */
  multiple?: boolean;
}

export interface CommandArgs {
  /** `gateway <name>`, as messages name the command. */
  name: string;
  /** What `--help` prints. */
  usage: string;
  options?: Record<string, OptionSpec>;
  /** How many positional arguments the command takes: [fewest, most]. */
  positionals?: readonly [number, number];
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** A refusal of the command line: one line naming the command, exit code 2. */
export class UsageError extends Error {
  constructor(
    command: string,
    /** What is wrong, without the command's name. */
    readonly what: string,
  ) {
    super(refusal(command, what));
  }
}

/** The arguments, or "help" when `--help`/`-h` is among them; throws UsageError for anything else. */
export function parseCommandArgs(spec: CommandArgs, argv: readonly string[]): ParsedArgs | "help" {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...spec.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(spec.name, reason(error));
  }
  if (parsed.values.help === true) return "help";
  const [fewest, most] = spec.positionals ?? [0, 0];
  const { positionals } = parsed;
  if (positionals.length > most)
    throw new UsageError(spec.name, `unexpected argument "${positionals[most]}"`);
  if (positionals.length < fewest)
    throw new UsageError(
      spec.name,
      `missing argument: ${spec.usage.split("\n")[0]!.replace(/^Usage: /, "")}`,
    );
  return { values: parsed.values as ParsedArgs["values"], positionals };
}

/** One line naming the command, what is wrong, and where the usage is. */
export function refusal(name: string, what: string): string {
  return `gateway ${name}: ${what} (gateway ${name} --help shows the usage)`;
}

/** util.parseArgs' message, reduced to its first clause ("Unknown option '--x'. To specify…"). */
function reason(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const option = /'([^' ]+)/.exec(message ?? "")?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `unknown option ${option}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option) {
    return /does not take an argument/.test(message ?? "")
      ? `${option} takes no value`
      : `${option} needs a value`;
  }
  return (message ?? String(error)).split(/[.\n]/)[0]!;
}

/**
 * Runs a command with its parsed arguments: `--help` prints the usage (exit 0), a refusal prints one
 * line (exit 2). `run` may throw UsageError too (a value the parser cannot judge, e.g. `--workers 0`).
 */
export async function withArgs(
  spec: CommandArgs,
  argv: readonly string[],
  run: (args: ParsedArgs) => Promise<number>,
  io: { out(text: string): void; err(text: string): void } = {
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  },
): Promise<number> {
  try {
    const parsed = parseCommandArgs(spec, argv);
    if (parsed === "help") {
      io.out(spec.usage.trimEnd());
      return 0;
    }
    return await run(parsed);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(error.message);
    return 2;
  }
}
