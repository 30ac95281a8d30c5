/**
 * The gateway's parts, wired once by `createGateway` and handed to the route builders. Tests build
 * one with their own config (a temporary SQLite file, the development provider's URLs). Wiring only
 * builds objects from the opened database and the keyring; the start-up work (re-seal, deploy, purge,
 * heartbeat) is boot.ts's, run once the parts exist.
 */
import { AccountDeletion } from "./accounts/deletion.ts";
import { DeletedUsers, Pseudonyms } from "./accounts/pseudonym.ts";
import { AdminQueries } from "./admin/queries.ts";
import { Budgets } from "./apps/budgets.ts";
import type { AppRegistry } from "./apps/registry.ts";
import { consentCookieName } from "./auth/consent-binding.ts";
import { gatewayCookieMatcher } from "./auth/gateway-cookies.ts";
import { loadKeyring } from "./auth/key-file.ts";
import { deriveKey, type Keyring, pseudonymKeys } from "./auth/keyring.ts";
import { eraseLegacySecret, keepAsPreviousKey, legacySecret } from "./auth/legacy-secret.ts";
import { CookieSealer } from "./auth/seal.ts";
import { SessionStore } from "./auth/session-store.ts";
import { SessionService } from "./auth/sessions.ts";
import { bootGateway } from "./boot.ts";
import type { Config } from "./config.ts";
import { DataSeam } from "./data/seam.ts";
import { databaseTarget, openStorage, type Storage } from "./db/open.ts";
import type { TransactionOptions } from "./db/sql.ts";
import { Metrics } from "./http/metrics.ts";
import { TokenCheckLimiter } from "./http/token-checks.ts";
import { HydraClient } from "./idp/hydra.ts";
import { KratosClient } from "./idp/kratos.ts";
import { KratosAdmin } from "./idp/kratos-admin.ts";
import { SubjectLogouts } from "./idp/subject-logouts.ts";
import { TokenCache } from "./idp/token-cache.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import { OwnershipService } from "./resources/ownership.ts";
import { MembershipService } from "./resources/service.ts";
import { ResourceStore } from "./resources/store.ts";

/**
 * What consent acceptance does besides answering Hydra. The resources module fills `joinAppResource`
 * (join the subject to the client's app `_app` resource at its default role). It is best effort:
 * whatever it does or throws, consent succeeds.
 */
export interface ConsentHooks {
  joinAppResource(subject: string, clientId: string, options?: TransactionOptions): void | Promise<void>;
}

