/**
 * The admin listener (CONTRACT §7). Every call needs `Authorization: Bearer <ADMIN_TOKEN>`, compared
 * in constant time before anything else is looked at; with no ADMIN_TOKEN configured every call is
 * refused with 503 `admin_disabled`.
 */
import { Elysia, t } from "elysia";
import { deployApp } from "../apps/deploy.ts";
import { AppModel } from "../apps/model.ts";
import type { Gateway } from "../gateway.ts";
import { ApiError, errors } from "../http/errors.ts";
import { safeEqual } from "../lib/crypto.ts";
import { notFound } from "../resources/service.ts";

const Id = t.String({ minLength: 1, maxLength: 256, pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f]+$" });

export function adminRoutes(gateway: Gateway) {
  const token = gateway.config.adminToken;
  const { membership, seam } = gateway;
  return new Elysia({ name: "admin-routes" })
    .onRequest(({ request }) => {
      if (!token) throw new ApiError(503, "admin_disabled", "The admin API is disabled: set ADMIN_TOKEN.");
      const presented = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!presented || !safeEqual(presented, token)) throw errors.unauthenticated();
    })
    .get("/admin/v1/overview", () => ({
      sessions: { active: gateway.store.countLive() },
      tokenCache: { hits: gateway.tokens.hits, misses: gateway.tokens.misses },
      uptimeSeconds: Math.floor((Date.now() - gateway.startedAt) / 1000),
    }))
    .post(
      "/admin/v1/apps/:id/deploy",
      ({ params, body }) => {
        if (body.id !== params.id) throw errors.invalidRequest("id", "must equal the app id in the path");
        return { ok: true, deployment: deployApp(gateway.storage, membership.store, gateway.apps, body) };
      },
      { body: AppModel },
    )
    .post(
      "/admin/v1/data/authorize-write",
      ({ body }) => ({ allowed: true, ...membership.authorizeWrite(body.resourceId, body.userId) }),
      { body: t.Object({ resourceId: Id, userId: Id }) },
    )
    .post(
      "/admin/v1/data/links",
      ({ body }) => {
        const { joined } = membership.authorizeWrite(body.resourceId, body.userId, (resource) =>
          seam.link(resource.id, body.table, body.rowId, body.userId, body.data, Date.now()),
        );
        return { ok: true, joined };
      },
      {
        body: t.Object({
          resourceId: Id,
          table: t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" }),
          rowId: Id,
          userId: Id,
          data: t.Optional(t.Unknown()),
        }),
      },
    )
    .get(
      "/admin/v1/data/links",
      ({ query }) => {
        if (!membership.store.getResource(query.resourceId)) throw notFound();
        return seam.linkedRows(query.resourceId);
      },
      { query: t.Object({ resourceId: Id }) },
    );
}
