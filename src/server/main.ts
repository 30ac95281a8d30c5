#!/usr/bin/env bun
/**
 * The binary's entry: `serve` (default), `migrate`, `keys`, and in the full build `dev`, `token` and
 * `tui`; `--help`, `help <command>`, `--version`. Each command parses its own arguments (cli/args.ts):
 * `--help` prints its usage, an unknown flag is one line and exit 2. Configuration comes only from the
 * environment; a bad value, or anything else that stops start-up, is one line naming what to change.
 */
import { version } from "../../package.json";
import { AppsFileError } from "./apps/registry.ts";
import type { Command } from "./cli/command.ts";
import { DEVELOPMENT_COMMANDS, leftOut } from "./cli/development-commands.ts";
import { SERVE_COMMANDS } from "./cli/serve-commands.ts";
import { ConfigError } from "./config.ts";
import { variablesHelp } from "./config-variables.ts";
import { StartupError } from "./startup.ts";

/** The commands this build contains (the serve-only build has no development ones). */
const COMMANDS: Command[] = [...SERVE_COMMANDS, ...DEVELOPMENT_COMMANDS];

function help(): string {
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(10)}${command.summary}`);
  return `gateway — session gateway and resource membership service

Usage: gateway <command> [--help]

Commands:
${lines.join("\n")}
  help      show this text; help <command>: that command's usage
  --version print the version

Configuration is read from environment variables only:

${variablesHelp()}`;
}

async function main(argv: string[]): Promise<number> {
  const name = argv[0] ?? "serve";
  if (name === "--help" || name === "-h" || (name === "help" && argv.length === 1)) {
    console.log(help());
    return 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    console.log(`gateway ${version} (Bun ${Bun.version})`);
    return 0;
  }
  const [target, rest] = name === "help" ? [argv[1]!, ["--help"]] : [name, argv.slice(1)];
  const command = COMMANDS.find((c) => c.name === target);
  if (command) return command.run(rest);
  const missing = leftOut(target);
  if (missing) throw new StartupError(missing);
  console.error(`gateway: unknown command "${target}" (gateway --help lists the commands)`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    if (error instanceof ConfigError || error instanceof AppsFileError || error instanceof StartupError) {
      console.error(error.message);
      process.exit(1);
    }
    // Anything else still gets one line.
    console.error(`gateway: could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