export interface Gateway {
  config: Config;
  storage: Storage;
  apps: AppRegistry;
  hydra: HydraClient;
  kratos: KratosClient;
  tokens: TokenCache;
  /** A subject's logout (back-channel, revoke-all, deletion) drops its cached bearer checks on every process. */
  logouts: SubjectLogouts;
  /** Bounds the bearer cache misses (provider calls) one client address can cause. */
  tokenChecks: TokenCheckLimiter;
  store: SessionStore;
  /** Seals with the session keyring: cookies, refresh tokens on rows, client secrets of deployments. */
  sealer: CookieSealer;
  sessions: SessionService;
  consentHooks: ConsentHooks;
  membership: MembershipService;
  /** Ownership offers: transfer, accept, decline, cancel. */
  ownership: OwnershipService;
  seam: DataSeam;
  /** Account deletion (DELETE /admin/v1/users/:id, DELETE /v1/me). */
  accounts: AccountDeletion;
  /** Deleted accounts: refused at every credential's resolution, sign-in and write. */
  deleted: DeletedUsers;
  budgets: Budgets;
  queries: AdminQueries;
  metrics: Metrics;
  log: Logger;
  startedAt: number;
  close(): Promise<void>;
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
  const storage = await openStorage(databaseTarget(config), { writeWaitMs: config.writeWaitMs });
  const ring = await sealingKeys(config, storage, log);
  const sealer = new CookieSealer(ring);
  const deleted = new DeletedUsers(new Pseudonyms(pseudonymKeys(ring)), storage);
  const hydra = new HydraClient({
    issuer: config.oidcIssuer,
    adminUrl: config.idpAdminUrl,
    adminApiKey: config.idpAdminApiKey,
    revocationUrl: config.idpRevocationUrl,
    introspectionUrl: config.idpIntrospectionUrl,
    introspectionClient: config.idpIntrospectionClient,
    timeoutMs: config.idpTimeoutMs,
  });
  const store = new SessionStore(storage, deleted);
  const cookieName = config.cookieSecure ? "__Host-sg_session" : "sg_session";
  const resourceStore = new ResourceStore(storage);
  const seam = new DataSeam(storage, apps);
  const membership = new MembershipService(storage, resourceStore, apps, seam, deleted);
  const sessions = new SessionService({
    store,
    sealer,
    hydra,
    apps,
    cookieName,
    lifetimeMs: config.sessionLifetimeSeconds * 1000,
    rotationGraceMs: config.rotationGraceMs,
    lostAnswerGraceMs: config.lostAnswerGraceMs,
    refreshWaitMs: config.refreshWaitMs,
    refreshCallTimeoutMs: config.refreshCallTimeoutMs,
    log,
  });
  const tokens = new TokenCache(hydra);
  const logouts = new SubjectLogouts(storage, (userId) => tokens.forgetSubject(userId), log);
  const accounts = new AccountDeletion({
    storage,
    membership,
    seam,
    sessionStore: store,
    sessions,
    kratos: new KratosAdmin(config.kratosAdminUrl, config.idpTimeoutMs),
    logouts,
    log,
  });
  const booted = await bootGateway({
    storage,
    ring,
    sealer,
    apps,
    resourceStore,
    sessions,
    logouts,
    log,
  });
  return {
    config,
    storage,
    apps,
    hydra,
    kratos: new KratosClient(
      config.kratosPublicUrl,
      gatewayCookieMatcher(cookieName, consentCookieName(config)),
      config.idpTimeoutMs,
    ),
    tokens,
    logouts,
    tokenChecks: new TokenCheckLimiter(),
    store,
    sealer,
    sessions,
    consentHooks: consentHooks ?? {
      joinAppResource: async (subject, clientId, options) => {
        await membership.joinAppResource(apps.appFor(clientId).id, subject, options);
      },
    },
    membership,
    ownership: new OwnershipService(storage, membership),
    seam,
    accounts,
    deleted,
    budgets: new Budgets(apps, storage),
    queries: new AdminQueries(storage),
    metrics: new Metrics(),
    log,
    startedAt: Date.now(),
    async close() {
      await booted.stop();
      await accounts.idle();
      await store.flushTouches();
      await storage.close();
    },
  };
}

/**
 * The keyring that seals cookies and refresh tokens (SESSION_SECRET or the key file, never the database).
 * A secret an older version left in the database is erased from it. With a key file it stays there as a
 * previous key; with SESSION_SECRET it unseals only during this start-up's re-seal of refresh tokens
 * (their browser cookies are then refused, and those users sign in again).
 */
async function sealingKeys(config: Config, storage: Storage, log: Logger): Promise<Keyring> {
  const ring = await loadKeyring(config);
  if (ring.created) log("info", "created the session key file", { path: config.sessionKeyFile });
  const legacy = await legacySecret(storage);
  if (legacy === undefined) return ring;
  const keyFile = config.sessionSecret === undefined ? config.sessionKeyFile : undefined;
  if (keyFile !== undefined) keepAsPreviousKey(keyFile, legacy);
  await eraseLegacySecret(storage);
  log("warn", "moved a session secret out of the database", {
    keptIn: keyFile ?? "memory, until this start-up re-sealed the refresh tokens",
  });
  if (keyFile !== undefined) return loadKeyring(config);
  return { ...ring, previous: [...ring.previous, await deriveKey(legacy)] };
}
