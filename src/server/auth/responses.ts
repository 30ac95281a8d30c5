/**
 * What each /auth route answers, for the OpenAPI document (documentation only: see
 * http/operation-docs.ts). Tokens never appear in a body: the session is the httpOnly cookie.
 */
import { Type as T } from "@sinclair/typebox";
import { named } from "../http/openapi-components.ts";
import {
  json,
  media,
  NO_CREDENTIAL,
  OneOf,
  operation,
  redirect,
  SESSION_COOKIE,
  SETS_COOKIE,
  Shape,
} from "../http/operation-docs.ts";
import { SESSION_END_REASONS } from "./session-end.ts";

const Signed = named(
  "SignedIn",
  Shape({
    authenticated: T.Literal(true),
    user_id: T.String(),
    expires_in: T.Integer({ minimum: 0, description: "Seconds until the access token expires." }),
  }),
);

const ConsentRequestView = named(
  "ConsentRequest",
  Shape(
    {
      challenge: T.String(),
      subject: T.String(),
      client_id: T.String(),
      client_name: T.String(),
      requested_scope: T.Array(T.String()),
      requested_access_token_audience: T.Array(T.String()),
      is_new_user: T.Boolean(),
    },
    "The request to decide on.",
  ),
);
const Skipped = named(
  "ConsentSkipped",
  Shape({ skip: T.Literal(true), redirect_to: T.String() }, "A remembered consent, accepted."),
);
const Decided = named(
  "ConsentDecided",
  Shape({ redirect_to: T.String() }, "Already decided: where the browser goes next."),
);

/** `GET /auth/session`'s answer (the SDK's `Session` is this with `user_id` read as `userId`). */
const SessionReport = named(
  "SessionReport",
  Shape({
    authenticated: T.Boolean(),
    user_id: T.Optional(T.String()),
    reason: T.Optional(
      OneOf(SESSION_END_REASONS, {
        description: "Given when not signed in: why (the session this browser had, or `no_session`).",
      }),
    ),
  }),
);

/** `POST /auth/logout`'s answer: the three optional fields only with `everywhere: true`. */
const SignedOut = named(
  "SignedOut",
  Shape({
    ok: T.Literal(true),
    ended: T.Optional(
      T.Integer({ minimum: 0, description: "How many other sessions of the person in this app ended." }),
    ),
    provider_logout: T.Optional(
      T.Boolean({
        description: "True when `redirect_to` sends the browser to the provider's end_session_endpoint.",
      }),
    ),
    redirect_to: T.Optional(
      T.String({ description: "The provider's end_session_endpoint, with its parameters." }),
    ),
  }),
);

const PAGE = (description: string) => media("text/html", description);

