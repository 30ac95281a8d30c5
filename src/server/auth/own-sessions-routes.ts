/**
 * A person's own sessions: `GET /auth/sessions` lists their live sessions in the calling app's
 * clients, `DELETE /auth/sessions/:id` ends one of them and `POST /auth/sessions/revoke-others` ends
 * all but the caller's. The caller is the browser's session cookie, and nothing outside its user and
 * its app is ever named: another person's session id, another app's, an ended one and an unknown one
 * all answer the same 404, so an id reveals nothing. Ending needs the CSRF header (both verbs), writes
 * one `session.ended` event per session (reason `signed_out_elsewhere`, actor the person) and revokes
 * the refresh tokens at the provider; the ended browser is told why on its next request.
 * A session's id here is the session row's public id (what operators see), never the cookie's value.
 */
import { Elysia, t } from "elysia";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { hasCsrfHeader } from "../http/csrf.ts";
import { checkOrigin } from "../http/origin.ts";
import { noteCredential } from "../http/request-context.ts";
import { ownSessionsDocs as docs } from "./own-sessions-responses.ts";
import { endedRefusal } from "./session-end.ts";
import { liveSessionsOf } from "./session-reads.ts";
import type { ResolvedSession } from "./sessions.ts";

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function ownSessionsRoutes(gateway: Gateway) {
  const { sessions, apps } = gateway;
  /** The caller's live session, else 401 with why it ended. */
  const callerOf = async (request: Request): Promise<ResolvedSession> => {
    const header = request.headers.get("cookie");
    const found = await sessions.resolve(header);
    if (!found) throw endedRefusal(await sessions.endReason(header));
    noteCredential(request, "cookie", found.row.clientId);
    checkOrigin(apps, request, apps.appFor(found.row.clientId).id);
    return found;
  };
  const scopeOf = ({ row }: ResolvedSession) => ({
    userId: row.userId,
    clientIds: apps.clientIdsOfApp(row.clientId),
  });

  return new Elysia({ name: "own-sessions-routes" })
    .onTransform(({ request }) => {
      if (request.method !== "GET" && request.method !== "HEAD" && !hasCsrfHeader(request))
        throw new Refusal("csrf_required");
    })
    .get(
      "/auth/sessions",
      async ({ request }) => {
        const caller = await callerOf(request);
        const { userId, clientIds } = scopeOf(caller);
        const rows = await liveSessionsOf(gateway.storage, userId, clientIds);
        return {
          sessions: rows.map((row) => ({
            id: row.id,
            current: row.id === caller.row.id,
            client_id: row.clientId,
            created_at: new Date(row.createdAt).toISOString(),
            last_seen_at: new Date(row.lastSeenAt).toISOString(),
            device: row.device ?? "Unknown device",
          })),
        };
      },
      { detail: docs.list },
    )
    .delete(
      "/auth/sessions/:id",
      async ({ request, params }) => {
        if (!SESSION_ID.test(params.id))
          throw new Refusal("invalid_request", { field: "id", why: "must match ^[A-Za-z0-9_-]{1,64}$" });
        const caller = await callerOf(request);
        const ended = await sessions.endOwn({ ...scopeOf(caller), only: params.id });
        if (ended === 0) throw new Refusal("not_found", { what: "session" });
        return { ok: true as const, ended };
      },
      { params: t.Object({ id: t.String({ maxLength: 256 }) }), detail: docs.revoke },
    )
    .post(
      "/auth/sessions/revoke-others",
      async ({ request }) => {
        const caller = await callerOf(request);
        const ended = await sessions.endOwn({ ...scopeOf(caller), except: caller.row.id });
        return { ok: true as const, ended };
      },
      { detail: docs.revokeOthers },
    );
}
