/**
 * The gateway's parts, wired once by `createGateway` and handed to the route builders. Tests build
 * one with their own config (a temporary SQLite file, the development provider's URLs).
 */
import { AdminQueries } from "./admin/queries.ts";
import { Budgets } from "./apps/budgets.ts";
import { activeDeployments, deployApp } from "./apps/deploy.ts";
import type { AppRegistry } from "./apps/registry.ts";
import { consentCookieName } from "./auth/consent-binding.ts";
import { CookieSealer, deriveCookieKey } from "./auth/seal.ts";
import { SessionStore } from "./auth/session-store.ts";
import { SessionService } from "./auth/sessions.ts";
import type { Config } from "./config.ts";
import { DataSeam } from "./data/seam.ts";
import { openStorage, type Storage } from "./db/open.ts";
import { settings } from "./db/schema.ts";
import { gatewayCookieMatcher } from "./http/gateway-cookies.ts";
import { Metrics } from "./http/metrics.ts";
import { HydraClient } from "./idp/hydra.ts";
import { KratosClient } from "./idp/kratos.ts";
import { TokenCache } from "./idp/token-cache.ts";
import { randomId } from "./lib/crypto.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import { MembershipService } from "./resources/service.ts";
import { ResourceStore } from "./resources/store.ts";

/**
 * What consent acceptance does besides answering Hydra. The resources module fills `joinAppResource`
 * (join the subject to the client's app `_app` resource at its default role). It is best effort:
 * whatever it does or throws, consent succeeds.
 */
export interface ConsentHooks {
  joinAppResource(subject: string, clientId: string): void | Promise<void>;
}

export interface Gateway {
  config: Config;
  storage: Storage;
  apps: AppRegistry;
  hydra: HydraClient;
  kratos: KratosClient;
  tokens: TokenCache;
  store: SessionStore;
  sessions: SessionService;
  consentHooks: ConsentHooks;
  membership: MembershipService;
  seam: DataSeam;
  budgets: Budgets;
  queries: AdminQueries;
  metrics: Metrics;
  log: Logger;
  startedAt: number;
  close(): void;
}

export interface CreateGatewayOptions {
  config: Config;
  apps: AppRegistry;
  log?: Logger;
  consentHooks?: ConsentHooks;
}

export async function createGateway({
  config,
  apps,
  log = createLogger(),
  consentHooks,
}: CreateGatewayOptions): Promise<Gateway> {
  const storage = openStorage(config.databasePath);
  const secret = config.sessionSecret ?? storedSecret(storage);
  const sealer = new CookieSealer(await deriveCookieKey(secret));
  const hydra = new HydraClient({
    issuer: config.oidcIssuer,
    adminUrl: config.idpAdminUrl,
    adminApiKey: config.idpAdminApiKey,
  });
  const store = new SessionStore(storage);
  const cookieName = config.cookieSecure ? "__Host-sg_session" : "sg_session";
  const resourceStore = new ResourceStore(storage);
  const seam = new DataSeam(storage.sqlite, apps);
  const membership = new MembershipService(storage, resourceStore, apps, seam);
  // Deploy what the apps file declares; restore apps deployed through the admin API since.
  const declared = new Set(apps.all.map((app) => app.id));
  for (const app of activeDeployments(storage)) if (!declared.has(app.id)) apps.replaceApp(app);
  for (const app of apps.all) deployApp(storage, resourceStore, apps, app);
  const sessions = new SessionService({
    store,
    sealer,
    hydra,
    apps,
    cookieName,
    lifetimeMs: config.sessionLifetimeSeconds * 1000,
  });
  // Retention of ended sessions: at start-up and hourly (the timer never keeps the process alive).
  store.purgeEnded();
  const purge = setInterval(() => store.purgeEnded(), 3600_000);
  purge.unref?.();
  return {
    config,
    storage,
    apps,
    hydra,
    kratos: new KratosClient(
      config.kratosPublicUrl,
      gatewayCookieMatcher(cookieName, consentCookieName(config)),
    ),
    tokens: new TokenCache(hydra),
    store,
    sessions,
    consentHooks: consentHooks ?? {
      joinAppResource: (subject, clientId) => {
        membership.joinAppResource(apps.appFor(clientId).id, subject);
      },
    },
    membership,
    seam,
    budgets: new Budgets(apps),
    queries: new AdminQueries(storage.sqlite),
    metrics: new Metrics(),
    log,
    startedAt: Date.now(),
    close() {
      clearInterval(purge);
      store.flushTouches();
      storage.close();
    },
  };
}

/** The cookie-sealing secret generated on first start and kept in the database (CONTRACT §1). */
function storedSecret(storage: Storage): string {
  return storage.writeTx((tx) => {
    tx.insert(settings)
      .values({ key: "session_secret", value: randomId() + randomId() })
      .onConflictDoNothing()
      .run();
    return tx
      .select()
      .from(settings)
      .all()
      .find((row) => row.key === "session_secret")!.value;
  });
}
