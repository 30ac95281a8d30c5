/**
 * The hottest calls, answered before the framework:
 * - the reads `GET /auth/session`, `GET /v1/me`, `GET /v1/resources/:id`,
 *   `GET /v1/resources/:id/members` and `GET /v1/resources/browse`, when the whole answer is in memory: a
 *   caller whose cookie or bearer token was seen before, on a resource (roster, browse page) read before;
 * - the writes `POST /v1/resources/:id/join` and `/leave` without a body, for such a caller: the same
 *   membership transition the routes call.
 *
 * It takes only the plain, allowed case, and asks the same functions the routes ask (the session and
 * principal peeks, the access rules, the views, the budget): a request with a body, a query string
 * (other than browse's plain parameters), headers over the limit, an Origin the credential's app does
 * not register, a cookie without the CSRF header, anything not cached, goes through the framework as
 * usual, which answers it as before. A read the rules refuse goes there too. A write, once its budget
 * is counted, is decided by the transition, and a refusal (or a failure) is answered with the
 * framework's own error mapping (`refusalFor`). So it never decides anything the routes would decide
 * otherwise; a test compares its answers with the framework's, header by header.
 *
 * Why: the framework's hooks, schema checks and response mapping cost more than the cached work of
 * these routes, and about a sixth of a join's (see docs/benchmarks.md).
 */

import { signedInView } from "../auth/sessions.ts";
import type { Gateway } from "../gateway.ts";
import { callerRosterAccessWith, canReadWith } from "../resources/access.ts";
import {
  type BrowseParams,
  browsePageView,
  browseQuery,
  resourceView,
  rosterView,
  selfChangeView,
} from "../resources/views.ts";
import { errorBody, headersOf, statusOf } from "./errors.ts";
import { checkOrigin } from "./origin.ts";
import { corsHeaders, headerBytes, MAX_HEADER_BYTES, refusalFor } from "./plumbing.ts";
import { cachedPrincipal, meView } from "./principal.ts";
import { type RequestFacts, requestFacts } from "./request-context.ts";
import { pathStart } from "./url-path.ts";

type Answer = Response | Promise<Response> | undefined;

/** What every answer carries (the plumbing sets the same on the framework's answers). */
export const ANSWER_HEADERS = new Headers({
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "content-type": "application/json;charset=utf-8",
});
/** A refusal's: the framework's error hook names JSON without a charset. */
const REFUSAL_HEADERS = new Headers({
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "content-type": "application/json",
});

const RESOURCES = "/v1/resources/";
const MEMBERS = "/members";
// The route labels (metrics, access log) of what the fast path answers.
const SESSION = "/auth/session";
const ME = "/v1/me";
const RESOURCE = "/v1/resources/:id";
const ROSTER = "/v1/resources/:id/members";
const BROWSE = "/v1/resources/browse";
/**
 * The browse parameters taken, and their longest values: what the route's schema allows, in the
 * characters that need no decoding (a URL-safe cursor, a plain word). Anything else, or a name twice,
 * goes to the framework, which decodes and checks it.
 */
const BROWSE_PARAMS = new Map([
  ["type", 64],
  ["query", 200],
  ["limit", 12],
  ["cursor", 200],
]);
const PLAIN_VALUE = /^[A-Za-z0-9._~-]+$/;
/** The bodiless writes: the path's ending, the transition, its route label. */
const SELF_CHANGES = [
  { ending: "/join", kind: "join", route: "/v1/resources/:id/join" },
  { ending: "/leave", kind: "leave", route: "/v1/resources/:id/leave" },
] as const;

