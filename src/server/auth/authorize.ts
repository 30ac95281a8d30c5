/**
 * What `/auth/authorize` forwards to the provider: Authorization Code with PKCE (S256), nothing else.
 * Only the parameters in FORWARDED pass; any other is refused, never dropped in silence. A request
 * object (`request`, `request_uri`) would let the provider read a `redirect_uri`, response type or PKCE
 * method the gateway never checked, `response_mode` would change how the code travels back, and
 * `registration`/`claims`/unknown names ask for things the gateway does not pass on to anyone.
 * A parameter given twice is refused (RFC 6749 §3.1: parameters MUST NOT repeat), since the gateway and
 * the provider could each read a different copy (Hydra reads the first). With an apps file the client
 * and its redirect URI are required and checked; the query forwarded is rebuilt from the checked values.
 * An unregistered redirect URI is named in the refusal, and in development so are the registered ones
 * (opening the app at `localhost` when `127.0.0.1` is registered is otherwise a dead end).
 */
import { requireClient } from "../apps/clients.ts";
import type { AppRegistry } from "../apps/registry.ts";
import { Refusal } from "../domain/refusal.ts";

export interface AuthorizeCheckOptions {
  /** `gateway dev`: the refusal of an unregistered redirect URI lists the registered ones. */
  development?: boolean;
}

/** OAuth 2.0 and OpenID Connect authorization parameters that cannot undo the checks below. */
const FORWARDED: ReadonlySet<string> = new Set([
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "nonce",
  "prompt",
  "max_age",
  "login_hint",
  "ui_locales",
  "claims_locales",
  "acr_values",
  "display",
  "id_token_hint",
  "audience",
]);

/** Refused with their own reason: each could override what the gateway checked or how the code returns. */
const REQUEST_OBJECT =
  "is not accepted: a request object could override the checked redirect_uri, response type and PKCE";
const OVERRIDING: Readonly<Record<string, string>> = {
  request: REQUEST_OBJECT,
  request_uri: REQUEST_OBJECT,
  response_mode: "is not accepted: the code always returns in the redirect URI's query",
};

export function checkedAuthorizeQuery(
  apps: AppRegistry,
  params: URLSearchParams,
  options: AuthorizeCheckOptions = {},
): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of params) {
    if (!FORWARDED.has(name))
      throw new Refusal("invalid_request", {
        field: name.slice(0, 64),
        why: OVERRIDING[name] ?? `is not a parameter /auth/authorize forwards (${[...FORWARDED].join(", ")})`,
      });
    if (query.has(name))
      throw new Refusal("invalid_request", { field: name, why: "must not be given more than once" });
    query.set(name, value);
  }
  if (query.get("response_type") !== "code")
    throw new Refusal("invalid_request", { field: "response_type", why: "must be code" });
  if (!query.get("code_challenge"))
    throw new Refusal("invalid_request", { field: "code_challenge", why: "is required (PKCE)" });
  if (query.get("code_challenge_method") !== "S256")
    throw new Refusal("invalid_request", { field: "code_challenge_method", why: "must be S256" });
  const clientId = query.get("client_id");
  const redirectUri = query.get("redirect_uri");
  const strict = !apps.acceptsAnyClient;
  if (strict && !clientId) throw new Refusal("invalid_request", { field: "client_id", why: "is required" });
  if (strict && !redirectUri)
    throw new Refusal("invalid_request", { field: "redirect_uri", why: "is required" });
  if (clientId !== undefined) {
    const lookup = requireClient(apps, clientId, "sign_in");
    if (!apps.isRegisteredRedirect(lookup, redirectUri ?? "")) {
      const registered = options.development ? (lookup.client?.redirectUris ?? []) : undefined;
      throw new Refusal("invalid_redirect_uri", {
        clientId,
        redirectUri: redirectUri ?? "",
        registeredRedirectUris: registered,
      });
    }
  }
  return query;
}
