/**
 * What the routes app.ts declares itself answer, and each listener's OpenAPI document: its title and
 * how callers authenticate (documentation only: see http/operation-docs.ts).
 */
import { Type as T } from "@sinclair/typebox";
import { DeletionReport, UserExport } from "./accounts/responses.ts";
import type { DocumentOptions } from "./http/openapi.ts";
import { named } from "./http/openapi-components.ts";
import { json, media, operation, Shape } from "./http/operation-docs.ts";
import { EITHER_CREDENTIAL } from "./resources/responses.ts";

const Worker = T.Integer({ minimum: 1, description: "Under `serve --workers N`: which worker answered." });
const ReadinessChecks = named(
  "ReadinessChecks",
  Shape({
    database: T.Union([T.Literal("ok"), T.Literal("unreachable"), T.Literal("not_migrated")]),
    provider: T.Union([T.Literal("ok"), T.Literal("unreachable"), T.Literal("not_configured")]),
  }),
);

export const appDocs = {
  deleteMe: operation({
    operationId: "deleteMyAccount",
    summary:
      "Delete the caller's account (as `DELETE /admin/v1/users/:id` does) and clear the session cookie. Needs a cookie session signed in within the last 10 minutes, else 403 `reauthentication_required` (sign in again with `prompt=login`)",
    tags: ["auth"],
    security: EITHER_CREDENTIAL,
    responses: { 200: json(DeletionReport) },
    errors: [400, 401, 403, 429, 502, 503],
  }),
  meExport: operation({
    operationId: "exportMyData",
    summary:
      "Everything this service holds about the caller in the caller's app, as one JSON document (streamed): sessions (never a token), memberships (a pending request on a members-only resource without its name), resources owned, pending invites and ownership offers, credits, linked and retained rows, and the audit events about them (without other users' ids inside their data)",
    tags: ["auth"],
    security: EITHER_CREDENTIAL,
    responses: { 200: json(UserExport) },
    errors: [400, 401, 403, 429, 502, 503],
  }),
  health: operation({
    operationId: "getHealth",
    summary: "The process is up",
    tags: ["health"],
    responses: { 200: json(Shape({ ok: T.Literal(true) })) },
    errors: [],
  }),
  ready: operation({
    operationId: "getReadiness",
    summary:
      "For a load balancer: 200 while the database answers and is migrated and the provider's discovery is loaded, else 503 `not_ready` naming the failed check",
    tags: ["health"],
    responses: {
      200: json(Shape({ ready: T.Literal(true), checks: ReadinessChecks, worker: T.Optional(Worker) })),
      503: json(
        Shape({
          error: T.String(),
          code: T.Literal("not_ready"),
          checks: ReadinessChecks,
          worker: T.Optional(Worker),
        }),
        "Not ready: the `{error, code}` of every refusal, with the state of each check.",
      ),
    },
    errors: [],
  }),
  landingPage: operation({
    operationId: "getLandingPage",
    summary: "The landing page: sign in and out",
    tags: ["pages"],
    responses: { 200: media("text/html", "The page.") },
    errors: [],
  }),
  landingScript: operation({
    operationId: "getLandingScript",
    summary: "The landing page's script",
    tags: ["pages"],
    responses: { 200: media("text/javascript", "The script.") },
    errors: [],
  }),
  me: operation({
    operationId: "getMe",
    summary: "Who the gateway thinks the caller is, with either credential",
    tags: ["auth"],
    security: EITHER_CREDENTIAL,
    responses: {
      200: json(
        named(
          "Caller",
          Shape({
            userId: T.String(),
            clientId: T.Union([T.String(), T.Null()]),
            appId: T.String(),
            via: T.Union([T.Literal("cookie"), T.Literal("bearer")]),
          }),
        ),
      ),
    },
    errors: [401, 403, 429, 502, 503],
  }),
};

export function publicDocument(cookieName: string): DocumentOptions {
  return {
    title: "Session gateway",
    description:
      "The public listener: sign-in through the identity provider (/auth), resources and membership (/v1). Every error is `{error, code}`.",
    securitySchemes: {
      sessionCookie: {
        type: "apiKey",
        in: "cookie",
        name: cookieName,
        description:
          "The httpOnly session cookie /auth/token sets. State-changing calls with it also send `X-Service-Csrf: 1`.",
      },
      bearerToken: {
        type: "http",
        scheme: "bearer",
        description: "An access token of the identity provider, for servers (no CSRF header needed).",
      },
      csrfHeader: {
        type: "apiKey",
        in: "header",
        name: "X-Service-Csrf",
        description:
          "Always `1`: every POST to /auth, and every state-changing call made with the session cookie. A custom header makes the browser ask CORS first, which only registered origins pass.",
      },
    },
    stateChangingHeader: { scheme: "csrfHeader", exceptWith: "bearerToken" },
  };
}

export const ADMIN_DOCUMENT: DocumentOptions = {
  title: "Session gateway admin API",
  description:
    "The admin listener, for operators and data services. Every call needs the admin token, this document's too. Every error is `{error, code}`.",
  securitySchemes: {
    adminToken: { type: "http", scheme: "bearer", description: "ADMIN_TOKEN, compared in constant time." },
  },
  security: [{ adminToken: [] }],
  // Before any route: no token or a wrong one (401), no ADMIN_TOKEN configured (503 `admin_disabled`).
  errors: [401, 503],
};
