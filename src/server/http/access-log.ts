/**
 * Wraps a listener's fetch handler: gives every request an id (an incoming valid X-Request-Id, else a
 * new one) and returns it as `X-Request-Id`; counts and times it for /metrics; and writes one JSON
 * access-log line: time, request id, method, route template (ids replaced), status, duration,
 * credential kind and client id. Never a path's ids, a query string, a header value, a token or a cookie.
 */
import type { Logger } from "../lib/log.ts";
import type { Metrics } from "./metrics.ts";
import { routeLabel } from "./metrics.ts";
import { type RequestServer, startRequest } from "./request-context.ts";

type Fetch = (request: Request) => Response | Promise<Response>;
/** A listener's fetch handler: the request and the listener that received it. */
export type ServerFetch = (request: Request, server?: RequestServer) => Response | Promise<Response>;

export interface ObserveOptions {
  metrics: Metrics;
  /** Where access-log lines go; none when ACCESS_LOG=false. */
  accessLog?: Logger;
}

export function observeRequests(fetch: Fetch, { metrics, accessLog }: ObserveOptions): ServerFetch {
  return (request, server) => {
    const started = performance.now();
    const facts = startRequest(request, server);
    const done = (response: Response): Response => {
      const seconds = (performance.now() - started) / 1000;
      const url = request.url;
      const start = url.indexOf("/", 8);
      const query = url.indexOf("?", start);
      const route = routeLabel(query < 0 ? url.slice(start) : url.slice(start, query));
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
    const result = fetch(request);
    return result instanceof Promise ? result.then(done) : done(result);
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
