/**
 * Deploying an app: records a new active deployment when the configuration changed, and
 * reconciles it: the app's `_app` resource and each static resource exist (owned by the app), with
 * names and visibility as declared. Members are never deleted. Reconciling twice changes nothing.
 * Replicas starting at once deploy one at a time per app (a lock), so each row is created once.
 */
import { keyIdOf } from "../auth/seal.ts";
import type { Sql, Storage } from "../db/sql.ts";
import { appendEvent } from "../events/log.ts";
import type { Logger } from "../lib/log.ts";
import type { ResourceStore } from "../resources/store.ts";
import { visibilityPair } from "../resources/views.ts";
import type { AppDef } from "./model.ts";
import { APP_RESOURCE_TYPE, type AppRegistry, AppsFileError, validateDeploy } from "./registry.ts";
import { openConfig, type SecretSealer, sameConfig, sealConfig, sealingKeysOf } from "./sealed-config.ts";

export interface Deployment {
  id: number;
  appId: string;
  createdAt: string;
}

export async function deployApp(
  storage: Storage,
  store: ResourceStore,
  registry: AppRegistry,
  app: AppDef,
  sealer: SecretSealer,
): Promise<Deployment> {
  const owner = `app:${app.id}`;
  // Sealing is asynchronous, so the comparison with the active configuration happens before the write
  // transaction; the transaction records a new row unless that very row is still the active one.
  const latest = await latestDeployment(storage, app.id);
  const unchanged = latest !== undefined && sameConfig((await openConfig(latest.config, sealer)).app, app);
  const config = await sealConfig(app, sealer);
  const deployment = await storage.transaction(async (tx) => {
    await tx.lock(`deploy:${app.id}`);
    const now = Date.now();
    let active = await latestDeployment(tx, app.id);
    if (!active || !unchanged || active.id !== latest?.id) {
      active = (await tx.get<DeploymentRow>(
        `INSERT INTO deployments (app_id, config, created_at) VALUES ($1, $2, $3) RETURNING ${DEPLOYMENT_COLUMNS}`,
        [app.id, config, now],
      ))!;
      appendEvent(tx, {
        type: "app.deployed",
        actor: owner,
        data: { appId: app.id, deploymentId: active.id },
      });
    }
    const wanted = [
      { type: APP_RESOURCE_TYPE, slug: APP_RESOURCE_TYPE, name: app.id, visibility: "members" as const },
      ...(app.statics ?? []).map((s) => ({ ...s, visibility: s.visibility ?? "members" })),
    ];
    for (const item of wanted) {
      const pair = visibilityPair(item.visibility);
      const existing = await store.findStatic(app.id, item.type, item.slug, tx);
      if (!existing) {
        const id = Bun.randomUUIDv7();
        store.insertResource(tx, {
          id,
          appId: app.id,
          type: item.type,
          name: item.name,
          ...pair,
          ownerId: owner,
          ownerKind: "app",
          slug: item.slug,
          memberCount: 0,
          createdAt: now,
        });
        appendEvent(tx, {
          type: "resource.created",
          actor: owner,
          resourceId: id,
          data: { type: item.type, slug: item.slug },
        });
      } else if (
        existing.name !== item.name ||
        existing.visibility !== pair.visibility ||
        Boolean(existing.discoverable) !== pair.discoverable
      ) {
        store.updateResource(tx, existing.id, item.name, pair.visibility, pair.discoverable);
        appendEvent(tx, {
          type: "resource.updated",
          actor: owner,
          resourceId: existing.id,
          data: { name: item.name, visibility: item.visibility },
        });
      }
    }
    return { id: active.id, appId: app.id, createdAt: new Date(active.createdAt).toISOString() };
  });
  registry.replaceApp(app);
  return deployment;
}

interface DeploymentRow {
  id: number;
  appId: string;
  config: string;
  createdAt: number;
}

const DEPLOYMENT_COLUMNS = 'id, app_id AS "appId", config, created_at AS "createdAt"';

function latestDeployment(sql: Sql, appId: string): Promise<DeploymentRow | undefined> {
  return sql.get(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE app_id = $1 ORDER BY id DESC LIMIT 1`, [
    appId,
  ]);
}

/**
 * The newest recorded configuration of every app (used to restore admin deploys after a restart), with
 * client secrets unsealed. `unopened` lists clients whose secret no key of the ring opens.
 */
export async function activeDeployments(
  storage: Storage,
  sealer: SecretSealer,
): Promise<Array<{ app: AppDef; unopened: string[] }>> {
  const rows = await storage.all<DeploymentRow>(
    `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY id DESC`,
  );
  const newest = new Map<string, string>();
  for (const row of rows) if (!newest.has(row.appId)) newest.set(row.appId, row.config);
  return Promise.all([...newest.values()].map((config) => openConfig(config, sealer)));
}

/**
 * Puts the apps deployed through the admin API since back in force at start-up (an app the apps file
 * declares keeps the file's version). Each recorded configuration is checked again with the apps
 * file's rules, among the apps already in force: one recorded by an older version that today's rules
 * refuse (a static of a built-in type, a `javascript:` redirect URI, a client id another app now owns)
 * is not restored, so a stored deployment can never bypass validation; the operator deploys it again.
 */
export async function restoreDeployments(
  storage: Storage,
  sealer: SecretSealer,
  registry: AppRegistry,
  log: Logger,
): Promise<void> {
  const declared = new Set(registry.all.map((app) => app.id));
  for (const { app, unopened } of await activeDeployments(storage, sealer)) {
    if (declared.has(app.id)) continue;
    let checked: AppDef;
    try {
      checked = validateDeploy(registry, app.id, app);
    } catch (error) {
      if (!(error instanceof AppsFileError)) throw error;
      log("warn", "a recorded deployment is refused by the current rules and not restored: deploy it again", {
        appId: app.id,
        reason: error.message,
      });
      continue;
    }
    if (unopened.length > 0)
      log("warn", "a deployed client secret opens with no key of the ring", {
        appId: app.id,
        clients: unopened,
      });
    registry.replaceApp(checked);
  }
}

/** How many recorded client secrets are sealed with each key (null: in clear, an older version's row). */
export async function deployedSecretKeys(storage: Storage): Promise<Map<string | null, number>> {
  const counts = new Map<string | null, number>();
  for (const row of await storage.all<{ config: string }>("SELECT config FROM deployments"))
    for (const id of sealingKeysOf(row.config, keyIdOf)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/**
 * Re-seals, in place and with the current key, recorded configurations whose client secrets are in clear
 * (an older version) or sealed with another key (after a rotation), so no previous key is needed for them
 * and no clear secret is left in the database file or its WAL. Returns how many rows changed.
 */
export async function resealDeployments(
  storage: Storage,
  sealer: SecretSealer & { currentKeyId: string },
): Promise<number> {
  const rows = (await storage.all<DeploymentRow>(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments`)).filter(
    (row) => sealingKeysOf(row.config, keyIdOf).some((id) => id !== sealer.currentKeyId),
  );
  const updates: Array<{ id: number; config: string }> = [];
  for (const row of rows) {
    // A secret no key opens is left as it is (re-sealing would drop it); start-up reports it.
    const { app, unopened } = await openConfig(row.config, sealer);
    if (unopened.length === 0) updates.push({ id: row.id, config: await sealConfig(app, sealer) });
  }
  if (updates.length === 0) return 0;
  await storage.transaction(
    async (tx) => {
      for (const { id, config } of updates)
        await tx.run("UPDATE deployments SET config = $1 WHERE id = $2", [config, id]);
    },
    { erase: true },
  );
  return updates.length;
}