export function fastPath(gateway: Gateway): (request: Request, facts?: RequestFacts) => Answer {
  const { apps, sessions, store, budgets, membership, log } = gateway;
  const resources = membership.store;

  const json = (request: Request, facts: RequestFacts, route: string, body: unknown): Response =>
    jsonText(request, facts, route, JSON.stringify(body));
  const jsonText = (request: Request, facts: RequestFacts, route: string, text: string): Response =>
    answer(request, facts, route, new Response(text, { headers: ANSWER_HEADERS }), true);
  /**
   * Answers as sent, by the cached rows they show: rendered once (a browse page's twenty dates as ISO
   * strings cost more than the rest of the request), forgotten with the rows (a change replaces them).
   * A resource's answer is the same for every caller who may read it. Each cached row or rows array
   * is one answer's, so one map holds them all.
   */
  const texts = new WeakMap<object, string>();
  const rendered = (rows: object, view: () => unknown): string => {
    let text = texts.get(rows);
    if (text === undefined) {
      text = JSON.stringify(view());
      texts.set(rows, text);
    }
    return text;
  };

  /** Sets what the answer's headers owe the request: its id and, for a registered origin, CORS. */
  const answer = (
    request: Request,
    facts: RequestFacts,
    route: string,
    response: Response,
    cors: boolean,
  ) => {
    facts.idOnAnswer = true;
    facts.route = route;
    // Copying a Headers object costs about a third of building one from an object literal.
    const { headers } = response;
    headers.set("x-request-id", facts.id);
    const origin = cors ? request.headers.get("origin") : null;
    const grant = origin === null ? undefined : corsHeaders(apps, origin);
    if (grant !== undefined) for (const [name, value] of Object.entries(grant)) headers.set(name, value);
    return response;
  };

  /** A write's refusal or failure, as the framework's error hook answers it. */
  const refused = (request: Request, facts: RequestFacts, route: string, error: unknown): Response => {
    const { refusal, id } = refusalFor(error, undefined, request, log);
    const body = JSON.stringify(errorBody(refusal, id));
    const response = new Response(body, { status: statusOf(refusal), headers: REFUSAL_HEADERS });
    for (const [name, value] of Object.entries(headersOf(refusal))) response.headers.append(name, value);
    // A refused origin gets no CORS grant: the page cannot even read the refusal.
    return answer(request, facts, route, response, refusal.code !== "origin_not_allowed");
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
    return json(request, facts, SESSION, signedInView(hit.row.userId));
  };

  const me = (request: Request, facts: RequestFacts): Answer => {
    const p = cachedPrincipal(gateway, request);
    if (!p) return undefined;
    return json(request, facts, ME, meView(p));
  };

  /** GET /v1/resources/:id and /:id/members; the budget is counted last, once nothing can fall back. */
  const resource = (request: Request, facts: RequestFacts, id: string, roster: boolean): Answer => {
    const p = cachedPrincipal(gateway, request);
    if (!p) return undefined;
    const found = resources.peekForCaller(id, p.userId);
    if (found === undefined) return undefined;
    const { resource: row, membership } = found;
    let text: string;
    if (roster) {
      const access = callerRosterAccessWith(row, membership, p.appId);
      const members = access === "allowed" ? resources.peekMembers(id) : undefined;
      if (members === undefined) return undefined;
      text = rendered(members, () => rosterView(members));
    } else {
      if (!canReadWith(row, membership, p.appId)) return undefined;
      text = rendered(row, () => resourceView(row, true));
    }
    if (!budgets.takeNow(p.appId, p.clientId, p.userId)) return undefined;
    return jsonText(request, facts, roster ? ROSTER : RESOURCE, text);
  };

  /** GET /v1/resources/browse: a page read before, with the same parameters. */
  const browse = (request: Request, facts: RequestFacts, search: string): Answer => {
    const params = plainParams(search);
    if (params === undefined) return undefined;
    const p = cachedPrincipal(gateway, request);
    if (!p) return undefined;
    let asked: ReturnType<typeof browseQuery>;
    try {
      asked = browseQuery(p.appId, params);
    } catch {
      return undefined;
    }
    const rows = resources.peekBrowse(asked.query);
    if (rows === undefined || !budgets.takeNow(p.appId, p.clientId, p.userId)) return undefined;
    // The cached rows are one page's (the query they were read for names the limit).
    return jsonText(
      request,
      facts,
      BROWSE,
      rendered(rows, () => browsePageView(rows, asked.limit)),
    );
  };

  /**
   * POST /v1/resources/:id/join or /leave: the budget is counted once nothing can fall back; from then
   * on the transition decides, and its refusal is the answer.
   */
  const selfChange = (request: Request, facts: RequestFacts, path: string): Answer => {
    const change = SELF_CHANGES.find(({ ending }) => path.endsWith(ending));
    if (change === undefined) return undefined;
    const id = plainId(path.slice(RESOURCES.length, -change.ending.length));
    if (id === undefined) return undefined;
    const p = cachedPrincipal(gateway, request);
    if (!p || !budgets.takeNow(p.appId, p.clientId, p.userId)) return undefined;
    return membership.transition(p, id, { kind: change.kind }).then(
      (done) => json(request, facts, change.route, selfChangeView(change.kind, done)),
      (error: unknown) => refused(request, facts, change.route, error),
    );
  };

  /** The request's facts come from the access log's wrapper; a request handled in process has none yet. */
  return (request, facts = requestFacts(request)) => {
    const { method } = request;
    const get = method === "GET";
    if (!get && method !== "POST") return undefined;
    const url = request.url;
    const start = pathStart(url);
    if (start < 0) return undefined;
    const mark = url.indexOf("?", start);
    const path = mark < 0 ? url.slice(start) : url.slice(start, mark);
    const resourcePath = path.startsWith(RESOURCES);
    if (!resourcePath && (!get || (path !== SESSION && path !== ME))) return undefined;
    if (!plain(request, get)) return undefined;
    if (!get) return mark < 0 ? selfChange(request, facts, path) : undefined;
    if (path === BROWSE) return browse(request, facts, mark < 0 ? "" : url.slice(mark + 1));
    if (mark >= 0) return undefined;
    if (path === SESSION) return session(request, facts);
    if (path === ME) return me(request, facts);
    const rest = path.slice(RESOURCES.length);
    const roster = rest.endsWith(MEMBERS);
    const id = plainId(roster ? rest.slice(0, -MEMBERS.length) : rest);
    return id === undefined ? undefined : resource(request, facts, id, roster);
  };
}

