/**
 * `gateway serve` in this process: starts the gateway, logs where it listens and what is not
 * configured, and on SIGTERM/SIGINT drains requests in flight (at most SHUTDOWN_DRAIN_SECONDS) before
 * it closes the database and exits.
 */
import { version } from "../../package.json";
import type { Config } from "./config.ts";
import type { Logger } from "./lib/log.ts";
import { startGateway } from "./serve.ts";

export async function runServe(config: Config, log: Logger): Promise<void> {
  const running = await startGateway({ config, log });
  log("info", "listening", {
    publicUrl: running.publicUrl,
    adminUrl: running.adminUrl,
    ...(config.worker === undefined ? {} : { worker: config.worker }),
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
}
