/**
 * Every refusal the gateway answers with, in one table: its stable code (what clients switch on), the
 * HTTP status it is answered with, and the words a person reads. The status and the words are the
 * table's alone: a module refuses by code and facts (`new Refusal("not_found", { what: "session" })`),
 * never by status or message, so one code answers the same everywhere and nothing drifts. The OpenAPI
 * `Error.code` enum and the SDK's code union are generated from these keys.
 *
 * A code with more than one text picks it from its facts (what was not found, which sign-in check
 * failed); a status that depends on the case does the same (`pending_membership` is 403 when it refuses
 * a write's auto-join, 409 when it refuses a join). Facts are domain words, never HTTP.
 */

/** What `/auth/refresh` says when it found no live session (session-end.ts's reasons, but `deleted`). */
const SESSION_ENDED = {
  signed_out: "You signed out: sign in again.",
  revoked: "Your session was revoked: sign in again.",
  expired: "Your session expired: sign in again.",
  reused: "Your session was ended because its credentials were used from somewhere else: sign in again.",
  replaced: "A newer sign-in in this browser replaced this session.",
  provider_logout: "You signed out at the identity provider: sign in again.",
  signed_out_elsewhere: "You signed this device out from another one: sign in again.",
  no_session: "No valid session: sign in again.",
} as const;

const UNAUTHENTICATED = {
  credential: "Sign in or send a valid bearer token.",
  admin_token:
    "The admin API needs the operator's token: send Authorization: Bearer <ADMIN_TOKEN>, the value this gateway was started with.",
  access_expired: "The access token has expired: call POST /auth/refresh and retry.",
  ...SESSION_ENDED,
} as const;

const NOT_FOUND = {
  resource: "No such resource.",
  route: "No such route.",
  session: "No live session with that id.",
  pending: "No pending invite or request for that user on that resource.",
  user_data: "This service holds nothing about that user.",
} as const;

const ID_TOKEN = {
  audiences: "The ID token has several audiences and no azp.",
  azp: "The ID token was issued to another client (azp).",
} as const;

const NONCE = {
  mismatch: "The ID token's nonce is not the one this sign-in sent.",
  unexpected: "The ID token carries a nonce but none was sent with the code.",
  no_id_token: "A nonce was sent but the provider returned no ID token.",
} as const;

/** A URI shown in a message: quoted, and cut at 300 characters. */
const shown = (uri: string) => JSON.stringify(uri.length > 300 ? `${uri.slice(0, 300)}…` : uri);