/** No body (a GET has none; the writes take none, and an empty one is none), headers within the limit. */
function plain(request: Request, get: boolean): boolean {
  const { headers } = request;
  const length = headers.get("content-length");
  if (request.body !== null || headers.has("transfer-encoding")) return false;
  if (length !== null && (get || length !== "0")) return false;
  return headerBytes(request) <= MAX_HEADER_BYTES;
}

/** Browse's parameters when every one is taken, once, with a plain value; else undefined. */
function plainParams(search: string): BrowseParams | undefined {
  const params: Record<string, string> = {};
  if (search === "") return params;
  for (const pair of search.split("&")) {
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const longest = BROWSE_PARAMS.get(name);
    if (
      eq < 0 ||
      longest === undefined ||
      Object.hasOwn(params, name) ||
      value.length > longest ||
      !PLAIN_VALUE.test(value)
    )
      return undefined;
    params[name] = value;
  }
  return params;
}

/** Only a plain id: "browse" and "static" are routes of their own, and an encoded id is decoded there. */
function plainId(id: string): string | undefined {
  return id === "" || id === "browse" || id === "static" || /[/%]/.test(id) ? undefined : id;
}

/** `fetch` with the fast path in front of it. */
export function withFastPath(gateway: Gateway, fetch: (request: Request) => Response | Promise<Response>) {
  const fast = fastPath(gateway);
  return (request: Request, facts: RequestFacts): Response | Promise<Response> =>
    fast(request, facts) ?? fetch(request);
}
