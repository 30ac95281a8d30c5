/**
 * One error type and one mapper. Every refusal the gateway makes is an `ApiError` carrying a stable
 * snake_case `code` (the membership refusals come from transitions.ts); the body is always `{ error, code }`
 * (a browser navigating to one of the gateway's pages may get the HTML form instead: error-page.ts).
 * Nothing else (no stack, no SQL, no provider body) ever reaches a client; unexpected failures become
 * 500 `internal` with a request id that is also in the log line.
 */

import { REFUSAL_STATUS, type RefusalCode } from "../resources/transitions.ts";

/** Every code of an `ApiError` besides the membership refusals (RefusalCode); the SDK's union is generated from it. */
export const API_ERROR_CODES = [
  "unknown_type",
  "reserved_type",
  "invalid_json",
  "invalid_request",
  "payload_too_large",
  "headers_too_large",
  "request_timeout",
  "unsupported_media_type",
  "not_found",
  "unauthenticated",
  "csrf_required",
  "origin_not_allowed",
  "forbidden",
  "idp_unavailable",
  "issuer_not_configured",
  "kratos_not_configured",
  "invalid_redirect_uri",
  "unknown_client",
  "invalid_nonce",
  "id_token_invalid",
  "not_supported_by_provider",
  "invalid_id_token",
  "exchange_failed",
  "consent_not_found",
  "consent_not_bound",
  "subject_mismatch",
  "invalid_subject",
  "invalid_scope",
  "budget_exceeded",
  "admin_disabled",
  "already_linked",
  "user_deleted",
  "account_deleted",
  "reauthentication_required",
  "database_busy",
  "database_unavailable",
  "internal",
] as const;

export type ErrorCode = RefusalCode | (typeof API_ERROR_CODES)[number];

/** Every `code` an `{error, code}` body of the gateway carries: the OpenAPI `Error.code` and the SDK's list. */
export const ERROR_CODES: readonly ErrorCode[] = [
  ...new Set<ErrorCode>([...API_ERROR_CODES, ...(Object.keys(REFUSAL_STATUS) as RefusalCode[])]),
].sort();

/**
 * What a person needs on the HTML error page (error-page.ts) besides the message: the values the
 * request carried and, where the configuration allows, what was expected. Never a secret.
 */
export interface ErrorFacts {
  clientId?: string;
  /** The redirect URI the request carried. */
  redirectUri?: string;
  /** The client's registered redirect URIs: given in development only (they describe the deployment). */
  registeredRedirectUris?: readonly string[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra headers for the error response (e.g. Set-Cookie clearing, Retry-After). */
    readonly headers?: Record<string, string | string[]>,
    /** For the log only, never the body: why (e.g. what the identity provider did). */
    readonly detail?: string,
    /** For the log only: structured facts about the cause (the provider call that failed). */
    readonly logFields?: Record<string, unknown>,
    /** For the HTML error page: what the request carried and what was expected. */
    readonly facts?: ErrorFacts,
  ) {
    super(message);
  }

  /** Fields the body carries besides `error` and `code` (e.g. a refused refresh's `reason`). */
  extra?: Readonly<Record<string, string>>;

  withBody(extra: Readonly<Record<string, string>>): this {
    this.extra = extra;
    return this;
  }
}