export const authDocs = {
  session: operation({
    operationId: "getSession",
    summary: "Whether this browser is signed in (never calls the provider, never sets a cookie)",
    tags: ["auth"],
    security: [SESSION_COOKIE, NO_CREDENTIAL],
    responses: { 200: json(SessionReport) },
    errors: [403, 503],
  }),
  origin: operation({
    operationId: "checkOrigin",
    summary: "Whether the asking page's origin is registered for a client (readable from any origin)",
    tags: ["auth"],
    description:
      "A page whose origin is not registered gets no CORS grant, so its calls fail like an unreachable gateway; this answer, which any origin may read and which takes no credential, tells it why. Without `client_id`: registered for any client.",
    responses: {
      200: json(
        Shape({
          origin: T.Union([T.String(), T.Null()], { description: "The request's Origin header." }),
          allowed: T.Boolean({
            description: "The origin may use that client's credentials (true without an Origin).",
          }),
        }),
      ),
    },
    errors: [400],
  }),
  authorize: operation({
    operationId: "authorize",
    summary: "Start signing in: the checked query, forwarded to the provider's authorization endpoint",
    tags: ["auth"],
    description:
      "A browser that asks for HTML (its Accept header prefers text/html) gets each refusal as a page with the cause and a way forward; anything else gets `{error, code}`.",
    responses: {
      302: redirect("To the provider's authorization endpoint."),
      400: PAGE(
        "The request is invalid: a parameter off the allow-list (`request`, `request_uri`, `response_mode`, `registration`, `claims`, an unknown name) or given twice, no S256 challenge, or an unregistered redirect URI (named, and in development the registered ones).",
      ),
      502: PAGE("The provider could not be reached."),
      503: PAGE("No provider is configured."),
    },
    errors: [400, 502, 503],
  }),
  token: operation({
    operationId: "exchangeCode",
    summary: "Exchange the authorization code: starts the session (the cookie)",
    tags: ["auth"],
    description:
      "A subject whose account was deleted is refused with 403 `account_deleted` (its new grant is revoked at the provider): a person returns only as a new subject of the provider.",
    responses: { 200: json(Signed, "Signed in.", SETS_COOKIE) },
    errors: [400, 403, 502, 503],
  }),
  refresh: operation({
    operationId: "refreshSession",
    summary: "Rotate the session's tokens",
    tags: ["auth"],
    description:
      "A 401 carries `reason` beside `code`: why the session is gone (`signed_out`, `revoked`, `expired`, `reused`, `replaced` or `no_session`); a session the account's deletion ended answers 403 `account_deleted` with `reason: deleted`.",
    security: [SESSION_COOKIE],
    responses: { 200: json(Signed, "Refreshed.", SETS_COOKIE) },
    errors: [400, 401, 403, 502, 503],
  }),
  logout: operation({
    operationId: "endSession",
    summary: "Sign out: revoke the refresh token, end the session, clear the cookies",
    tags: ["auth"],
    security: [SESSION_COOKIE, NO_CREDENTIAL],
    description:
      "With `everywhere: true`, the person's other sessions in this app end too, and where the provider has an `end_session_endpoint` the answer's `redirect_to` is where the browser goes to end its login there (with `id_token_hint`, `client_id`, and the client's first post-logout redirect URI with `state`).",
    responses: { 200: json(SignedOut, "Signed out (also when there was no session).", SETS_COOKIE) },
    errors: [403, 503],
  }),
  backchannelLogout: operation({
    operationId: "receiveBackchannelLogout",
    summary:
      "OpenID Back-Channel Logout: the identity provider ends the sessions of a login session or a user",
    description:
      "Called by the identity provider, server to server (no cookie, no CSRF header): a form-encoded `logout_token`. The sessions it names end and their refresh tokens are revoked before the answer. Errors follow the specification (400 with `error: invalid_request` and an `error_description`), and carry the gateway's `code` too.",
    tags: ["auth"],
    security: [NO_CREDENTIAL],
    requestBody: {
      required: true,
      content: {
        "application/x-www-form-urlencoded": {
          schema: {
            type: "object",
            required: ["logout_token"],
            properties: { logout_token: { type: "string", description: "The signed logout token (a JWT)." } },
          },
        },
      },
    },
    responses: {
      200: {
        description: "Accepted: the sessions it names have ended (also when it names none). Empty body.",
      },
      400: json(
        Shape({
          error: T.Literal("invalid_request"),
          error_description: T.String(),
          code: T.Literal("invalid_request"),
        }),
        "The logout token (or the request carrying it) is refused; nothing changed.",
      ),
    },
    errors: [502, 503],
  }),
  kratosFlow: operation({
    operationId: "getKratosFlow",
    summary: "A Kratos self-service flow, relayed with Kratos' status and cookies",
    tags: ["auth"],
    responses: {
      200: json(T.Object({}), "Kratos' flow."),
      default: json(T.Object({}), "Kratos' own answer (403, 404, 410…), relayed."),
    },
    errors: [400, 502, 503],
  }),
  consentRequest: operation({
    operationId: "getConsentRequest",
    summary: "The consent request, bound to this browser on first load",
    tags: ["consent"],
    responses: { 200: json(T.Union([ConsentRequestView, Skipped, Decided])) },
    errors: [400, 403, 404, 501, 502, 503],
  }),
  acceptConsent: operation({
    operationId: "acceptConsent",
    summary: "Grant the consent (needs the consent nonce cookie of this browser)",
    tags: ["consent"],
    responses: {
      200: json(named("ConsentAccepted", Shape({ redirect_to: T.String(), welcomed: T.Boolean() }))),
    },
    errors: [400, 403, 404, 501, 502, 503],
  }),
  rejectConsent: operation({
    operationId: "rejectConsent",
    summary: "Refuse the consent (needs the consent nonce cookie of this browser)",
    tags: ["consent"],
    responses: { 200: json(Decided) },
    errors: [400, 403, 404, 501, 502, 503],
  }),
  consentPage: operation({
    operationId: "getConsentPage",
    summary: "The consent page (point Hydra's consent URL here)",
    tags: ["consent"],
    responses: {
      200: PAGE("The page."),
      302: redirect("A remembered consent: on to the provider."),
      400: PAGE("No consent_challenge."),
      403: PAGE("Open in another browser, or an account id the gateway refuses."),
      404: PAGE("Expired: the page offers to start again."),
      500: PAGE("Something went wrong."),
      501: PAGE("The provider shows its own consent."),
      502: PAGE("The provider could not be reached."),
      503: PAGE("No provider is configured."),
    },
    description: "Its refusals are pages when the browser asks for HTML, and `{error, code}` otherwise.",
    errors: [400, 403, 404, 501, 502, 503],
  }),
};
