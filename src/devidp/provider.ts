// oidc-provider (a certified OIDC implementation) configured to behave like Ory
// Hydra v2 on the wire: Hydra's public paths, PKCE S256 mandatory, opaque access
// tokens, single-use refresh tokens (reuse → invalid_grant + whole grant revoked,
// fosite flow_refresh.go), consent asked on EVERY authorization (Hydra always
// sends the browser to the consent app, with `skip` computed by us), and the login
// asked again unless the previous login was accepted with `remember: true`.
import { exportJWK, generateKeyPair } from "jose";
import type Provider from "oidc-provider";
import type { ClientMetadata, Configuration, KoaContextWithOIDC } from "oidc-provider";
import { escapeHtml } from "../server/http/page.ts";
import { type MemoryStore, memoryAdapterFactory } from "./adapter.ts";
import type { DevIdpState } from "./state.ts";

export interface ProviderClient {
  clientId: string;
  redirectUris: string[];
  clientSecret?: string;
  clientName?: string;
  /** Where back-channel logouts go (`backchannel_logout_uri`). */
  backchannelLogoutUri?: string;
  /** Logout tokens (and ID tokens) carry `sid` (`backchannel_logout_session_required`); default true. */
  backchannelLogoutSessionRequired?: boolean;
  /** Where end_session may send the browser back (`post_logout_redirect_uris`). */
  postLogoutRedirectUris?: string[];
}

export interface ProviderSettings {
  issuer: string;
  clients: ProviderClient[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  state: DevIdpState;
  store: MemoryStore;
}

type OidcModule = typeof import("oidc-provider");
let loaded: Promise<OidcModule> | undefined;

/** Imports oidc-provider once, hiding its (harmless, known) "Unsupported runtime" warning under Bun. */
function loadOidcProvider(): Promise<OidcModule> {
  loaded ??= (async () => {
    const original = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].includes("Unsupported runtime")) return;
      original(...args);
    };
    try {
      return await import("oidc-provider");
    } finally {
      console.warn = original;
    }
  })();
  return loaded;
}

export const OFFLINE_SCOPES = ["offline_access", "offline"];

/**
 * oidc-provider (per OIDC Core §11) drops `offline_access` unless `prompt=consent` is
 * sent; Hydra does not. index.ts adds `consent` to `prompt` for such authorization
 * requests (consent is asked every time anyway) and records the client's original
 * prompt ("-" = none) in this parameter; hydra-admin.ts restores it in `request_url`
 * and ignores the injected `consent` when computing `skip`.
 */
export const INJECTED_PROMPT_PARAM = "devidp_prompt_injected";
/** A field of this provider's discovery document that no real provider publishes. */
export const DEVELOPMENT_PROVIDER_MARKER = "session_gateway_development_provider";

function clientMetadata(client: ProviderClient): ClientMetadata {
  const base: ClientMetadata = {
    client_id: client.clientId,
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    ...(client.clientName ? { client_name: client.clientName } : {}),
    ...(client.postLogoutRedirectUris ? { post_logout_redirect_uris: client.postLogoutRedirectUris } : {}),
    ...(client.backchannelLogoutUri
      ? {
          backchannel_logout_uri: client.backchannelLogoutUri,
          backchannel_logout_session_required: client.backchannelLogoutSessionRequired ?? true,
        }
      : {}),
  };
  return client.clientSecret
    ? { ...base, client_secret: client.clientSecret, token_endpoint_auth_method: "client_secret_basic" }
    : { ...base, token_endpoint_auth_method: "none" };
}

