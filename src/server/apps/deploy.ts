/**
 * Deploying an app (CONTRACT §3): records a new active deployment when the configuration changed, and
 * reconciles it: the app's `_app` resource and each static resource exist (owned by the app), with
 * names and visibility as declared. Members are never deleted. Reconciling twice changes nothing.
 */
import { desc, eq } from "drizzle-orm";
import type { Storage } from "../db/open.ts";
import { deployments } from "../db/schema.ts";
import { appendEvent } from "../events/log.ts";
import type { ResourceStore } from "../resources/store.ts";
import { visibilityPair } from "../resources/views.ts";
import type { AppDef } from "./model.ts";
import { APP_RESOURCE_TYPE, type AppRegistry } from "./registry.ts";

export interface Deployment {
  id: number;
  appId: string;
  createdAt: string;
}

export function deployApp(
  storage: Storage,
  store: ResourceStore,
  registry: AppRegistry,
  app: AppDef,
): Deployment {
  const config = JSON.stringify(app);
  const owner = `app:${app.id}`;
  const deployment = storage.writeTx((tx) => {
    const now = Date.now();
    let active = tx
      .select()
      .from(deployments)
      .where(eq(deployments.appId, app.id))
      .orderBy(desc(deployments.id))
      .limit(1)
      .get();
    if (active?.config !== config) {
      active = tx.insert(deployments).values({ appId: app.id, config, createdAt: now }).returning().get();
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
      const existing = store.findStatic(app.id, item.type, item.slug);
      if (!existing) {
        const id = Bun.randomUUIDv7();
        store.insertResource({
          id,
          appId: app.id,
          type: item.type,
          name: item.name,
          ...pair,
          ownerId: owner,
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
        store.updateResource(existing.id, item.name, pair.visibility, pair.discoverable);
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

/** The newest recorded configuration of every app (used to restore admin deploys after a restart). */
export function activeDeployments(storage: Storage): AppDef[] {
  const rows = storage.db.select().from(deployments).orderBy(desc(deployments.id)).all();
  const seen = new Map<string, AppDef>();
  for (const row of rows) if (!seen.has(row.appId)) seen.set(row.appId, JSON.parse(row.config) as AppDef);
  return [...seen.values()];
}
