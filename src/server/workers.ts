/**
 * `gateway serve --workers N`: N processes serving the same ports (SO_REUSEPORT: the kernel spreads
 * connections over them) on the same database, so one host uses all its cores. The database is the one
 * truth they share (SQLite's file or PostgreSQL), exactly as for replicas on several hosts.
 *
 * This process migrates the database and creates the key file once, starts the workers, restarts one that dies (after 1 s), and
 * on SIGTERM or SIGINT passes the signal on and waits for every worker to drain and exit.
 */

import { loadKeyring } from "./auth/key-file.ts";
import { type Config, ConfigError } from "./config.ts";
import { databaseTarget, openStorage } from "./db/open.ts";
import { createLogger, type Logger } from "./lib/log.ts";

/** The command that runs this program's `serve` again (from source or as the compiled binary). */
function serveCommand(): string[] {
  const script = process.argv[1];
  // Compiled: argv[1] is the program's own embedded path (under /$bunfs); from source it is main.ts.
  return script && !script.startsWith("/$bunfs") && script !== process.execPath
    ? [process.execPath, script, "serve"]
    : [process.execPath, "serve"];
}

export async function runWorkers(
  count: number,
  config: Config,
  log: Logger = createLogger(),
): Promise<number> {
  if (config.port === 0 || config.adminPort === 0)
    throw new ConfigError("PORT", "must be a fixed port with --workers (the workers share it)");
  await (await openStorage(databaseTarget(config))).close();
  // The key file is made here, once: workers creating it at the same moment could each make their own.
  await loadKeyring(config);
  const env = { ...process.env, GATEWAY_REUSE_PORT: "1" };
  const workers = new Map<number, ReturnType<typeof Bun.spawn>>();
  let stopping = false;
  const start = (index: number) => {
    const child = Bun.spawn(serveCommand(), {
      env: { ...env, GATEWAY_WORKER: String(index) },
      stdout: "inherit",
      stderr: "inherit",
    });
    workers.set(index, child);
    void child.exited.then((code) => {
      if (workers.get(index) !== child || stopping) return;
      log("error", "a worker exited; starting it again in 1 s", { worker: index, exitCode: code });
      setTimeout(() => {
        if (!stopping) start(index);
      }, 1000);
    });
  };
  for (let i = 1; i <= count; i++) start(i);
  log("info", "workers share the public and admin ports", { workers: count });
  return new Promise<number>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      for (const child of workers.values()) child.kill(signal);
      const codes = await Promise.all([...workers.values()].map((child) => child.exited));
      log("info", "workers stopped", { signal, workers: count });
      resolve(codes.every((code) => code === 0) ? 0 : 1);
    };
    process.on("SIGINT", () => void stop("SIGINT"));
    process.on("SIGTERM", () => void stop("SIGTERM"));
  });
}
