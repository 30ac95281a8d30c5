/**
 * The request pipeline every route of an app goes through, each concern one hook:
 * - admission (onRequest): the 12 KiB header limit, the 64 KiB body limit (a body must also arrive
 *   within its time bound, see body-timeout.ts), CORS preflights, and the request's CORS grant (only
 *   origins registered for a client get Access-Control-Allow-Origin, with credentials; the custom CSRF
 *   header is allowed, and needing a preflight for it is what makes the header a CSRF defence);
 * - the body (onParse): JSON objects only;
 * - the answer (mapResponse): the route's value written with the answer headers (answer.ts), and the
 *   route's label handed to the access log;
 * - the error body (onError): the one error mapper, JSON or error-page.ts's HTML for a browser's
 *   navigation.
 * The grant is provisional: once the request's credential is known, an origin not registered for the
 * credential's app is refused and loses the grant (origin.ts). Every hook is synchronous (the body's
 * reading aside), so a route whose own work is answered from memory never waits: the compiled handler
 * of a synchronous route is synchronous too. A route may answer a promise of its value; the answer hook
 * waits for it, and maps its failure as the error hook would.
 */
import { type AnyElysia, Elysia } from "elysia";
import type { AppRegistry } from "../apps/registry.ts";
import { databaseRefusal } from "../db/failures.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Logger } from "../lib/log.ts";
import {
  addAnswerHeaders,
  type CorsGrant,
  corsHeaders,
  JsonText,
  jsonAnswer,
  refusedGrant,
} from "./answer.ts";
import { readBody } from "./body-timeout.ts";
import { errorPage } from "./error-page.ts";
import { errorBody, headersOf, statusOf } from "./errors.ts";
import { requestFacts, requestId } from "./request-context.ts";
import { synchronous } from "./synchronous.ts";

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

/**
 * The request's CORS grant, kept beside its answer's status and headers once the request is admitted
 * (a limit refusal has none). Hooks name the context's parts they use: the framework reads a hook's
 * parameters to learn what to prepare (a hook given the whole context makes it parse every cookie).
 */
const GRANT = Symbol("cors grant");
type Admitted = { [GRANT]?: CorsGrant };
interface AnswerContext {
  responseValue: unknown;
  set: { headers: Record<string, unknown>; status?: number | string; cookie?: unknown };
  request: Request;
  route: string;
  error?: unknown;
}
/** The label of a request no route took (unknown path, or refused before routing). */
const NO_ROUTE = "other";

export interface PlumbingOptions {
  apps?: AppRegistry;
  log: Logger;
  /** The bound on reading a request body (body-timeout.ts); 10 s when unset. */
  bodyTimeoutMs?: number;
}

export function plumbing(options: PlumbingOptions) {
  const { apps, log, bodyTimeoutMs } = options;
  /** `{error, code}` JSON, or the HTML page when a browser navigating to its page asks for HTML. */
  const errorAnswer = (
    context: {
      error: unknown;
      code: unknown;
      set: { headers: Record<string, unknown> } & { status?: unknown };
    },
    request: Request,
    grant: CorsGrant | undefined,
    route: string | undefined,
  ) => {
    const { set } = context;
    requestFacts(request).route = route ?? NO_ROUTE;
    const { refusal, id } = refusalFor(context.error, context.code, request, log, route);
    set.status = statusOf(refusal);
    // A refused origin gets no CORS grant: the page cannot even read the refusal.
    addAnswerHeaders(set.headers, refusal.code === "origin_not_allowed" ? refusedGrant(grant) : grant);
    for (const [name, value] of Object.entries(headersOf(refusal))) set.headers[name] = value;
    const page = errorPage(request, refusal, id);
    if (page) {
      Object.assign(set.headers, page.headers);
      return page.html;
    }
    set.headers["content-type"] = "application/json";
    return errorBody(refusal, id);
  };
  return (
    new Elysia({ name: "plumbing" })
      .onRequest(function admit({ request, set }) {
        if (headerBytes(request) > MAX_HEADER_BYTES) throw new Refusal("headers_too_large");
        const length = request.headers.get("content-length");
        if (length !== null && Number(length) > MAX_BODY_BYTES) throw new Refusal("payload_too_large");
        if (!apps) return;
        const origin = request.headers.get("origin");
        if (origin === null) return;
        const grant = corsHeaders(apps, origin);
        if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
          const headers: Record<string, string> = { vary: "Origin" };
          if (grant)
            Object.assign(headers, grant, {
              "access-control-allow-methods": ALLOW_METHODS,
              "access-control-allow-headers": ALLOW_HEADERS,
              "access-control-max-age": "600",
            });
          addAnswerHeaders(headers, undefined);
          return new Response(null, { status: 204, headers });
        }
        (set as Admitted)[GRANT] = grant;
      })
      // A request without a body (a bodiless join or leave) is answered at once: nothing to read or wait for.
      .onParse({ as: "global" }, function parse({ request, contentType, route }) {
        if (request.body === null || ROUTES_READING_OWN_BODY.has(route)) return {};
        return jsonBody(request, contentType, bodyTimeoutMs);
      })
      // Synchronous (Elysia would read `return f(` in its source as asynchronous); the route's label is
      // prepared for it because the error hook names it.
      .mapResponse(
        { as: "global" },
        synchronous(function answer(context: AnswerContext) {
          const { responseValue, set } = context;
          // The error hook's value, as it wrote it (given back: the framework's own error path writes
          // what this hook answers).
          if (context.error !== undefined) return responseValue as Response;
          const grant = (set as Admitted)[GRANT];
          if (!(responseValue instanceof Promise)) return writeAnswer(responseValue, context, grant);
          // A route answered a promise of JSON: written when it comes; its failure as the error hook does.
          const { request, route } = context;
          return responseValue.then(
            (value: unknown) => writeAnswer(value, context, grant) ?? written(value, set),
            (failure: unknown) => {
              const code = (failure as { code?: unknown })?.code ?? "UNKNOWN";
              return written(errorAnswer({ error: failure, code, set }, request, grant, route), set);
            },
          );
        }),
      )
      .onError({ as: "global" }, function fail({ error, code, set, request, route }) {
        return errorAnswer({ error, code, set }, request, (set as Admitted)[GRANT], route);
      })
  );
}
/**
 * Leaves the body parser out of the routes that never read a body (GET and HEAD). Elysia compiles every
 * route that has a parse hook as an async function, body or not, and the parser is global (it must be
 * on every route that takes a body): without this, a read answered from memory would still return a
 * promise. Call it once every route is registered, before the first request (routes compile lazily).
 */