export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  const { default: ProviderClass, interactionPolicy } = await loadOidcProvider();
  const { state } = settings;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: "RS256", use: "sig" };

  // Login: besides "no session", ask again when the last login was not remembered
  // (Hydra's `remember: false`, the default of our login page).
  const policy = interactionPolicy.base();
  policy
    .get("login")
    ?.checks.add(
      new interactionPolicy.Check("not_remembered", "End-User authentication is required", (ctx) =>
        ctx.oidc.session?.transient === true && !ctx.oidc.result?.login
          ? interactionPolicy.Check.REQUEST_PROMPT
          : interactionPolicy.Check.NO_NEED_TO_PROMPT,
      ),
      0,
    );

  const randomKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const hasOffline = (scopes: Set<string>) => OFFLINE_SCOPES.some((s) => scopes.has(s));

  const configuration: Configuration = {
    adapter: memoryAdapterFactory(settings.store),
    clients: settings.clients.map(clientMetadata),
    jwks: { keys: [jwk] },
    cookies: { keys: [randomKey(), randomKey()] },
    scopes: ["openid", "offline_access", "offline", "profile", "email"],
    extraParams: [INJECTED_PROMPT_PARAM],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name", "preferred_username", "given_name", "family_name", "picture", "updated_at"],
    },
    routes: {
      authorization: "/oauth2/auth",
      token: "/oauth2/token",
      revocation: "/oauth2/revoke",
      userinfo: "/userinfo",
      jwks: "/.well-known/jwks.json",
      end_session: "/oauth2/sessions/logout",
    },
    pkce: { required: () => true }, // S256 only (oidc-provider 9 default)
    // How `gateway token` tells this provider from a real one: it refuses any other.
    discovery: { [DEVELOPMENT_PROVIDER_MARKER]: true },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: false }, // Hydra's introspection is an admin endpoint; see hydra-admin.ts
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: { enabled: false },
      rpInitiatedLogout: { enabled: true },
      // Logging out (end_session, or the admin API's login-session delete) tells each client's server.
      backchannelLogout: { enabled: true },
    },
    rotateRefreshToken: true,
    conformIdTokenClaims: false, // Hydra puts the consent's session.id_token claims into the ID token
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed("refresh_token") && hasOffline(code.scopes),
    expiresWithSession: async () => false,
    // Hydra never reuses an earlier grant silently: consent is asked every time. The
    // grant is only "existing" when resuming right after our finish route saved it.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: {
      policy,
      url: async (_ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    findAccount: async (ctx: KoaContextWithOIDC, sub: string, token) => ({
      accountId: sub,
      claims: async () => {
        const grantId = token?.grantId ?? ctx.oidc.entities.Grant?.jti;
        const extra = grantId ? state.grantExtras.get(grantId)?.idToken : undefined;
        return { ...extra, sub };
      },
    }),
    ttl: {
      AccessToken: settings.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: settings.refreshTokenTtlSeconds,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: settings.refreshTokenTtlSeconds,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
    },
    clientBasedCORS: () => false,
    renderError: async (ctx, out) => {
      ctx.type = "html";
      const items = Object.entries(out)
        .map(([k, v]) => `<li><b>${escapeHtml(k)}</b>: ${escapeHtml(String(v))}</li>`)
        .join("");
      ctx.body = `<!doctype html><title>Dev IdP error</title><h1>Development identity provider: error</h1><ul>${items}</ul>`;
    },
  };

  const provider = new ProviderClass(settings.issuer, configuration);

  // Count requests per endpoint and normalise the token response to Hydra's shape.
  provider.use(async (ctx, next) => {
    await next();
    const route = (ctx as unknown as KoaContextWithOIDC).oidc?.route;
    if (route === "token") {
      const grantType = (ctx as unknown as KoaContextWithOIDC).oidc.params?.grant_type;
      state.count(`token:${typeof grantType === "string" ? grantType : "unknown"}`);
      const body = ctx.body as Record<string, unknown> | undefined;
      if (ctx.status === 200 && body && typeof body === "object" && body.token_type === "Bearer") {
        body.token_type = "bearer";
      }
    } else if (route === "revocation") {
      state.count("revoke");
    } else if (route === "userinfo") {
      state.count("userinfo");
    }
  });

  // Hydra's authorization response carries the granted `scope` next to `code` and `state`.
  provider.on("authorization.success", (ctx, out) => {
    const scope = ctx.oidc.entities.AuthorizationCode?.scope;
    if (out?.code && scope) out.scope = scope;
  });

  return provider;
}
