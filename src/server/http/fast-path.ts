/**
 * The hottest reads, answered before the framework when the whole answer is in memory:
 * `GET /auth/session`, `GET /v1/me`, `GET /v1/resources/:id` and `GET /v1/resources/:id/members`, for a
 * caller whose cookie or bearer token was seen before, on a resource (and roster) read before.
 *
 * It takes only the plain, allowed case, and asks the same functions the routes ask (the session and
 * principal peeks, the access rules, the views, the budget): a request with a query string, a body,
 * headers over the limit, an Origin the credential's app does not register, anything not cached, any
 * refusal, goes through the framework as usual, which answers it (and every error) as before. So it
 * never decides anything the routes would decide otherwise, and never answers an error itself; a test
 * compares its answers with the framework's, header by header.
 *
 * Why: the framework's hooks, schema checks and response mapping cost more than the cached work of
 * these routes (see the README's performance section).
 */

import type { Gateway } from "../gateway.ts";
import { callerRosterAccess, canRead } from "../resources/access.ts";
import { resourceView, rosterView } from "../resources/views.ts";
import { checkOrigin } from "./origin.ts";
import { corsHeaders, headerBytes, MAX_HEADER_BYTES } from "./plumbing.ts";
import { cachedPrincipal } from "./principal.ts";
import { noteCredential, requestFacts } from "./request-context.ts";

type Answer = Response | undefined;

const RESOURCES = "/v1/resources/";
const MEMBERS = "/members";

export function fastPath(gateway: Gateway): (request: Request) => Answer {
  const { apps, sessions, store, budgets } = gateway;
  const resources = gateway.membership.store;

  const json = (request: Request, body: unknown): Response => {
    const facts = requestFacts(request);
    facts.idOnAnswer = true;
    const headers: Record<string, string> = {
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-type": "application/json;charset=utf-8",
      "x-request-id": facts.id,
    };
    const origin = request.headers.get("origin");
    if (origin !== null) Object.assign(headers, corsHeaders(apps, origin));
    return new Response(JSON.stringify(body), { headers });
  };

  const session = (request: Request): Answer => {
    const hit = sessions.peek(request.headers.get("cookie"));
    if (!hit) return undefined;
    try {
      checkOrigin(apps, request, apps.appFor(hit.row.clientId).id);
    } catch {
      return undefined;
    }
    noteCredential(request, "cookie", hit.row.clientId);
    store.touch(hit.row);
    return json(request, { authenticated: true, user_id: hit.row.userId });
  };

  const me = (request: Request): Answer => {
    const p = cachedPrincipal(gateway, request);
    if (!p) return undefined;
    return json(request, { userId: p.userId, clientId: p.clientId ?? null, appId: p.appId, via: p.via });
  };

  /** GET /v1/resources/:id and /:id/members; the budget is counted last, once nothing can fall back. */
  const resource = (request: Request, id: string, roster: boolean): Answer => {
    const p = cachedPrincipal(gateway, request);
    if (!p) return undefined;
    const row = resources.peekResourceFor(id, p.userId);
    if (row === undefined) return undefined;
    let body: unknown;
    if (roster) {
      const members = callerRosterAccess(row, p.appId) === "allowed" ? resources.peekMembers(id) : undefined;
      if (members === undefined) return undefined;
      body = rosterView(members);
    } else {
      if (!canRead(row, p.appId)) return undefined;
      body = resourceView(row, true);
    }
    if (!budgets.takeNow(p.appId, p.clientId, p.userId)) return undefined;
    return json(request, body);
  };

  return (request) => {
    if (request.method !== "GET") return undefined;
    const url = request.url;
    const start = url.indexOf("/", 11);
    if (start < 0 || url.indexOf("?", start) >= 0) return undefined;
    const path = url.slice(start);
    const route = path === "/auth/session" ? 1 : path === "/v1/me" ? 2 : path.startsWith(RESOURCES) ? 3 : 0;
    if (route === 0) return undefined;
    const { headers } = request;
    if (headers.has("content-length") || headers.has("transfer-encoding")) return undefined;
    if (headerBytes(request) > MAX_HEADER_BYTES) return undefined;
    if (route === 1) return session(request);
    if (route === 2) return me(request);
    const rest = path.slice(RESOURCES.length);
    const roster = rest.endsWith(MEMBERS);
    const id = roster ? rest.slice(0, -MEMBERS.length) : rest;
    // Only a plain id: "browse" and "static" are routes of their own, and an encoded id is decoded there.
    if (id === "" || id === "browse" || id === "static" || /[/%]/.test(id)) return undefined;
    return resource(request, id, roster);
  };
}

/** `fetch` with the fast path in front of it. */
export function withFastPath(gateway: Gateway, fetch: (request: Request) => Response | Promise<Response>) {
  const fast = fastPath(gateway);
  return (request: Request): Response | Promise<Response> => fast(request) ?? fetch(request);
}
