/**
 * The provider's metadata: OpenID Connect Discovery (`/.well-known/openid-configuration`), completed by
 * RFC 8414 authorization-server metadata (`/.well-known/oauth-authorization-server`) for what the first
 * leaves out, and by explicit settings, which always win. Standards, not one provider's habits:
 *
 * - Same-origin redirects are followed (some providers answer the discovery URL with a 301 to a
 *   trailing slash); a redirect to another origin is refused.
 * - The document's `issuer` must be the configured OIDC_ISSUER (Discovery 4.3): a mismatch is refused,
 *   since ID tokens would then be checked against an issuer nobody configured.
 * - Revocation (RFC 7009): IDP_REVOCATION_URL, else the discovery or RFC 8414 `revocation_endpoint`.
 * - Introspection (RFC 7662): IDP_INTROSPECTION_URL; else, with Hydra's admin key and no introspection
 *   client, Hydra's admin path; else the discovery or RFC 8414 `introspection_endpoint`.
 */
import { fetchText, IdpUnavailable, unusableAnswer } from "./provider-fetch.ts";

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  userinfo_endpoint?: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  /** OpenID RP-Initiated Logout: where a browser is sent to end its login session at the provider. */
  end_session_endpoint?: string;
}

export interface EndpointSettings {
  issuer: string;
  revocationUrl?: string;
  introspectionUrl?: string;
  /** Hydra's admin base URL: with the admin key and no introspection client, its introspection path. */
  hydraAdmin?: { url: string; hasKey: boolean; hasIntrospectionClient: boolean };
}

export interface ResolvedMetadata extends Discovery {
  /** Where each endpoint came from, for the start-up log. */
  sources: { revocation: string; introspection: string };
}

export class IssuerMismatch extends IdpUnavailable {}

const MAX_REDIRECTS = 3;

/** GET a JSON document, following same-origin redirects only. */
export async function fetchJsonFollowing(
  url: string,
  timeoutMs: number,
): Promise<{ status: number; body: unknown; url: string; durationMs: number }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const { status, headers, text, durationMs } = await fetchText(
      current,
      { headers: { accept: "application/json" } },
      timeoutMs,
    );
    const location = headers.get("location");
    if (status >= 300 && status < 400 && location) {
      const next = new URL(location, current);
      if (next.origin !== new URL(current).origin)
        throw unusableAnswer(
          `${current} redirects to another origin (${next.origin})`,
          current,
          status,
          durationMs,
        );
      if (hop >= MAX_REDIRECTS)
        throw unusableAnswer(`${url}: more than ${MAX_REDIRECTS} redirects`, current, status, durationMs);
      current = next.toString();
      continue;
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw unusableAnswer(
        `${current} answered ${status} with something that is not JSON`,
        current,
        status,
        durationMs,
      );
    }
    return { status, body, url: current, durationMs };
  }
}

const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** RFC 8414 §3: the well-known suffix goes between the host and the issuer's path. */
function authorizationServerMetadataUrl(issuer: string): string {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/oauth-authorization-server${path}`;
}

export async function resolveMetadata(
  settings: EndpointSettings,
  timeoutMs: number,
): Promise<ResolvedMetadata> {
  const discoveryUrl = `${settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const { status, body, url, durationMs } = await fetchJsonFollowing(discoveryUrl, timeoutMs);
  const doc = body as Partial<Discovery> | undefined;
  if (
    status !== 200 ||
    typeof doc?.authorization_endpoint !== "string" ||
    typeof doc.token_endpoint !== "string"
  )
    throw unusableAnswer(
      `discovery at ${discoveryUrl} answered ${status} without the required endpoints`,
      url,
      status,
      durationMs,
    );
  if (typeof doc.issuer !== "string" || !sameIssuer(doc.issuer, settings.issuer))
    throw new IssuerMismatch(
      `discovery says the issuer is "${doc.issuer}", not OIDC_ISSUER "${settings.issuer}"`,
    );
  let extra: Partial<Discovery> = {};
  if (!doc.revocation_endpoint || !doc.introspection_endpoint) {
    // Optional: a provider without RFC 8414 metadata simply adds nothing.
    const fallback = await fetchJsonFollowing(
      authorizationServerMetadataUrl(settings.issuer),
      timeoutMs,
    ).catch(() => undefined);
    const as = fallback?.status === 200 ? (fallback.body as Partial<Discovery>) : undefined;
    if (as && typeof as.issuer === "string" && sameIssuer(as.issuer, settings.issuer)) extra = as;
  }
  const discovered = { ...doc, issuer: doc.issuer } as Discovery;
  const revocation = pick([
    [settings.revocationUrl, "IDP_REVOCATION_URL"],
    [doc.revocation_endpoint, "discovery"],
    [extra.revocation_endpoint, "RFC 8414 metadata"],
  ]);
  const hydra = settings.hydraAdmin;
  const introspection = pick([
    [settings.introspectionUrl, "IDP_INTROSPECTION_URL"],
    [
      hydra?.hasKey && !hydra.hasIntrospectionClient ? `${hydra.url}/admin/oauth2/introspect` : undefined,
      "Hydra's admin API (IDP_ADMIN_URL)",
    ],
    [doc.introspection_endpoint, "discovery"],
    [extra.introspection_endpoint, "RFC 8414 metadata"],
  ]);
  return {
    ...discovered,
    revocation_endpoint: revocation.url,
    introspection_endpoint: introspection.url,
    sources: { revocation: revocation.source, introspection: introspection.source },
  };
}

function pick(candidates: Array<[string | undefined, string]>): { url: string | undefined; source: string } {
  for (const [url, source] of candidates) if (typeof url === "string" && url !== "") return { url, source };
  return { url: undefined, source: "none" };
}