export const REFUSALS = {
  // The request itself
  invalid_json: { status: 400, message: "The request body is not valid JSON." },
  invalid_request: {
    status: 400,
    /** A field and why it is refused, or an apps file's own problem (it names the field itself). */
    message: (f: { field: string; why: string } | { appsFile: string }) =>
      "appsFile" in f ? f.appsFile : `Invalid request: ${f.field} ${f.why}.`,
  },
  payload_too_large: { status: 413, message: "The request body is larger than 64 KiB." },
  headers_too_large: { status: 431, message: "The request headers are larger than 12 KiB in total." },
  request_timeout: {
    status: 408,
    message: (f: { during: "body" | "token_check" }) =>
      f.during === "body"
        ? "The request body did not arrive in time."
        : "The request ended before its bearer token was checked.",
  },
  unsupported_media_type: {
    status: 415,
    message: "Send the body as JSON (Content-Type: application/json).",
  },
  not_found: {
    status: 404,
    message: (f?: { what: keyof typeof NOT_FOUND }) => NOT_FOUND[f?.what ?? "resource"],
  },
  // The caller
  unauthenticated: {
    status: 401,
    message: (f?: { about: keyof typeof UNAUTHENTICATED }) => UNAUTHENTICATED[f?.about ?? "credential"],
  },
  csrf_required: {
    status: 403,
    message: "State-changing calls with a session cookie need the header X-Service-Csrf: 1.",
  },
  origin_not_allowed: {
    status: 403,
    message: "This origin is not registered for the app this credential belongs to.",
  },
  account_deleted: {
    status: 403,
    message:
      "This account has been deleted. A person returns only as a new account of the identity provider.",
  },
  reauthentication_required: {
    status: 403,
    message:
      "Deleting the account needs a recent sign-in: sign in again (prompt=login) and retry within 10 minutes.",
  },
  user_deleted: { status: 404, message: "That user's account has been deleted." },
  admin_disabled: { status: 503, message: "The admin API is disabled: set ADMIN_TOKEN." },
  budget_exceeded: {
    status: 429,
    /** `allowance`: the user's share was spent (not the whole app's budget). */
    message: (f: { limit: number; allowance?: number }) =>
      f.allowance === undefined
        ? `This app's budget of ${f.limit} requests per minute is spent.`
        : `Your share of this app's budget (${f.allowance} of ${f.limit} requests per minute) is spent.`,
  },
  // Sign-in and the identity provider
  idp_unavailable: {
    status: 502,
    message: (f?: { about: "own_token_refused" }) =>
      f?.about === "own_token_refused"
        ? "The identity provider did not accept its own access token."
        : "The identity provider could not be reached.",
  },
  issuer_not_configured: {
    status: 503,
    message: "No identity provider is configured (OIDC_ISSUER).",
  },
  kratos_not_configured: { status: 503, message: "No Kratos is configured (KRATOS_PUBLIC_URL)." },
  not_supported_by_provider: {
    status: 501,
    message:
      "This identity provider has no consent API for the gateway (IDP_CONSENT_API=none): it shows its own consent.",
  },
  invalid_redirect_uri: {
    status: 400,
    /** `registeredRedirectUris` only in development (they describe the deployment). */
    message: (f: { clientId: string; redirectUri: string; registeredRedirectUris?: readonly string[] }) => {
      const registered = f.registeredRedirectUris;
      const known = registered?.length
        ? ` Registered for it: ${registered.map(shown).join(", ")}.`
        : registered
          ? " It has no registered redirect URI."
          : "";
      return `redirect_uri ${shown(f.redirectUri)} is not registered for client "${f.clientId}".${known}`;
    },
  },
  unknown_client: {
    /** A bearer token's client: the credential is refused (401); at sign-in, the request (400). */
    status: (f: { clientId: string; credential: "bearer" | "sign_in" }) =>
      f.credential === "bearer" ? 401 : 400,
    message: (f: { clientId: string; credential: "bearer" | "sign_in" }) =>
      `Unknown client_id "${f.clientId}".`,
  },
  exchange_failed: {
    status: 400,
    message: (f: { providerError: string }) =>
      `The identity provider refused the code exchange (${f.providerError}).`,
  },
  invalid_id_token: { status: 400, message: (f: { about: keyof typeof ID_TOKEN }) => ID_TOKEN[f.about] },
  invalid_nonce: { status: 400, message: (f: { about: keyof typeof NONCE }) => NONCE[f.about] },
  id_token_invalid: {
    status: 502,
    message: (f: { about: "signature" | "subject" }) =>
      f.about === "signature"
        ? "The identity provider returned an ID token that does not verify."
        : "The identity provider's ID token names another user than its access token.",
  },
  invalid_subject: {
    status: 403,
    message:
      "The identity provider names this account with an id the gateway does not accept (control or invisible characters, or over 256 characters): ask the provider's operator.",
  },
  consent_not_found: {
    status: 404,
    message: "This consent request is unknown or has expired: start signing in again.",
  },
  consent_not_bound: {
    status: 403,
    message: "This consent request is open in another browser: decide there, or start signing in again here.",
  },
  subject_mismatch: { status: 403, message: "subject does not match the consent request's subject." },
  invalid_scope: {
    status: 400,
    message: (f: { notRequested: readonly string[] }) =>
      `grant_scope asks for scopes that were not requested: ${f.notRequested.join(" ")}.`,
  },
  // Resources and memberships (transitions.ts decides most of them)
  forbidden: {
    status: 403,
    message: (f?: { about: "roster" }) =>
      f?.about === "roster"
        ? "You may not see this roster."
        : "You are not allowed to do that on this resource.",
  },
  unknown_type: { status: 404, message: "Unknown resource type." },
  reserved_type: { status: 403, message: "This resource type is reserved." },
  invalid_role: { status: 400, message: "role must be reader, writer or admin." },
  role_above_ceiling: { status: 403, message: "That role is above what you may grant on this resource." },
  already_member: { status: 409, message: "That user is already a member." },
  already_pending: { status: 409, message: "That user already has a pending invite or request." },
  too_many_pending_invites: { status: 429, message: "You already have 50 pending invites in this app." },
  no_pending_invite: { status: 404, message: "There is no pending invite to accept or reject." },
  no_pending_request: { status: 404, message: "There is no pending request from that user." },
  not_public: {
    status: 403,
    message: "This resource is members-only: ask for an invite or send a request.",
  },
  pending_membership: {
    status: (f?: { autoJoin: true }) => (f?.autoJoin ? 403 : 409),
    message: "You have a pending invite or request here: accept it instead.",
  },
  target_is_owner: { status: 403, message: "The owner cannot be changed or removed." },
  insufficient_rank: { status: 403, message: "You can only act on members below your own role." },
  owner_cannot_leave: { status: 403, message: "The owner cannot leave the resource." },
  not_a_member: { status: 404, message: "Not a member of this resource." },
  app_resource_undeletable: { status: 403, message: "The app resource cannot be deleted." },
  app_resource_untransferable: {
    status: 403,
    message: "Resources owned by the app (_app and statics) never change owner.",
  },
  no_pending_offer: {
    status: 404,
    message: "There is no pending ownership offer to accept, decline or cancel.",
  },
  already_linked: {
    status: 409,
    message: "That row is already linked into this resource by another member.",
  },
  // The gateway itself
  database_busy: { status: 503, message: "The database is busy: retry in a moment." },
  database_unavailable: { status: 503, message: "The database cannot take writes right now: retry later." },
  internal: { status: 500, message: "Something went wrong on our side." },
} as const satisfies Record<string, RefusalEntry>;

/** A row of the table: a fixed status and text, or one chosen from the refusal's facts. */
interface RefusalEntry {
  status: number | ((facts: never) => number);
  message: string | ((facts: never) => string);
}

export type RefusalCode = keyof typeof REFUSALS;

/** Every code, sorted: the OpenAPI `Error.code` enum and the SDK's code union. */
export const REFUSAL_CODES = (Object.keys(REFUSALS) as RefusalCode[]).sort();
