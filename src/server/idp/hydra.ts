/**
 * Client for Ory Hydra's public and admin HTTP APIs (v2 paths and wire shapes, as in Hydra's
 * OpenAPI spec). Public endpoints come from OIDC discovery; admin paths are
 * fixed (`/admin/oauth2/...`) under IDP_ADMIN_URL. Every call has one time bound (5 s) covering the
 * headers AND the body: reading the body is part of the call, so a provider that sends its headers and
 * then stalls or drops the connection is unreachable like any other. A network failure, a body that
 * never completes, a non-JSON answer or a 200 of the wrong shape becomes `IdpUnavailable`, which
 * routes map to 502 `idp_unavailable`.
 *
 * Token endpoint rules Hydra enforces: form-urlencoded bodies; `client_secret_basic` for a client with a
 * secret (RFC 6749 §2.3.1: id and secret form-urlencoded before base64), `client_id` in the body for a
 * public client.
 */

import { type ResolvedMetadata, resolveMetadata } from "./metadata.ts";
import { fetchText, IdpUnavailable, type ProviderCall, unusableAnswer } from "./provider-fetch.ts";

export { IdpUnavailable };

export interface TokenSet {
  accessToken: string;
  refreshToken: string | undefined;
  idToken: string | undefined;
  expiresIn: number;
  scope: string | undefined;
}

export interface ClientAuth {
  clientId: string;
  clientSecret?: string | undefined;
}

export type TokenResult = { ok: true; tokens: TokenSet } | { ok: false; status: number; error: string };

export interface ConsentRequest {
  challenge: string;
  subject: string;
  skip: boolean;
  requested_scope: string[];
  requested_access_token_audience: string[];
  client: { client_id: string; client_name?: string };
}

export type ConsentLookup =
  | { kind: "found"; request: ConsentRequest }
  | { kind: "used"; redirectTo: string }
  | { kind: "not_found" };

export type ConsentDecision =
  | { kind: "done"; redirectTo: string }
  | { kind: "used"; redirectTo: string }
  | { kind: "not_found" };

export type Introspection =
  | { active: false }
  /** `sub` is optional in RFC 7662: without it the subject comes from userinfo. */
  | {
      active: true;
      sub: string | undefined;
      clientId?: string;
      exp?: number;
      tokenUse?: string;
      /** Hydra's pairwise subject (`obfuscated_subject`): the `sub` of the ID tokens issued with the token. */
      obfuscatedSubject?: string;
    };

export interface HydraOptions {
  issuer: string | undefined;
  adminUrl: string | undefined;
  adminApiKey: string | undefined;
  /** IDP_REVOCATION_URL / IDP_INTROSPECTION_URL: explicit endpoints, over what metadata says. */
  revocationUrl?: string;
  introspectionUrl?: string;
  /** RFC 7662 client authentication for introspection (client_secret_basic). */
  introspectionClient?: ClientAuth;
  timeoutMs?: number;
}

/** "refused" carries why: the provider's status or the network error, for the log. */
export type RevocationResult =
  | { outcome: "revoked" | "unsupported" }
  | { outcome: "refused"; cause: string; call?: ProviderCall };

