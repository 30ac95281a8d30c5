/**
 * The plumbing floor: what every answer of the gateway costs before any route's work. A bare Bun.serve
 * (bare.ts) never reads a request header; this one goes through the gateway's own request wrapper (the
 * request id, the metrics, the JSON access-log line to stdout) and its own per-request checks and
 * headers: it reads the request's headers (the credential, the header-size limit) and answers the same
 * small JSON with the gateway's answer headers and X-Request-Id. No cache, no lookup, no rule: a read
 * of the gateway cannot cost less than this.
 */
import { observeRequests } from "../../src/server/http/access-log.ts";
import { jsonAnswer } from "../../src/server/http/answer.ts";
import { Metrics } from "../../src/server/http/metrics.ts";
import { headerBytes, MAX_HEADER_BYTES } from "../../src/server/http/plumbing.ts";
import { createLogger } from "../../src/server/lib/log.ts";

const text = JSON.stringify({ authenticated: true, user_id: "bench-user" });
const handle = observeRequests(
  (request, facts) => {
    if (request.headers.get("authorization") === null || headerBytes(request) > MAX_HEADER_BYTES)
      return new Response(null, { status: 401 });
    facts.route = "/v1/me";
    facts.credential = "bearer";
    facts.clientId = "bench-web";
    facts.idOnAnswer = true;
    return jsonAnswer(text, facts.id, undefined);
  },
  { metrics: new Metrics(), accessLog: createLogger() },
);
const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  fetch: (request, server) => handle(request, server),
});
console.error(`ready ${server.port}`);
