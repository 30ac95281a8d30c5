/**
 * Builds the two Elysia apps from their parts: the public one (`/auth`, `/v1`, `/healthz`, `/readyz`) and the
 * admin one (`/admin/v1`, on its own listener, like Hydra's admin port); each serves its own OpenAPI
 * document at `/openapi.json`. Tests build these too and either call `.handle(new Request(...))` or
 * serve them on 127.0.0.1.
 */
import { Elysia } from "elysia";
import { exportResponse } from "./accounts/export.ts";
import { signedInRecently } from "./accounts/rules.ts";
import { adminRoutes } from "./admin/routes.ts";
import { backchannelRoutes } from "./auth/backchannel-routes.ts";
import { consentRoutes } from "./auth/consent-routes.ts";
import { clearSessionCookies } from "./auth/cookies.ts";
import { ownSessionsRoutes } from "./auth/own-sessions-routes.ts";
import { authRoutes } from "./auth/routes.ts";
import { Refusal } from "./domain/refusal.ts";
import type { Gateway } from "./gateway.ts";
import { openApiRoute } from "./http/openapi.ts";
import { plumbing, readsWithoutParser } from "./http/plumbing.ts";
import { meView, resolvePrincipal } from "./http/principal.ts";
import { synchronous } from "./http/synchronous.ts";
import { FRAMEWORK_HANDLER } from "./http/url-path.ts";
import { landingPage, landingScript } from "./landing.ts";
import { after } from "./lib/after.ts";
import { type Readiness, readiness } from "./readiness.ts";
import { apiPrincipal, resourceRoutes } from "./resources/routes.ts";
import { ADMIN_DOCUMENT, appDocs as docs, publicDocument } from "./responses.ts";

export interface PublicAppOptions {
  /** `gateway dev`: the demo app's URL, linked from the landing page. */
  demoUrl?: string;
}

export function buildPublicApp(gateway: Gateway, options: PublicAppOptions = {}) {
  return readsWithoutParser(
    new Elysia({ handler: FRAMEWORK_HANDLER })
      .use(plumbing({ apps: gateway.apps, log: gateway.log, bodyTimeoutMs: gateway.config.bodyTimeoutMs }))
      .get("/healthz", () => ({ ok: true }), { detail: docs.health })
      // For a load balancer: 200 while the database answers (migrated) and discovery is loaded.
      .get(
        "/readyz",
        async ({ set }) => {
          const { worker } = gateway.config;
          const state = await readiness(gateway.storage, gateway.hydra);
          const named = worker === undefined ? {} : { worker };
          if (state.ready) return { ready: true, checks: state.checks, ...named };
          set.status = 503;
          return { error: notReadyMessage(state), code: "not_ready", checks: state.checks, ...named };
        },
        { detail: docs.ready },
      )
      .get("/", () => landingPage({ demoUrl: options.demoUrl }), { detail: docs.landingPage })
      .get("/landing.js", () => landingScript(), { detail: docs.landingScript })
      .use(authRoutes(gateway))
      .use(backchannelRoutes(gateway))
      .use(ownSessionsRoutes(gateway))
      .use(consentRoutes(gateway))
      .use(resourceRoutes(gateway))
      .get(
        "/v1/me",
        synchronous(({ request }: { request: Request }) => after(resolvePrincipal(gateway, request), meView)),
        { detail: docs.me },
      )
      // The caller's own data in the caller's app: one document, streamed.
      .get(
        "/v1/me/export",
        async ({ request }) => {
          const { userId, appId } = await apiPrincipal(gateway, request);
          return exportResponse(gateway.storage, userId, {
            appId,
            appOf: (clientId) => gateway.apps.appFor(clientId).id,
          });
        },
        { detail: docs.meExport },
      )
      // The caller deletes their own account: only from a cookie session signed in within 10 minutes.
      .delete(
        "/v1/me",
        async ({ request, cookie }) => {
          const principal = await apiPrincipal(gateway, request);
          const session = principal.sessionId ? await gateway.store.get(principal.sessionId) : undefined;
          if (!session || !signedInRecently(session.createdAt, Date.now()))
            throw new Refusal("reauthentication_required");
          const report = await gateway.accounts.deleteUser(principal.userId, "self");
          const { config } = gateway;
          clearSessionCookies(cookie, config, gateway.sessions.cookieName, request.headers.get("cookie"));
          return report;
        },
        { detail: docs.deleteMe },
      )
      .use(openApiRoute(publicDocument(gateway.sessions.cookieName))),
  );
}

function notReadyMessage({ checks }: Readiness): string {
  if (checks.database === "unreachable") return "The database cannot be reached.";
  if (checks.database === "not_migrated") return "The database lacks this version's migrations.";
  return "The identity provider's discovery document has not been loaded.";
}

export function buildAdminApp(gateway: Gateway) {
  return readsWithoutParser(
    new Elysia({ handler: FRAMEWORK_HANDLER })
      .use(plumbing({ log: gateway.log, bodyTimeoutMs: gateway.config.bodyTimeoutMs }))
      .use(adminRoutes(gateway))
      .use(openApiRoute(ADMIN_DOCUMENT)),
  );
}
