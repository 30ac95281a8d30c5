/**
 * What every request goes through before a route: the 12 KiB header limit, the 64 KiB body limit
 * (a body must also arrive within its time bound, see body-timeout.ts), CORS for registered
 * origins (only origins registered for a client get Access-Control-Allow-Origin, with credentials; the
 * custom CSRF header is allowed, and needing a preflight for it is what makes the header a CSRF
 * defence), and the one error mapper (JSON, or error-page.ts's HTML for a browser's navigation). The
 * grant made here is provisional: once the request's credential is known, an origin not registered for
 * the credential's app is refused and loses the grant (origin.ts).
 */
import { Elysia } from "elysia";
import type { AppRegistry } from "../apps/registry.ts";
import { databaseRefusal } from "../db/failures.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Logger } from "../lib/log.ts";
import { readBody } from "./body-timeout.ts";
import { errorPage } from "./error-page.ts";
import { errorBody, headersOf, statusOf } from "./errors.ts";
import { routeLabel } from "./metrics.ts";
import { requestId } from "./request-context.ts";

export const MAX_BODY_BYTES = 64 * 1024;
/**
 * Routes whose body is not this API's JSON and which read it themselves, within their own bounds: the
 * provider's back-channel logout posts a form (backchannel-routes.ts).
 */
export const ROUTES_READING_OWN_BODY: ReadonlySet<string> = new Set(["/auth/backchannel-logout"]);
/**
 * The request line and headers, counted as sent (name, ": ", value, CRLF). Bun refuses a header block
 * over its own limit itself, before any handler or error hook runs, with a bare 431 and no body: the
 * listeners raise Bun's to RUNTIME_HEADER_BYTES (serve.ts), so a larger block reaches this check and
 * gets the JSON answer.
 */
export const MAX_HEADER_BYTES = 12 * 1024;
/**
 * Bun's own header limit, a backstop only (16 KiB by default). Bun holds a header block in memory until
 * it is complete, so this also bounds what one connection can make a process hold.
 */
export const RUNTIME_HEADER_BYTES = 256 * 1024;

export function headerBytes(request: Request): number {
  let bytes = request.method.length + request.url.length + 11;
  // forEach, not for…of: no [name, value] pair allocated per header.
  request.headers.forEach((value, name) => {
    bytes += name.length + value.length + 4;
  });
  return bytes;
}

const ALLOW_HEADERS = "content-type, x-service-csrf, authorization";
const ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";

export function corsHeaders(apps: AppRegistry, origin: string | null): Record<string, string> | undefined {
  if (!origin || !apps.isAllowedOrigin(origin)) return undefined;
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    vary: "Origin",
  };
}

export interface PlumbingOptions {
  apps?: AppRegistry;
  log: Logger;
  /** The bound on reading a request body (body-timeout.ts); 10 s when unset. */
  bodyTimeoutMs?: number;
}

