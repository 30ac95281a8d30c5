/**
 * The refusal table (domain/refusals.ts) is the one place a code gets its status and its words: every
 * code answers with an error status and a message for each of its cases, a code whose text depends on
 * its facts gives each case its own text, and the lists generated from the table (the OpenAPI
 * `Error.code` enum, the SDK's code union) hold exactly its codes, plus the few codes that are not
 * refusals (`/readyz`'s `not_ready`, the load balancer's own errors).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { API_ERROR_CODES } from "../../packages/sdk/src/codes.gen.ts";
import { SESSION_END_REASONS } from "../../src/server/auth/session-end.ts";
import { Refusal, type RefusalDetails } from "../../src/server/domain/refusal.ts";
import { REFUSAL_CODES, REFUSALS, type RefusalCode } from "../../src/server/domain/refusals.ts";
import { ERROR_CODES, errorBody, headersOf, statusOf } from "../../src/server/http/errors.ts";

/** Every case of every code: a code missing here does not compile. */
const CASES: { [C in RefusalCode]: Array<RefusalDetails<C>> } = {
  invalid_json: [[]],
  invalid_request: [[{ field: "name", why: "is required" }], [{ appsFile: "apps[0].id: is required" }]],
  payload_too_large: [[]],
  headers_too_large: [[]],
  request_timeout: [[{ during: "body" }], [{ during: "token_check" }]],
  unsupported_media_type: [[]],
  not_found: [[], [{ what: "route" }], [{ what: "session" }], [{ what: "pending" }], [{ what: "user_data" }]],
  unauthenticated: [
    [],
    [{ about: "admin_token" }],
    [{ about: "access_expired" }],
    ...SESSION_END_REASONS.filter((reason) => reason !== "deleted").map(
      (about): RefusalDetails<"unauthenticated"> => [{ about }],
    ),
  ],
  csrf_required: [[]],
  origin_not_allowed: [[]],
  account_deleted: [[]],
  reauthentication_required: [[]],
  user_deleted: [[]],
  admin_disabled: [[]],
  budget_exceeded: [[{ limit: 10 }], [{ limit: 10, allowance: 1 }]],
  idp_unavailable: [[], [{ about: "own_token_refused" }]],
  issuer_not_configured: [[]],
  kratos_not_configured: [[]],
  not_supported_by_provider: [[]],
  invalid_redirect_uri: [
    [{ clientId: "web", redirectUri: "https://evil.example/cb" }],
    [{ clientId: "web", redirectUri: "https://evil.example/cb", registeredRedirectUris: [] }],
  ],
  unknown_client: [[{ clientId: "web", credential: "sign_in" }], [{ clientId: "web", credential: "bearer" }]],
  exchange_failed: [[{ providerError: "invalid_grant" }]],
  invalid_id_token: [[{ about: "audiences" }], [{ about: "azp" }]],
  invalid_nonce: [[{ about: "mismatch" }], [{ about: "unexpected" }], [{ about: "no_id_token" }]],
  id_token_invalid: [[{ about: "signature" }], [{ about: "subject" }]],
  invalid_subject: [[]],
  consent_not_found: [[]],
  consent_not_bound: [[]],
  subject_mismatch: [[]],
  invalid_scope: [[{ notRequested: ["admin"] }]],
  forbidden: [[], [{ about: "roster" }]],
  unknown_type: [[]],
  reserved_type: [[]],
  invalid_role: [[]],
  role_above_ceiling: [[]],
  already_member: [[]],
  already_pending: [[]],
  too_many_pending_invites: [[]],
  no_pending_invite: [[]],
  no_pending_request: [[]],
  not_public: [[]],
  pending_membership: [[], [{ autoJoin: true }]],
  target_is_owner: [[]],
  insufficient_rank: [[]],
  owner_cannot_leave: [[]],
  not_a_member: [[]],
  app_resource_undeletable: [[]],
  app_resource_untransferable: [[]],
  no_pending_offer: [[]],
  already_linked: [[]],
  database_busy: [[]],
  database_unavailable: [[]],
  internal: [[]],
};

const refusals = (code: RefusalCode): Refusal[] =>
  (CASES[code] as unknown[][]).map((details) => new (Refusal as any)(code, ...details));

describe("the refusal table", () => {
  test("every code has an error status and a message for each of its cases", () => {
    const wrong = REFUSAL_CODES.flatMap((code) =>
      refusals(code)
        .filter((refusal) => {
          const status = statusOf(refusal);
          return !(Number.isInteger(status) && status >= 400 && status < 600 && /\S/.test(refusal.message));
        })
        .map((refusal) => `${code}: ${statusOf(refusal)} ${JSON.stringify(refusal.message)}`),
    );
    expect(wrong).toEqual([]);
  });

  test("a code whose answer depends on its facts gives each case its own text or status", () => {
    for (const code of REFUSAL_CODES) {
      const texts = refusals(code).map((refusal) => `${statusOf(refusal)} ${refusal.message}`);
      expect({ code, distinct: new Set(texts).size }).toEqual({ code, distinct: texts.length });
    }
  });

  test("a status chosen by the facts: pending_membership refuses a join 409, a write's auto-join 403; an unknown client at sign-in 400, as a bearer token 401", () => {
    expect(refusals("pending_membership").map(statusOf)).toEqual([409, 403]);
    expect(refusals("unknown_client").map(statusOf)).toEqual([400, 401]);
  });

  test("the answer: body {error, code} with the refusal's own fields, Retry-After and Connection from its facts", () => {
    const refresh = new Refusal("unauthenticated", { about: "revoked", body: { reason: "revoked" } });
    expect(errorBody(refresh)).toEqual({
      reason: "revoked",
      error: "Your session was revoked: sign in again.",
      code: "unauthenticated",
    });
    expect(headersOf(refresh)).toEqual({});
    const busy = new Refusal("database_busy", { retryAfterSeconds: 1 });
    expect([statusOf(busy), headersOf(busy), errorBody(busy, "req-1")]).toEqual([
      503,
      { "retry-after": "1" },
      { error: "The database is busy: retry in a moment.", code: "database_busy", requestId: "req-1" },
    ]);
    expect(headersOf(new Refusal("request_timeout", { during: "body", endsConnection: true }))).toEqual({
      connection: "close",
    });
    // A 4xx never carries the request id; facts never reach the body.
    const denied = new Refusal("invalid_redirect_uri", {
      clientId: "web",
      redirectUri: "https://x.example/",
    });
    expect(errorBody(denied, "req-2")).toEqual({
      error: 'redirect_uri "https://x.example/" is not registered for client "web".',
      code: "invalid_redirect_uri",
    });
  });

  test("the OpenAPI enum is the table's codes; the SDK's union is the table's plus not_ready and the load balancer's own", () => {
    expect([...ERROR_CODES] as string[]).toEqual(Object.keys(REFUSALS).sort());
    const balancer = readFileSync(join(import.meta.dir, "../../deploy/haproxy/haproxy.cfg"), "utf8");
    const balancerCodes = [...balancer.matchAll(/^\s*http-error .*"code":"([a-z_]+)"/gm)].map((m) => m[1]!);
    expect([...API_ERROR_CODES] as string[]).toEqual(
      [...new Set([...REFUSAL_CODES, "not_ready", ...balancerCodes])].sort(),
    );
    expect(API_ERROR_CODES.filter((code) => !(code in REFUSALS)).sort() as string[]).toEqual(
      ["no_replica_available", "not_ready", "replica_failed", "replica_timeout"].sort(),
    );
  });
});
