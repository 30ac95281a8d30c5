#!/usr/bin/env bun
/** `bun src/tui/cli.ts [--url URL] [--token TOKEN] [--json]`: runs the TUI and exits with its code. */
import { runTui } from "./main.tsx";

process.exit(await runTui(process.argv.slice(2)));