export const errors = {
  invalidJson: () => new ApiError(400, "invalid_json", "The request body is not valid JSON."),
  invalidRequest: (field: string, why: string) =>
    new ApiError(400, "invalid_request", `Invalid request: ${field} ${why}.`),
  tooLarge: () => new ApiError(413, "payload_too_large", "The request body is larger than 64 KiB."),
  headersTooLarge: () =>
    new ApiError(431, "headers_too_large", "The request headers are larger than 12 KiB in total."),
  notFound: () => new ApiError(404, "not_found", "No such route."),
  unauthenticated: () => new ApiError(401, "unauthenticated", "Sign in or send a valid bearer token."),
  /** The admin API has no sign-in: only the operator's token opens it. */
  adminUnauthenticated: () =>
    new ApiError(
      401,
      "unauthenticated",
      "The admin API needs the operator's token: send Authorization: Bearer <ADMIN_TOKEN>, the value this gateway was started with.",
    ),
  /** The account the call acts for has been deleted: final, so signing in again does not help. */
  accountDeleted: () =>
    new ApiError(
      403,
      "account_deleted",
      "This account has been deleted. A person returns only as a new account of the identity provider.",
    ),
  csrf: () =>
    new ApiError(
      403,
      "csrf_required",
      "State-changing calls with a session cookie need the header X-Service-Csrf: 1.",
    ),
  originNotAllowed: () =>
    new ApiError(
      403,
      "origin_not_allowed",
      "This origin is not registered for the app this credential belongs to.",
    ),
  /** The cause (`IdpUnavailable`) names the endpoint, its status or network error, and the duration. */
  idpUnavailable: (cause?: { message: string; call?: object }) =>
    new ApiError(
      502,
      "idp_unavailable",
      "The identity provider could not be reached.",
      undefined,
      cause?.message,
      cause?.call ? { provider: cause.call } : undefined,
    ),
  noIssuer: () =>
    new ApiError(503, "issuer_not_configured", "No identity provider is configured (OIDC_ISSUER)."),
  /**
   * Names the URI received; `registered` (the client's URIs) only in development, where telling the
   * person what to open instead is worth more than hiding the deployment's addresses.
   */
  invalidRedirectUri: (clientId: string, received: string, registered?: readonly string[]) => {
    const shown = (uri: string) => JSON.stringify(uri.length > 300 ? `${uri.slice(0, 300)}…` : uri);
    const known = registered?.length
      ? ` Registered for it: ${registered.map(shown).join(", ")}.`
      : registered
        ? " It has no registered redirect URI."
        : "";
    return new ApiError(
      400,
      "invalid_redirect_uri",
      `redirect_uri ${shown(received)} is not registered for client "${clientId}".${known}`,
      undefined,
      undefined,
      undefined,
      { clientId, redirectUri: received, registeredRedirectUris: registered },
    );
  },
};

export function errorBody(error: ApiError, requestId?: string): Record<string, string> {
  const body: Record<string, string> = { ...error.extra, error: error.message, code: error.code };
  if (requestId && error.status >= 500) body.requestId = requestId;
  return body;
}

/**
 * The database failing is not a bug of ours: another process holds the write lock past the wait, or
 * PostgreSQL gave up on a lock (503 `database_busy`); the disk is full, the file read-only or
 * unreadable, the server unreachable or shutting down (503 `database_unavailable`). Both say when to
 * retry; reads that still work are still served, since only the failing statement fails. Text
 * PostgreSQL cannot store (a NUL character) is the caller's: 400. Anything else stays a 500.
 */
export function databaseError(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return undefined;
  const name = (error as { name?: unknown })?.name;
  const kind = name === "SQLiteError" ? sqliteKind(code) : postgresKind(code, name === "PostgresError");
  if (kind === "busy")
    return new ApiError(503, "database_busy", "The database is busy: retry in a moment.", {
      "retry-after": "1",
    });
  if (kind === "unavailable")
    return new ApiError(
      503,
      "database_unavailable",
      "The database cannot take writes right now: retry later.",
      {
        "retry-after": "5",
      },
    );
  if (kind === "bad_text")
    return new ApiError(400, "invalid_request", "Invalid request: text must not contain a NUL character.");
  return undefined;
}

type DatabaseFailure = "busy" | "unavailable" | "bad_text" | undefined;

function sqliteKind(code: string): DatabaseFailure {
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
  if (/^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|NOMEM|PROTOCOL)/.test(code)) return "unavailable";
  return undefined;
}

/** SQLSTATE classes from the server; the driver's own codes for a connection that failed or closed. */
function postgresKind(code: string, fromServer: boolean): DatabaseFailure {
  if (!fromServer)
    return /^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|CONNECT_TIMEOUT|CONNECTION_)/.test(code)
      ? "unavailable"
      : undefined;
  if (code === "40001" || code === "40P01" || code === "55P03") return "busy";
  // Connection refused or lost, the server out of resources or shutting down, the database not
  // accepting connections (55000) or gone (3D000), our login refused (28): the database is unavailable.
  if (/^(08|53|57P0[1234]|25006|55000|3D000|28)/.test(code)) return "unavailable";
  if (code === "22021" || code === "22P05") return "bad_text";
  return undefined;
}
