/**
 * Start-up work, apart from wiring (gateway.ts builds the objects; this runs what a start needs done
 * once they exist): re-seal what an older key sealed, restore and deploy the apps, warn about sessions
 * sealed with a key this ring lacks, start the heartbeat and the hourly purge of ended sessions, and
 * follow the subjects' logouts (subject-logouts.ts). Each
 * step gets only the parts it uses; `stop` ends the timers it started.
 */
import { deployApp, resealDeployments, restoreDeployments } from "./apps/deploy.ts";
import type { AppRegistry } from "./apps/registry.ts";
import { startHeartbeat } from "./auth/heartbeat.ts";
import { allKeys, type Keyring } from "./auth/keyring.ts";
import type { CookieSealer } from "./auth/seal.ts";
import { liveByCookieKey, purgeEnded } from "./auth/session-upkeep.ts";
import type { SessionService } from "./auth/sessions.ts";
import type { Storage } from "./db/open.ts";
import type { SubjectLogouts } from "./idp/subject-logouts.ts";
import type { Logger } from "./lib/log.ts";
import type { ResourceStore } from "./resources/store.ts";

export interface BootParts {
  storage: Storage;
  ring: Keyring;
  sealer: CookieSealer;
  apps: AppRegistry;
  resourceStore: ResourceStore;
  sessions: SessionService;
  logouts: SubjectLogouts;
  log: Logger;
}

export interface Booted {
  stop(): Promise<void>;
}

const PURGE_EVERY_MS = 3600_000;

export async function bootGateway(parts: BootParts): Promise<Booted> {
  const { storage, ring, sealer, apps, resourceStore, sessions, logouts, log } = parts;
  const resealedConfigs = await resealDeployments(storage, sealer);
  if (resealedConfigs > 0)
    log("info", "re-sealed deployed client secrets with the current key", { deployments: resealedConfigs });
  // Deploy what the apps file declares; restore apps deployed through the admin API since.
  await restoreDeployments(storage, sealer, apps, log);
  for (const app of apps.all) await deployApp(storage, resourceStore, apps, app, sealer);
  const resealed = await sessions.resealRefreshTokens();
  if (resealed > 0) log("info", "re-sealed refresh tokens with the current key", { sessions: resealed });
  await warnMissingKeys(storage, ring, log);
  const heartbeat = await startHeartbeat(storage, ring.current.id, log);
  // Retention of ended sessions: at start-up and hourly (the timer never keeps the process alive).
  await purgeEnded(storage);
  const purge = setInterval(() => {
    purgeEnded(storage).catch((error) => log("warn", "session purge failed", { error: String(error) }));
  }, PURGE_EVERY_MS);
  purge.unref?.();
  await logouts.start();
  return {
    async stop() {
      clearInterval(purge);
      logouts.stop();
      await heartbeat.stop().catch(() => {});
    },
  };
}

/**
 * Live sessions whose cookie is sealed with a key this ring lacks (a pruned key, or another key file)
 * are signed out at their next request: said once at start-up, with the count, so it is not a mystery.
 */
async function warnMissingKeys(storage: Storage, ring: Keyring, log: Logger): Promise<void> {
  const ids = new Set(allKeys(ring).map((key) => key.id));
  const missing = (await liveByCookieKey(storage)).filter((row) => row.keyId !== null && !ids.has(row.keyId));
  const sessions = missing.reduce((sum, row) => sum + Number(row.sessions), 0);
  if (sessions > 0)
    log("warn", "live sessions are sealed with a key this gateway does not have: they are signed out", {
      sessions,
      keys: missing.map((row) => row.keyId),
      keySource: ring.source,
    });
}
