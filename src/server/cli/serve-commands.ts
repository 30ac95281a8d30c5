/**
 * The commands a server needs, in every build: serve, migrate, keys. Each parses its arguments before
 * it reads the configuration, so `--help` and a refused flag never open a database or bind a port.
 */
import { loadConfig, readDevConfig } from "../config.ts";
import { databaseTarget, openStorage } from "../db/open.ts";
import { createLogger } from "../lib/log.ts";
import { UsageError, withArgs } from "./args.ts";
import type { Command } from "./command.ts";

const SERVE = {
  name: "serve",
  usage: `Usage: gateway serve [--workers N]

Serves the public API (PORT, default 8787) and the admin API (ADMIN_PORT, default 8788).
  --workers N  N processes share both ports and the database (one host, every core), 1 to 256
  --help       this text
Configuration comes from the environment: gateway --help lists every variable.`,
  options: { workers: { type: "string" } },
} as const;

const MIGRATE = {
  name: "migrate",
  usage: `Usage: gateway migrate

Creates or migrates the database (DATABASE_PATH, or DATABASE_URL) and exits.`,
} as const;

const KEYS = {
  name: "keys",
  usage: `Usage: gateway keys [status|rotate|prune] [--dev] [--force]

The session sealing keys, read from the key source and the database the gateway itself uses.
  status   (default) each key, the live sessions sealed with it, and what every running gateway
           process seals with (processes record it every 30 s)
  rotate   adds a new sealing key to the key file; processes seal with it once restarted
  prune    removes the previous keys nothing needs; keeps and names (exit 1) a key a live session,
           a running process or a deployed client secret still needs
  --force  prune even the keys live sessions need, signing those sessions out (it says how many)
  --dev    the keys and database of gateway dev (DATABASE_PATH ./data/dev.db, key file
           ./data/dev-session.key) instead of gateway serve's`,
  options: { dev: { type: "boolean" }, force: { type: "boolean" } },
  positionals: [0, 1],
} as const;

export const SERVE_COMMANDS: Command[] = [
  {
    name: "serve",
    summary: `serve the public API (PORT, default 8787) and the admin API (ADMIN_PORT, default 8788)  [default]
            --workers N: N processes share both ports and the database (one host, every core)`,
    run: (argv) =>
      withArgs(SERVE, argv, async ({ values }) => {
        const workers = workerCount(values.workers as string | undefined);
        const config = loadConfig();
        if (workers > 1) {
          const { runWorkers } = await import("../workers.ts");
          return runWorkers(workers, config);
        }
        const { runServe } = await import("../serve-command.ts");
        await runServe(config, createLogger());
        return -1;
      }),
  },
  {
    name: "migrate",
    summary: "create or migrate the database (DATABASE_PATH, or DATABASE_URL) and exit",
    run: (argv) =>
      withArgs(MIGRATE, argv, async () => {
        const config = loadConfig();
        await (await openStorage(databaseTarget(config))).close();
        console.log(
          `gateway: database ${config.databaseUrl ? "(DATABASE_URL)" : config.databasePath} is migrated`,
        );
        return 0;
      }),
  },
  {
    name: "keys",
    summary: "the session sealing keys: status (default), rotate, prune [--force]; --dev: gateway dev's",
    run: (argv) =>
      withArgs(KEYS, argv, async ({ values, positionals }) => {
        const action = positionals[0] ?? "status";
        if (action !== "status" && action !== "rotate" && action !== "prune")
          throw new UsageError("keys", `unknown action "${action}": status, rotate or prune`);
        if (values.force === true && action !== "prune")
          throw new UsageError("keys", "--force goes with prune only");
        const config = values.dev === true ? readDevConfig({}) : loadConfig();
        const { runKeys } = await import("../keys-command.ts");
        return runKeys(config, { action, force: values.force === true, dev: values.dev === true });
      }),
  },
];

/** `--workers N`: 1 without it. */
function workerCount(raw: string | undefined): number {
  if (raw === undefined) return 1;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 256)
    throw new UsageError("serve", `--workers must be a whole number from 1 to 256, got "${raw}"`);
  return Number(raw);
}
