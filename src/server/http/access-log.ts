/**
 * Wraps a listener's fetch handler: gives every request an id (an incoming valid X-Request-Id, else a
 * new one) and returns it as `X-Request-Id`; counts and times it for /metrics; and writes one JSON
 * access-log line: time, request id, method, route template (ids replaced), status, duration,
 * credential kind and client id. Never a path's ids, a query string, a header value, a token or a cookie.
 * The route template is the router's: the pipeline's answer and error hooks note it in the request's
 * facts ("other" when no route took the request); nothing here reads the URL.
 */
import type { Logger } from "../lib/log.ts";
import type { Metrics } from "./metrics.ts";
import { type RequestFacts, type RequestServer, startRequest } from "./request-context.ts";

/** The handler observed: the request and its facts (the pipeline fills in the route label). */
type Fetch = (request: Request, facts: RequestFacts) => Response | Promise<Response>;
/** A listener's fetch handler: the request and the listener that received it. */
export type ServerFetch = (request: Request, server?: RequestServer) => Response | Promise<Response>;

export interface ObserveOptions {
  metrics: Metrics;
  /** Where access-log lines go; none when ACCESS_LOG=false. */
  accessLog?: Logger;
}

export function observeRequests(fetch: Fetch, { metrics, accessLog }: ObserveOptions): ServerFetch {
  const done = (request: Request, facts: RequestFacts, started: number, response: Response): Response => {
    const seconds = (performance.now() - started) / 1000;
    const route = facts.route ?? "other";
    metrics.observeRoute(request.method, route, response.status, seconds);
    accessLog?.("info", "request", {
      requestId: facts.id,
      method: request.method,
      route,
      status: response.status,
      durationMs: Math.round(seconds * 10_000) / 10,
      credential: facts.credential ?? null,
      clientId: facts.clientId ?? null,
    });
    return facts.idOnAnswer ? response : withRequestId(response, facts.id);
  };
  return (request, server) => {
    const started = performance.now();
    const facts = startRequest(request, server);
    const result = fetch(request, facts);
    return result instanceof Promise
      ? result.then((response) => done(request, facts, started, response))
      : done(request, facts, started, result);
  };
}

function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set("x-request-id", id);
    return response;
  } catch {
    // A response whose headers are immutable (relayed as fetched): copy it.
    const copy = new Response(response.body, response);
    copy.headers.set("x-request-id", id);
    return copy;
  }
}
