/**
 * A small standards-following OpenID provider on 127.0.0.1 whose every answer a test can shape: the
 * discovery document (and RFC 8414 metadata), redirects, the token endpoint's ID token (RS256 with a
 * rotatable key, HS256 with a client secret, or `none`), introspection (and the credential it saw),
 * userinfo and revocation. It records the requests it served. Not Hydra: no consent API, no `token_use`.
 */
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

export interface FakeOidc {
  url: string;
  /** Mutable: what the next answers look like. */
  settings: FakeOidcSettings;
  /** Requests served: path → list of { authorization header, form }. */
  seen: Map<string, Array<{ authorization: string | null; form: URLSearchParams }>>;
  rotateKey(): Promise<void>;
  stop(): void;
}

export interface FakeOidcSettings {
  /** Discovery fields removed from the document. */
  omit: string[];
  /** Discovery `issuer` override (a mismatch). */
  issuer?: string;
  /** The discovery URL answers 301 to this path on the same origin first. */
  redirectDiscoveryTo?: string;
  /** RFC 8414 metadata extras (served at /.well-known/oauth-authorization-server). */
  authorizationServer?: Record<string, string>;
  /** The ID token: signed with the current RSA key, with a client secret (HS256), or unsigned. */
  idTokenAlg: "RS256" | "HS256" | "none";
  idTokenSecret?: string;
  idTokenClaims: JWTPayload;
  /** The key set leaves out the key that signs (a `kid` the provider never published). */
  hideSigningKey?: boolean;
  /** The ID token carries no `exp`. */
  idTokenWithoutExp?: boolean;
  introspection: Record<string, unknown>;
  userinfo: Record<string, unknown>;
}

export async function startFakeOidc(port = 0): Promise<FakeOidc> {
  let keys: Array<{ kid: string; privateKey: CryptoKey; jwk: JWK }> = [];
  const addKey = async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const kid = `k${keys.length + 1}-${crypto.randomUUID().slice(0, 8)}`;
    keys = [
      { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } },
      ...keys,
    ];
  };
  await addKey();
  const seen: FakeOidc["seen"] = new Map();
  const settings: FakeOidcSettings = {
    omit: [],
    idTokenAlg: "RS256",
    idTokenClaims: { sub: "fake-user" },
    introspection: { active: true, sub: "fake-user", client_id: "fake-web" },
    userinfo: { sub: "fake-user" },
  };
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request): Promise<Response> {
      const url = new URL(request.url);
      const base: string = `http://127.0.0.1:${server.port}`;
      const form =
        request.method === "POST" ? new URLSearchParams(await request.text()) : new URLSearchParams();
      const list = seen.get(url.pathname) ?? [];
      list.push({ authorization: request.headers.get("authorization"), form });
      seen.set(url.pathname, list);
      switch (url.pathname) {
        case "/.well-known/openid-configuration": {
          if (settings.redirectDiscoveryTo)
            return new Response(null, { status: 301, headers: { location: settings.redirectDiscoveryTo } });
          return Response.json(discovery(base));
        }
        case "/.well-known/openid-configuration/":
          return Response.json(discovery(base));
        case "/.well-known/oauth-authorization-server":
          return settings.authorizationServer
            ? Response.json({ issuer: base, ...settings.authorizationServer })
            : new Response("not found", { status: 404 });
        case "/jwks":
          return Response.json({ keys: keys.slice(settings.hideSigningKey ? 1 : 0).map((k) => k.jwk) });
        case "/token":
          return Response.json({
            access_token: `at-${crypto.randomUUID()}`,
            refresh_token: `rt-${crypto.randomUUID()}`,
            token_type: "Bearer",
            expires_in: 3600,
            id_token: await idToken(base, form.get("client_id") ?? basicUser(request)),
          });
        case "/introspect":
          return Response.json(settings.introspection);
        case "/userinfo":
          return Response.json(settings.userinfo);
        case "/revoke":
          return new Response(null, { status: 200 });
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  const discovery = (base: string) => {
    const doc: Record<string, string> = {
      issuer: settings.issuer ?? base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/jwks`,
      userinfo_endpoint: `${base}/userinfo`,
      revocation_endpoint: `${base}/revoke`,
      introspection_endpoint: `${base}/introspect`,
    };
    for (const field of settings.omit) delete doc[field];
    return doc;
  };
  const idToken = async (base: string, clientId: string) => {
    const claims = { aud: clientId, ...settings.idTokenClaims };
    const jwt = new SignJWT(claims).setIssuer(base).setIssuedAt();
    if (!settings.idTokenWithoutExp) jwt.setExpirationTime("10m");
    if (settings.idTokenAlg === "none") {
      const encode = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
      const now = Math.floor(Date.now() / 1000);
      return `${encode({ alg: "none" })}.${encode({ iss: base, iat: now, exp: now + 600, ...claims })}.`;
    }
    if (settings.idTokenAlg === "HS256")
      return jwt.setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(settings.idTokenSecret));
    return jwt.setProtectedHeader({ alg: "RS256", kid: keys[0]!.kid }).sign(keys[0]!.privateKey);
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    settings,
    seen,
    rotateKey: addKey,
    stop: () => server.stop(true),
  };
}

function basicUser(request: Request): string {
  const header = request.headers.get("authorization") ?? "";
  const decoded = header.startsWith("Basic ") ? atob(header.slice(6)) : "";
  return decodeURIComponent(decoded.split(":")[0] ?? "");
}
