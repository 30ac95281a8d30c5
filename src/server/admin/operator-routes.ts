/**
 * What an operator does to users and rosters (the TUI's actions), and the reads those screens need.
 * A roster change goes through the membership service's rules (transitions.ts) with the operator as an
 * actor of the owner's rank: the owner is never demoted or removed, no role above the type's grant
 * ceiling, removing a pending user cancels the invite or request, onMemberRemove applies, and the same
 * events as the public API are written, with `admin` as their actor (like every operator action).
 */
import { Elysia, t } from "elysia";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { parseCursor, parseLimit } from "../resources/views.ts";
import { AdminId, adminParams, Cursor, Limit, Search } from "./params.ts";
import { adminDocs as docs } from "./responses.ts";

/** The operator's name in the audit log (the actor of every admin action). */
export const OPERATOR_ACTOR = "admin";

const Role = t.String({ minLength: 1, maxLength: 32 });

/** An audit cursor: the (at, id) of the last row shown, whose id must be an event row's id. */
function auditCursor(raw: string | undefined): number | undefined {
  const after = parseCursor(raw);
  if (after === undefined) return undefined;
  if (!/^\d{1,15}$/.test(after.id))
    throw new Refusal("invalid_request", { field: "cursor", why: "is not a cursor this API returned" });
  return Number(after.id);
}

export function operatorRoutes(gateway: Gateway) {
  const { queries, membership } = gateway;
  return new Elysia({ name: "admin-operator-routes" })
    .get(
      "/admin/v1/resources/:id",
      async ({ params }) => {
        const resource = await queries.resource(params.id);
        if (!resource) throw new Refusal("not_found");
        return resource;
      },
      { params: adminParams("id"), detail: docs.resource },
    )
    .post(
      "/admin/v1/resources/:id/setRole",
      async ({ params, body }) => {
        await membership.transitionAsOperator(
          params.id,
          { kind: "setRole", role: body.role },
          body.userId,
          OPERATOR_ACTOR,
        );
        return { ok: true, role: body.role };
      },
      { params: adminParams("id"), body: t.Object({ userId: AdminId, role: Role }), detail: docs.setRole },
    )
    .post(
      "/admin/v1/resources/:id/remove",
      async ({ params, body }) => {
        await membership.transitionAsOperator(params.id, { kind: "remove" }, body.userId, OPERATOR_ACTOR);
        return { ok: true };
      },
      { params: adminParams("id"), body: t.Object({ userId: AdminId }), detail: docs.removeMember },
    )
    .delete(
      "/admin/v1/users/:id/sessions",
      async ({ params }) => {
        const revoked = await revokeAllSessions(gateway, params.id);
        if (revoked > 0)
          gateway.log("info", "sessions revoked by an operator", { userId: params.id, revoked });
        return { ok: true, revoked };
      },
      { params: adminParams("id"), detail: docs.revokeUserSessions },
    )
    .get(
      "/admin/v1/audit",
      ({ query }) =>
        queries.audit(
          { type: query.type, userId: query.userId, resourceId: query.resourceId, query: query.query },
          parseLimit(query.limit),
          auditCursor(query.cursor),
        ),
      {
        query: t.Object({
          type: t.Optional(AdminId),
          userId: t.Optional(AdminId),
          resourceId: t.Optional(AdminId),
          query: Search,
          limit: Limit,
          cursor: Cursor,
        }),
        detail: docs.audit,
      },
    );
}

/**
 * Ends every live session of a user, each as the single revoke does (the session ends at once, its
 * refresh token is revoked at the provider, best effort); then the user's cached bearer checks are
 * dropped on every process (subject-logouts.ts). Returns how many were live.
 */
async function revokeAllSessions(gateway: Gateway, userId: string): Promise<number> {
  const ids: string[] = [];
  let after: ReturnType<typeof parseCursor>;
  do {
    const page = await gateway.queries.sessions({ userId }, 100, after);
    ids.push(...page.sessions.map((s) => s.id));
    after = parseCursor(page.nextCursor ?? undefined);
  } while (after);
  let revoked = 0;
  for (const id of ids) if (await gateway.sessions.revoke(id, OPERATOR_ACTOR)) revoked += 1;
  if (revoked > 0) await gateway.logouts.announce([userId]);
  return revoked;
}
