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
import { type RequestFacts, requestFacts } from "./request-context.ts";

type Answer = Response | undefined;

/** What every answer carries (the plumbing sets the same on the framework's answers). */
const ANSWER_HEADERS = new Headers({
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "content-type": "application/json;charset=utf-8",
});

const RESOURCES = "/v1/resources/";
const MEMBERS = "/members";
// The route labels (metrics, access log) of what the fast path answers.
const SESSION = "/auth/session";
const ME = "/v1/me";
const RESOURCE = "/v1/resources/:id";
const ROSTER = "/v1/resources/:id/members";

export function fastPath(gateway: Gateway): (request: Request, facts?: RequestFacts) => Answer {
  const { apps, sessions, store, budgets } = gateway;
  const resources = gateway.membership.store;

  const json = (request: Request, facts: RequestFacts, route: string, body: unknown): Response => {
    facts.idOnAnswer = true;
    facts.route = route;
    // Copying a Headers object costs about a third of building one from an object literal.
    const response = new Response(JSON.stringify(body), { headers: ANSWER_HEADERS });
    const { headers } = response;
    headers.set("x-request-id", facts.id);
    const origin = request.headers.get("origin");
    const cors = origin === null ? undefined : corsHeaders(apps, origin);
    if (cors !== undefined) for (const [name, value] of Object.entries(cors)) headers.set(name, value);
    return response;
  };

  const session = (request: Request, facts: RequestFacts): Answer => {
    const hit = sessions.peek(request.headers.get("cookie"));
    if (!hit) return undefined;
    try {
      checkOrigin(apps, request, apps.appFor(hit.row.clientId).id);
    } catch {
      return undefined;
    }
    facts.credential = "cookie";
    facts.clientId = hit.row.clientId;
    store.touch(hit.row);
    return json(request, facts, SESSION, { authenticated: true, user_id: hit.row.userId });
  };

  const me = (request: Request, facts: RequestFacts): Answer => {
    const p = cachedPrincipal(gateway, request);
    if (!p) return undefined;
    const body = { userId: p.userId, clientId: p.clientId ?? null, appId: p.appId, via: p.via };
    return json(request, facts, ME, body);
  };

  /** GET /v1/resources/:id and /:id/members; the budget is counted last, once nothing can fall back. */
  const resource = (request: Request, facts: RequestFacts, id: string, roster: boolean): Answer => {
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
    return json(request, facts, roster ? ROSTER : RESOURCE, body);
  };

  /** The request's facts come from the access log's wrapper; a request handled in process has none yet. */
  return (request, facts = requestFacts(request)) => {
    if (request.method !== "GET") return undefined;
    const url = request.url;
    const start = url.indexOf("/", 11);
    if (start < 0 || url.indexOf("?", start) >= 0) return undefined;
    const path = url.slice(start);
    const route = path === SESSION ? 1 : path === ME ? 2 : path.startsWith(RESOURCES) ? 3 : 0;
    if (route === 0) return undefined;
    const { headers } = request;
    if (headers.has("content-length") || headers.has("transfer-encoding")) return undefined;
    if (headerBytes(request) > MAX_HEADER_BYTES) return undefined;
    if (route === 1) return session(request, facts);
    if (route === 2) return me(request, facts);
    const rest = path.slice(RESOURCES.length);
    const roster = rest.endsWith(MEMBERS);
    const id = roster ? rest.slice(0, -MEMBERS.length) : rest;
    // Only a plain id: "browse" and "static" are routes of their own, and an encoded id is decoded there.
    if (id === "" || id === "browse" || id === "static" || /[/%]/.test(id)) return undefined;
    return resource(request, facts, id, roster);
  };
}

/** `fetch` with the fast path in front of it. */
export function withFastPath(gateway: Gateway, fetch: (request: Request) => Response | Promise<Response>) {
  const fast = fastPath(gateway);
  return (request: Request, facts: RequestFacts): Response | Promise<Response> =>
    fast(request, facts) ?? fetch(request);
}
