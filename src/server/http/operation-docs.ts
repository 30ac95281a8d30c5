/**
 * How a route describes itself in the OpenAPI document: its `detail` (operation id, summary, tags,
 * responses). `detail` is documentation only: Elysia never reads it while serving, so the success
 * shapes declared here are never checked against, or used to reshape, a real answer (an Elysia
 * `response` schema would be: validated on every answer and, with `normalize`, stripped of any field
 * it does not list). Every error a route answers is the shared `Error` component, `{error, code}`.
 */
import { Type as T, type TProperties, type TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import { SESSION_END_REASONS } from "../auth/session-end.ts";
import { ERROR_CODES } from "./errors.ts";
import { named } from "./openapi-components.ts";

type Responses = NonNullable<DocumentDecoration["responses"]>;
type Response = Extract<Responses[string], { description: string }>;
type Schema = NonNullable<NonNullable<Response["content"]>[string]["schema"]>;

/** A string that is one of `values`, as generators read it best: `{type: "string", enum}`. */
export const OneOf = <V extends string>(values: readonly V[], options: { description?: string } = {}) =>
  T.Unsafe<V>({ type: "string", enum: [...values], ...options });

/** Every error body: a message for people and a stable snake_case code for programs. */
export const ErrorBody = T.Object(
  {
    error: T.String({ description: "A message for people; may change." }),
    code: OneOf(ERROR_CODES, { description: "A stable code for programs to switch on." }),
    requestId: T.Optional(
      T.String({ description: "On 500 `internal`: the id of the log line that tells what happened." }),
    ),
    reason: T.Optional(
      OneOf(SESSION_END_REASONS, {
        description: "On a refused `/auth/refresh`: why the session is gone.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ERROR_REF = "#/components/schemas/Error";

/** The public listener's credentials, by the names of its security schemes (publicDocument in ../responses.ts). */
export const SESSION_COOKIE = { sessionCookie: [] as string[] };
export const BEARER_TOKEN = { bearerToken: [] as string[] };
/** In a security list: the call may also be made without a credential. */
export const NO_CREDENTIAL = {};

/** An object with exactly these fields: a documented shape lists every field the answer has. */
export const Shape = <P extends TProperties>(properties: P, description?: string) =>
  T.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

export const Ok = named("Ok", Shape({ ok: T.Literal(true) }));
export const DateTime = T.String({ format: "date-time" });
export const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 429 | 431 | 500 | 501 | 502 | 503;

/** What each status means here, with the codes it carries (a route answers those that apply to it). */
const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: "Invalid request: a field, the query, a parameter or the JSON (`invalid_request`, `invalid_json`, and the route's own codes).",
  401: "No valid credential (`unauthenticated`, `unknown_client`).",
  403: "Refused: the CSRF header is missing (`csrf_required`), the origin is not the credential's app's (`origin_not_allowed`), the caller's account has been deleted (`account_deleted`), or the rules refuse (`forbidden` and the route's own codes).",
  404: "Not found (`not_found` and the route's own codes).",
  408: "The request body did not arrive within its time bound (`request_timeout`).",
  409: "Conflicts with the current state (`already_member`, `already_pending`, `pending_membership`, `already_linked`).",
  413: "The request body is larger than 64 KiB (`payload_too_large`).",
  415: "The request body is not JSON (`unsupported_media_type`).",
  429: "Too many calls: the app's budget or the user's share of it (`budget_exceeded`), or pending invites (`too_many_pending_invites`). See Retry-After.",
  431: "The request headers are larger than 12 KiB (`headers_too_large`).",
  500: "Something went wrong on the gateway's side (`internal`, with a `requestId`).",
  501: "The identity provider has no consent API for the gateway (`not_supported_by_provider`).",
  502: "The identity provider failed or could not be reached (`idp_unavailable`, `id_token_invalid`).",
  503: "Not available now: no identity provider or Kratos is configured, the admin API is disabled, or the database is busy or unavailable (see Retry-After).",
};

export const json = (schema: TSchema, description = "Success.", headers?: Response["headers"]): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: schema as unknown as Schema } },
});

/** The session cookie (and its chunks) set or cleared. */
export const SETS_COOKIE: Response["headers"] = {
  "set-cookie": { description: "The session cookie, set or cleared.", schema: { type: "string" } },
};

/** A non-JSON answer (a page, a script, metrics, an event stream). */
export const media = (type: string, description: string): Response => ({
  description,
  content: { [type]: { schema: { type: "string" } } },
});

export const redirect = (description: string): Response => ({
  description,
  headers: { location: { description: "Where to go next.", schema: { type: "string" } } },
});

export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The answers that are not `{error, code}`: the success, a redirect, a page. */
  responses: { [status: number]: Response; default?: Response };
  /** The `{error, code}` answers this route gives (the document adds what plumbing answers on every route). */
  errors: ErrorStatus[];
  security?: DocumentDecoration["security"];
  requestBody?: DocumentDecoration["requestBody"];
}

/** A route's `detail`: its answers, then its `{error, code}` errors (joined with a non-JSON answer of the same status). */
export function operation(doc: OperationDoc): DocumentDecoration {
  const { responses, errors, ...rest } = doc;
  return { ...rest, responses: withErrors(responses, errors) };
}

export function withErrors(responses: Responses, statuses: readonly ErrorStatus[]): Responses {
  const all: Responses = { ...responses };
  for (const status of statuses) {
    const existing = all[status] as Response | undefined;
    const content = { "application/json": { schema: { $ref: ERROR_REF } } };
    all[status] = existing
      ? { ...existing, content: { ...existing.content, ...content } }
      : { description: ERROR_TEXT[status], content };
  }
  return all;
}
