/**
 * The admin listener, the TUI's only source. Every call needs
 * `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time before anything else is looked at;
 * with no ADMIN_TOKEN configured every call is refused with 503 `admin_disabled`.
 */
import { Elysia, t } from "elysia";
import { exportResponse } from "../accounts/export.ts";
import { deletionPreview } from "../accounts/preview.ts";
import { countLive } from "../auth/session-upkeep.ts";
import { balanceMicros, hasWelcomeCredit } from "../credits/ledger.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { noteCredential } from "../http/request-context.ts";
import { safeEqual } from "../lib/crypto.ts";
import { parseCursor, parseLimit } from "../resources/views.ts";
import { dataRoutes } from "./data-routes.ts";
import { eventStream } from "./events-stream.ts";
import { OPERATOR_ACTOR, operatorRoutes } from "./operator-routes.ts";
import { AdminId, adminParams, Cursor, Limit, Search } from "./params.ts";
import { adminDocs as docs } from "./responses.ts";

export function adminRoutes(gateway: Gateway) {
  const token = gateway.config.adminToken;
  const { queries, membership } = gateway;
  return (
    new Elysia({ name: "admin-routes" })
      .onRequest(({ request }) => {
        if (!token) throw new Refusal("admin_disabled");
        const presented = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
        if (!presented || !safeEqual(presented, token))
          throw new Refusal("unauthenticated", { about: "admin_token" });
        noteCredential(request, "admin");
      })
      .get(
        "/admin/v1/overview",
        async () => ({
          sessions: { active: await countLive(gateway.storage) },
          ...(await queries.overview()),
          tokenCache: { hits: gateway.tokens.hits, misses: gateway.tokens.misses },
          uptimeSeconds: Math.floor((Date.now() - gateway.startedAt) / 1000),
        }),
        { detail: docs.overview },
      )
      .get(
        "/admin/v1/sessions",
        ({ query }) =>
          queries.sessions(
            { userId: query.userId, clientId: query.clientId, query: query.query },
            parseLimit(query.limit),
            parseCursor(query.cursor),
          ),
        {
          query: t.Object({
            userId: t.Optional(AdminId),
            clientId: t.Optional(AdminId),
            query: Search,
            limit: Limit,
            cursor: Cursor,
          }),
          detail: docs.sessions,
        },
      )
      .delete(
        "/admin/v1/sessions/:id",
        async ({ params }) => {
          const ended = await gateway.sessions.revoke(params.id, OPERATOR_ACTOR);
          if (!ended) throw new Refusal("not_found", { what: "session" });
          gateway.log("info", "session revoked by an operator", {
            sessionId: params.id,
            userId: ended.userId,
          });
          return { ok: true };
        },
        { params: adminParams("id"), detail: docs.revokeSession },
      )
      .get(
        "/admin/v1/users/:id",
        async ({ params }) => ({
          userId: params.id,
          welcomed: await hasWelcomeCredit(gateway.storage, params.id),
          balanceUsd: (await balanceMicros(gateway.storage, params.id)) / 1_000_000,
          sessions: (await queries.sessions({ userId: params.id }, 200)).sessions,
          endedSessions: await queries.endedSessions(params.id, 20),
          memberships: (await queries.user(params.id)).memberships,
          ifDeleted: await deletionPreview(gateway.storage, params.id),
        }),
        { params: adminParams("id"), detail: docs.user },
      )
      // Operators and the app's backend: the account ends at once; a second call answers the same report.
      .delete("/admin/v1/users/:id", ({ params }) => gateway.accounts.deleteUser(params.id, "admin"), {
        params: adminParams("id"),
        detail: docs.deleteUser,
      })
      .get("/admin/v1/users/:id/export", ({ params }) => exportResponse(gateway.storage, params.id), {
        params: adminParams("id"),
        detail: docs.userExport,
      })
      .get(
        "/admin/v1/pending",
        ({ query }) =>
          queries.pending(
            { state: query.state, query: query.query },
            parseLimit(query.limit),
            parseCursor(query.cursor),
          ),
        {
          query: t.Object({
            state: t.Optional(t.Union([t.Literal("invited"), t.Literal("requested")])),
            query: Search,
            limit: Limit,
            cursor: Cursor,
          }),
          detail: docs.pending,
        },
      )
      .delete(
        "/admin/v1/pending/:resourceId/:userId",
        async ({ params }) => {
          const cancelled = await membership.cancelPending(params.resourceId, params.userId, OPERATOR_ACTOR);
          if (!cancelled) {
            throw new Refusal("not_found", { what: "pending" });
          }
          return { ok: true };
        },
        { params: adminParams("resourceId", "userId"), detail: docs.cancelPending },
      )
      .get(
        "/admin/v1/resources",
        ({ query }) =>
          queries.resources(
            { type: query.type, query: query.query },
            parseLimit(query.limit),
            parseCursor(query.cursor),
          ),
        {
          query: t.Object({
            type: t.Optional(AdminId),
            query: t.Optional(t.String({ maxLength: 200 })),
            limit: Limit,
            cursor: Cursor,
          }),
          detail: docs.resources,
        },
      )
      .get(
        "/admin/v1/resources/:id/members",
        async ({ params }) => {
          if (!(await membership.store.getResource(params.id))) throw new Refusal("not_found");
          return { members: await queries.roster(params.id) };
        },
        { params: adminParams("id"), detail: docs.roster },
      )
      .get("/admin/v1/events", ({ request }) => eventStream(queries, request), { detail: docs.events })
      .get(
        "/metrics",
        async () =>
          new Response(
            gateway.metrics.render({
              gateway_token_cache_hits_total: {
                help: "Bearer validations answered from the 60 s cache.",
                value: gateway.tokens.hits,
              },
              gateway_token_cache_misses_total: {
                help: "Bearer validations that asked the provider.",
                value: gateway.tokens.misses,
              },
              gateway_sessions_active: { help: "Live sessions.", value: await countLive(gateway.storage) },
              gateway_budget_unreserved_reads_total: {
                help: "Reads allowed while the database could not take the budget's reservation: counted by this process alone, never in the shared window.",
                value: gateway.budgets.unreservedReads,
              },
              gateway_write_queue_depth: {
                help: "Write transactions waiting for their turn (SQLite's one writer per process, then the file's lock).",
                value: gateway.storage.waitingWrites,
              },
            }),
            { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } },
          ),
        { detail: docs.metrics },
      )
      .use(operatorRoutes(gateway))
      .use(dataRoutes(gateway))
  );
}