export function plumbing(options: PlumbingOptions) {
  const { apps, log, bodyTimeoutMs } = options;
  return new Elysia({ name: "plumbing" })
    .onRequest(({ request, set }) => {
      // Answers carry who is signed in and their data: never stored by a browser or a shared cache.
      set.headers["cache-control"] = "no-store";
      set.headers["x-content-type-options"] = "nosniff";
      if (headerBytes(request) > MAX_HEADER_BYTES) throw new Refusal("headers_too_large");
      const length = request.headers.get("content-length");
      if (length !== null && Number(length) > MAX_BODY_BYTES) throw new Refusal("payload_too_large");
      if (!apps) return;
      const origin = request.headers.get("origin");
      if (origin === null) return;
      const cors = corsHeaders(apps, origin);
      if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
        const headers: Record<string, string> = { vary: "Origin" };
        if (cors)
          Object.assign(headers, cors, {
            "access-control-allow-methods": ALLOW_METHODS,
            "access-control-allow-headers": ALLOW_HEADERS,
            "access-control-max-age": "600",
          });
        return new Response(null, { status: 204, headers });
      }
      if (cors) Object.assign(set.headers, cors);
    })
    .onParse({ as: "global" }, async ({ request, contentType, route }) => {
      if (ROUTES_READING_OWN_BODY.has(route)) return {};
      // Every body this API takes is a JSON object of at most 64 KiB (counted in bytes).
      const bytes = await readBody(request, bodyTimeoutMs);
      if (bytes.byteLength > MAX_BODY_BYTES) throw new Refusal("payload_too_large");
      const text = new TextDecoder().decode(bytes);
      if (text.trim() === "") return {};
      if (contentType && !/^application\/([\w.+-]*\+)?json\b/i.test(contentType)) {
        throw new Refusal("unsupported_media_type");
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new Refusal("invalid_json");
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new Refusal("invalid_request", { field: "body", why: "must be a JSON object" });
      }
      return body;
    })
    .onError({ as: "global" }, ({ error, code, set, request }) => {
      /** `{error, code}` JSON, or the HTML page when a browser navigating to its page asks for HTML. */
      const respond = (refusal: Refusal, id?: string) => {
        const page = errorPage(request, refusal, id);
        if (page) {
          Object.assign(set.headers, page.headers);
          return page.html;
        }
        set.headers["content-type"] = "application/json";
        return errorBody(refusal, id);
      };
      const { refusal, id } = refusalFor(error, code, request, log);
      set.status = statusOf(refusal);
      // A refused origin gets no CORS grant: the page cannot even read the refusal.
      if (refusal.code === "origin_not_allowed") {
        delete set.headers["access-control-allow-origin"];
        delete set.headers["access-control-allow-credentials"];
      }
      for (const [name, value] of Object.entries(headersOf(refusal))) set.headers[name] = value;
      return respond(refusal, id);
    });
}

/**
 * The refusal a failure is answered with, and its log line: a Refusal as it is (logged when it has a
 * cause for the log); the framework's parse, validation and routing failures; a database's refusal (503 or 400,
 * logged as a warning); anything else 500 `internal`, logged with the request id, which its body
 * carries too (`id`). The framework's error hook and the fast path (fast-path.ts) both answer with it.
 */
export function refusalFor(
  error: unknown,
  code: unknown,
  request: Request,
  log: Logger,
): { refusal: Refusal; id?: string } {
  const cause = (error as { cause?: unknown })?.cause;
  let refusal: Refusal;
  if (error instanceof Refusal) refusal = error;
  else if (cause instanceof Refusal) refusal = cause;
  else if (code === "PARSE") refusal = new Refusal("invalid_json");
  else if (code === "VALIDATION") refusal = validationError(error);
  else if (code === "NOT_FOUND") refusal = new Refusal("not_found", { what: "route" });
  else if ((error as { status?: number })?.status === 413) refusal = new Refusal("payload_too_large");
  else if (databaseRefusal(error ?? cause)) {
    refusal = databaseRefusal(error ?? cause)!;
    log("warn", "database refused a statement", {
      requestId: requestId(request),
      method: request.method,
      code: String((error as { code?: unknown }).code),
    });
  } else {
    const id = requestId(request);
    log("error", "unexpected error", {
      requestId: id,
      method: request.method,
      route: routeLabel(new URL(request.url).pathname),
      // Name and a bounded message for the operator; never a stack, never a request body or header.
      error: String((error as Error)?.name ?? "Error"),
      detail: String((error as Error)?.message ?? error).slice(0, 300),
    });
    return { refusal: new Refusal("internal"), id };
  }
  if (refusal.log?.cause)
    log("warn", refusal.code === "idp_unavailable" ? "identity provider failed" : "request refused", {
      requestId: requestId(request),
      method: request.method,
      route: routeLabel(new URL(request.url).pathname),
      code: refusal.code,
      ...refusal.log.fields,
      cause: refusal.log.cause.slice(0, 300),
    });
  return { refusal };
}

function validationError(error: unknown): Refusal {
  const detail = (error as { valueError?: { path?: string; message?: string } }).valueError;
  const field = detail?.path ? detail.path.replace(/^\//, "").replaceAll("/", ".") || "body" : "body";
  return new Refusal("invalid_request", { field, why: detail?.message?.toLowerCase() ?? "is invalid" });
}