export function readsWithoutParser<App extends AnyElysia>(app: App): App {
  for (const route of app.routes)
    if (route.method === "GET" || route.method === "HEAD") delete (route.hooks as { parse?: unknown }).parse;
  return app;
}

/**
 * The refusal a failure is answered with, and its log line: a Refusal as it is (logged when it has a
 * cause for the log); the framework's parse, validation and routing failures; a database's refusal (503 or 400,
 * logged as a warning); anything else 500 `internal`, logged with the request id, which its body
 * carries too (`id`). `route` is the label of the route that failed (none: "other").
 */
export function refusalFor(
  error: unknown,
  code: unknown,
  request: Request,
  log: Logger,
  route = NO_ROUTE,
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
      route,
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
      route,
      code: refusal.code,
      ...refusal.log.fields,
      cause: refusal.log.cause.slice(0, 300),
    });
  return { refusal };
}

/** Every body this API takes is a JSON object of at most 64 KiB (counted in bytes). */
async function jsonBody(request: Request, contentType: string, bodyTimeoutMs: number | undefined) {
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
}

/**
 * A route's value as its answer, the route's label noted for the access log: JSON of a plain 200 from the
 * answer headers (answer.ts); anything else is the framework's to write (undefined), with what the route
 * set and the answer headers added.
 */
function writeAnswer(
  value: unknown,
  context: AnswerContext,
  grant: CorsGrant | undefined,
): Response | undefined {
  const { set } = context;
  const facts = requestFacts(context.request);
  facts.route = context.route;
  const plain = set.status === 200 && set.cookie === undefined && isEmpty(set.headers);
  if (!plain || !(value instanceof JsonText || isJsonObject(value))) {
    addAnswerHeaders(set.headers, grant);
    return value instanceof JsonText ? written(value, set) : undefined;
  }
  facts.idOnAnswer = true;
  return jsonAnswer(value instanceof JsonText ? value.text : JSON.stringify(value), facts.id, grant);
}

function isJsonObject(value: unknown): boolean {
  return value !== null && (value?.constructor === Object || Array.isArray(value));
}

/** A JSON value (or a page's text) written with the status and headers the route or the error hook set. */
function written(value: unknown, set: { headers: Record<string, unknown>; status?: unknown }): Response {
  if (typeof value === "string") return new Response(value, set as ResponseInit);
  set.headers["content-type"] ??= "application/json;charset=utf-8";
  const text = value instanceof JsonText ? value.text : JSON.stringify(value);
  return new Response(text, set as ResponseInit);
}

function isEmpty(headers: object): boolean {
  for (const _ in headers) return false;
  return true;
}

function validationError(error: unknown): Refusal {
  const detail = (error as { valueError?: { path?: string; message?: string } }).valueError;
  const field = detail?.path ? detail.path.replace(/^\//, "").replaceAll("/", ".") || "body" : "body";
  return new Refusal("invalid_request", { field, why: detail?.message?.toLowerCase() ?? "is invalid" });
}
