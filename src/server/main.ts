#!/usr/bin/env bun
/**
 * The binary's entry: `serve` (default), `migrate`, `dev`, `keys`, `token`, `tui`, `--help`, `--version`.
 * Configuration comes only from the environment; a bad value, or anything else that stops start-up,
 * is one line naming what to change.
 */
import { version } from "../../package.json";
import { AppsFileError } from "./apps/registry.ts";
import { ConfigError, loadConfig, variablesHelp } from "./config.ts";
import { databaseTarget, openStorage } from "./db/open.ts";
import { createLogger } from "./lib/log.ts";
import { StartupError } from "./startup.ts";

const HELP = `gateway — session gateway and resource membership service

Usage: gateway <command>

Commands:
  serve     serve the public API (PORT, default 8787) and the admin API (ADMIN_PORT, default 8788)  [default]
            --workers N: N processes share both ports and the database (one host, every core)
  migrate   create or migrate the database (DATABASE_PATH, or DATABASE_URL) and exit
  dev       start a development identity provider, the gateway and the demo app together
  keys      the session sealing keys: status (default), rotate, prune
  token     print an access token from gateway dev's identity provider: token <user> [--client <id>]
  tui       the operator dashboard over the admin API (--url/ADMIN_URL, --token/ADMIN_TOKEN, --readonly, --json)
  help      show this text
  --version print the version

Configuration is read from environment variables only:

${variablesHelp()}`;

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? "serve";
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    console.log(`gateway ${version} (Bun ${Bun.version})`);
    return 0;
  }
  if (command === "serve") {
    const config = loadConfig();
    const { runWorkers, workerCount } = await import("./workers.ts");
    const workers = workerCount(argv.slice(1));
    if (workers > 1) return runWorkers(workers, config);
    const { startGateway } = await import("./serve.ts");
    const log = createLogger();
    const running = await startGateway({ config, log });
    const worker = process.env.GATEWAY_WORKER;
    log("info", "listening", {
      publicUrl: running.publicUrl,
      adminUrl: running.adminUrl,
      ...(worker ? { worker: Number(worker) } : {}),
      version,
    });
    if (!config.oidcIssuer)
      log("warn", "OIDC_ISSUER is not set: /auth/authorize, /auth/token and /auth/refresh answer 503");
    if (!config.adminToken)
      log("warn", "ADMIN_TOKEN is not set: the admin API and /metrics answer 503 admin_disabled");
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      const started = Date.now();
      const { drained, inFlight } = await running.shutdown(config.shutdownDrainSeconds * 1000);
      log("info", "stopped", {
        signal,
        durationMs: Date.now() - started,
        inFlight,
        inFlightOutcome: drained ? "finished" : `cut after ${config.shutdownDrainSeconds} s`,
        database: "closed",
      });
      process.exit(0);
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    return -1;
  }
  if (command === "migrate") {
    const config = loadConfig();
    await (await openStorage(databaseTarget(config))).close();
    console.log(
      `gateway: database ${config.databaseUrl ? "(DATABASE_URL)" : config.databasePath} is migrated`,
    );
    return 0;
  }
  if (command === "keys") {
    const { runKeys } = await import("./keys-command.ts");
    return runKeys(loadConfig(), argv.slice(1));
  }
  if (command === "token") {
    const { runToken } = await import("./token-command.ts");
    return runToken(argv.slice(1));
  }
  if (command === "tui") {
    const { runTui } = await import("../tui/main.tsx");
    return runTui(argv.slice(1));
  }
  if (command === "dev") {
    const { runDev } = await import("./dev.ts");
    await runDev();
    return -1;
  }
  console.error(`gateway: unknown command "${command}"\n\n${HELP}`);
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
