/**
 * Builds the two Elysia apps from their parts: the public one (`/auth`, `/v1`, `/healthz`, `/readyz`) and the
 * admin one (`/admin/v1`, on its own listener, like Hydra's admin port). Tests build these too and
 * either call `.handle(new Request(...))` or serve them on 127.0.0.1.
 */
import { Elysia } from "elysia";
import { adminRoutes } from "./admin/routes.ts";
import { consentRoutes } from "./auth/consent-routes.ts";
import { authRoutes } from "./auth/routes.ts";
import type { Gateway } from "./gateway.ts";
import { plumbing } from "./http/plumbing.ts";
import { resolvePrincipal } from "./http/principal.ts";
import { landingPage, landingScript } from "./landing.ts";
import { resourceRoutes } from "./resources/routes.ts";

export interface PublicAppOptions {
  /** `gateway dev`: the demo app's URL, linked from the landing page. */
  demoUrl?: string;
}

export function buildPublicApp(gateway: Gateway, options: PublicAppOptions = {}) {
  return (
    new Elysia()
      .use(plumbing({ apps: gateway.apps, log: gateway.log, bodyTimeoutMs: gateway.config.bodyTimeoutMs }))
      .get("/healthz", () => ({ ok: true }))
      // For a load balancer: 200 while this process can reach its database, else 503 (take it out).
      .get("/readyz", async ({ set }) => {
        const worker = process.env.GATEWAY_WORKER;
        if (await databaseReachable(gateway))
          return worker ? { ready: true, worker: Number(worker) } : { ready: true };
        set.status = 503;
        return { error: "The database cannot be reached.", code: "not_ready" };
      })
      .get("/", () => landingPage({ demoUrl: options.demoUrl }))
      .get("/landing.js", () => landingScript())
      .use(authRoutes(gateway))
      .use(consentRoutes(gateway))
      .use(resourceRoutes(gateway))
      .get("/v1/me", async ({ request }) => {
        const shape = (p: { userId: string; clientId: string | undefined; appId: string; via: string }) => ({
          userId: p.userId,
          clientId: p.clientId ?? null,
          appId: p.appId,
          via: p.via,
        });
        return shape(await resolvePrincipal(gateway, request));
      })
  );
}

/** One trivial query, bounded at 1 s. */
async function databaseReachable(gateway: Gateway): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), 1000);
  });
  const query = gateway.storage.get("SELECT 1 AS ok").then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([query, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function buildAdminApp(gateway: Gateway) {
  return new Elysia()
    .use(plumbing({ log: gateway.log, bodyTimeoutMs: gateway.config.bodyTimeoutMs }))
    .use(adminRoutes(gateway));
}