export class HydraClient {
  private discovery: Promise<ResolvedMetadata> | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly options: HydraOptions) {
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  get configured(): boolean {
    return this.options.issuer !== undefined;
  }

  /** Bearer tokens are introspected (which proves the client) when there is a credential for it. */
  get introspects(): boolean {
    return this.options.adminApiKey !== undefined || this.options.introspectionClient !== undefined;
  }

  /** Whether the Hydra consent admin API may be called (the base URL is known). */
  get adminUrl(): string | undefined {
    return this.options.adminUrl;
  }

  /** The provider's metadata (metadata.ts), fetched once; a failed fetch is forgotten so the next call retries. */
  discover(): Promise<ResolvedMetadata> {
    if (!this.discovery) {
      const adminUrl = this.options.adminUrl;
      this.discovery = resolveMetadata(
        {
          issuer: this.options.issuer!,
          revocationUrl: this.options.revocationUrl,
          introspectionUrl: this.options.introspectionUrl,
          hydraAdmin: adminUrl
            ? {
                url: adminUrl,
                hasKey: this.options.adminApiKey !== undefined,
                hasIntrospectionClient: this.options.introspectionClient !== undefined,
              }
            : undefined,
        },
        this.timeoutMs,
      );
      this.discovery.catch(() => {
        this.discovery = undefined;
      });
    }
    return this.discovery;
  }

  async exchangeCode(
    client: ClientAuth,
    code: string,
    codeVerifier: string,
    redirectUri: string,
  ): Promise<TokenResult> {
    const form = {
      grant_type: "authorization_code",
      code,
      code_verifier: codeVerifier,
      redirect_uri: redirectUri,
    };
    return this.tokenRequest(client, form);
  }

  /** A refresh-token grant; `timeoutMs` overrides the call's bound (a refresh may outlive its request). */
  async refresh(client: ClientAuth, refreshToken: string, timeoutMs?: number): Promise<TokenResult> {
    return this.tokenRequest(client, { grant_type: "refresh_token", refresh_token: refreshToken }, timeoutMs);
  }

  /**
   * RFC 7009 revocation, bounded to 2 s: "revoked" when the provider confirmed it, "refused" when it
   * failed or could not be reached, "unsupported" when the provider has no revocation endpoint (the
   * token then stays valid at the provider until it expires; callers warn).
   */
  async revoke(client: ClientAuth, token: string): Promise<RevocationResult> {
    try {
      const { revocation_endpoint } = await this.discover();
      if (!revocation_endpoint) return { outcome: "unsupported" };
      const { status, durationMs } = await fetchText(
        revocation_endpoint,
        {
          method: "POST",
          headers: this.clientHeaders(client),
          body: this.clientForm(client, { token, token_type_hint: "refresh_token" }),
        },
        2000,
      );
      if (status >= 200 && status < 300) return { outcome: "revoked" };
      const refusal = unusableAnswer(
        `revocation answered ${status}`,
        revocation_endpoint,
        status,
        durationMs,
      );
      return { outcome: "refused", cause: refusal.message, call: refusal.call };
    } catch (error) {
      const cause = error instanceof IdpUnavailable ? error : undefined;
      return { outcome: "refused", cause: cause?.message ?? "revocation failed", call: cause?.call };
    }
  }

  async userinfo(accessToken: string): Promise<{ sub: string } | null> {
    const { userinfo_endpoint } = await this.discover();
    if (!userinfo_endpoint) throw new IdpUnavailable("no userinfo endpoint");
    const { status, body, durationMs } = await this.json<{ sub?: unknown }>(userinfo_endpoint, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    // A 200 without a string `sub` falls through to IdpUnavailable: a provider failure, not cached.
    if (status === 200 && typeof body?.sub === "string" && body.sub !== "") return { sub: body.sub };
    if (status === 401 || status === 403 || status === 400) return null;
    throw unusableAnswer(`userinfo answered ${status}`, userinfo_endpoint, status, durationMs);
  }

  async introspect(token: string): Promise<Introspection> {
    const { introspection_endpoint } = await this.discover();
    if (!introspection_endpoint) throw new IdpUnavailable("the provider has no introspection endpoint");
    const client = this.options.introspectionClient;
    const headers = client
      ? this.clientHeaders(client)
      : { ...this.adminHeaders(), "content-type": "application/x-www-form-urlencoded" };
    const { status, body, durationMs } = await this.json<Record<string, unknown>>(introspection_endpoint, {
      method: "POST",
      headers,
      body: new URLSearchParams({ token }).toString(),
    });
    const failed = (what: string) => unusableAnswer(what, introspection_endpoint, status, durationMs);
    if (status !== 200) throw failed(`introspection answered ${status}`);
    // A 200 of the wrong shape is a provider failure, never a verdict on the token (it is not cached).
    if (typeof body !== "object" || body === null || Array.isArray(body) || typeof body.active !== "boolean")
      throw failed("introspection answered 200 without a boolean `active`");
    if (!body.active) return { active: false };
    if (body.sub !== undefined && (typeof body.sub !== "string" || body.sub === ""))
      throw failed("introspection answered active with a `sub` that is not a string");
    return {
      active: true,
      sub: body.sub as string | undefined,
      clientId: typeof body.client_id === "string" ? body.client_id : undefined,
      exp: typeof body.exp === "number" ? body.exp : undefined,
      tokenUse: typeof body.token_use === "string" ? body.token_use : undefined,
      obfuscatedSubject:
        typeof body.obfuscated_subject === "string" && body.obfuscated_subject !== ""
          ? body.obfuscated_subject
          : undefined,
    };
  }

  async getConsentRequest(challenge: string): Promise<ConsentLookup> {
    const url = `${this.options.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${encodeURIComponent(challenge)}`;
    const { status, body, durationMs } = await this.json<any>(url, { headers: this.adminHeaders() });
    if (status === 200 && typeof body?.challenge === "string") {
      return {
        kind: "found",
        request: {
          challenge: body.challenge,
          subject: String(body.subject ?? ""),
          skip: body.skip === true,
          requested_scope: Array.isArray(body.requested_scope) ? body.requested_scope.map(String) : [],
          requested_access_token_audience: Array.isArray(body.requested_access_token_audience)
            ? body.requested_access_token_audience.map(String)
            : [],
          client: {
            client_id: String(body.client?.client_id ?? ""),
            client_name: body.client?.client_name || undefined,
          },
        },
      };
    }
    if (status === 410 && typeof body?.redirect_to === "string")
      return { kind: "used", redirectTo: body.redirect_to };
    // Hydra: 404 when the challenge cannot be decoded, 401 request_unauthorized once it has expired.
    if (status === 404 || status === 401 || status === 400) return { kind: "not_found" };
    throw unusableAnswer(`consent request answered ${status}`, url, status, durationMs);
  }

  acceptConsent(challenge: string, body: Record<string, unknown>): Promise<ConsentDecision> {
    return this.putConsent("accept", challenge, body);
  }

  rejectConsent(challenge: string, body: Record<string, unknown>): Promise<ConsentDecision> {
    return this.putConsent("reject", challenge, body);
  }

  private async putConsent(
    verb: "accept" | "reject",
    challenge: string,
    payload: Record<string, unknown>,
  ): Promise<ConsentDecision> {
    const url = `${this.options.adminUrl}/admin/oauth2/auth/requests/consent/${verb}?consent_challenge=${encodeURIComponent(challenge)}`;
    const { status, body, durationMs } = await this.json<any>(url, {
      method: "PUT",
      headers: { ...this.adminHeaders(), "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    if (status === 200 && typeof body?.redirect_to === "string")
      return { kind: "done", redirectTo: body.redirect_to };
    if (status === 410 && typeof body?.redirect_to === "string")
      return { kind: "used", redirectTo: body.redirect_to };
    if (status === 404 || status === 401 || status === 409 || status === 400) return { kind: "not_found" };
    throw unusableAnswer(`consent ${verb} answered ${status}`, url, status, durationMs);
  }

  private async tokenRequest(
    client: ClientAuth,
    form: Record<string, string>,
    timeoutMs?: number,
  ): Promise<TokenResult> {
    const { token_endpoint } = await this.discover();
    const { status, body, durationMs } = await this.json<any>(
      token_endpoint,
      { method: "POST", headers: this.clientHeaders(client), body: this.clientForm(client, form) },
      timeoutMs,
    );
    if (status === 200 && typeof body?.access_token === "string") {
      return {
        ok: true,
        tokens: {
          accessToken: body.access_token,
          refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : undefined,
          idToken: typeof body.id_token === "string" ? body.id_token : undefined,
          expiresIn: Number.isFinite(body.expires_in) ? Number(body.expires_in) : 3600,
          scope: typeof body.scope === "string" ? body.scope : undefined,
        },
      };
    }
    if (status >= 400 && status < 500 && typeof body?.error === "string")
      return { ok: false, status, error: body.error };
    throw unusableAnswer(`token endpoint answered ${status}`, token_endpoint, status, durationMs);
  }

  private clientHeaders(client: ClientAuth): Record<string, string> {
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (client.clientSecret !== undefined) {
      const id = encodeURIComponent(client.clientId);
      const secret = encodeURIComponent(client.clientSecret);
      headers.authorization = `Basic ${btoa(`${id}:${secret}`)}`;
    }
    return headers;
  }

  private clientForm(client: ClientAuth, form: Record<string, string>): string {
    const params = new URLSearchParams(form);
    if (client.clientSecret === undefined) params.set("client_id", client.clientId);
    return params.toString();
  }

  private adminHeaders(): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.options.adminApiKey) headers.authorization = `Bearer ${this.options.adminApiKey}`;
    return headers;
  }

  private async json<T>(
    url: string,
    init: RequestInit,
    timeoutMs = this.timeoutMs,
  ): Promise<{ status: number; body: T | undefined; durationMs: number }> {
    const { status, text, durationMs } = await fetchText(url, init, timeoutMs);
    if (!text) return { status, body: undefined, durationMs };
    try {
      return { status, body: JSON.parse(text) as T, durationMs };
    } catch {
      throw unusableAnswer(`non-JSON answer (${status})`, url, status, durationMs);
    }
  }
}
