/**
 * The admin listener (CONTRACT §7). Every call needs `Authorization: Bearer <ADMIN_TOKEN>`, compared
 * in constant time; with no ADMIN_TOKEN configured every call is refused with 503 `admin_disabled`.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { ApiError, errors } from "../http/errors.ts";
import { safeEqual } from "../lib/crypto.ts";

export function adminRoutes(gateway: Gateway) {
  const token = gateway.config.adminToken;
  return new Elysia({ name: "admin-routes" })
    .onBeforeHandle(({ request }) => {
      if (!token) throw new ApiError(503, "admin_disabled", "The admin API is disabled: set ADMIN_TOKEN.");
      const presented = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!presented || !safeEqual(presented, token)) throw errors.unauthenticated();
    })
    .get("/admin/v1/overview", () => ({
      sessions: { active: gateway.store.countLive() },
      tokenCache: { hits: gateway.tokens.hits, misses: gateway.tokens.misses },
      uptimeSeconds: Math.floor((Date.now() - gateway.startedAt) / 1000),
    }));
}
