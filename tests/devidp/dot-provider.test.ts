// The Django OAuth Toolkit fixture (tests/fixtures/dot, started by tests/helpers/dot-provider.ts)
// on its own, without the gateway: pins down what DOT 1.7 answers, so gateway tests that point at
// it know which third-party behaviour they are facing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";
import { Browser } from "../helpers/browser.ts";
import { type DotProvider, signInAtProvider, startDotProvider } from "../helpers/dot-provider.ts";
import { freePort } from "../helpers/stack.ts";

let dot: DotProvider;
// Never requested: signInAtProvider stops when the provider redirects there.
const redirectUri = `http://127.0.0.1:${freePort()}/callback`;

beforeAll(async () => {
  dot = await startDotProvider({ redirectUris: [redirectUri] });
}, 60_000);

afterAll(async () => {
  await dot?.stop();
}, 30_000);

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;
const form = { "content-type": "application/x-www-form-urlencoded" };

function pkce() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(new Bun.CryptoHasher("sha256").update(verifier).digest()));
  return { verifier, challenge };
}

function authorizeUrl(clientId: string, challenge: string | null, extra: Record<string, string> = {}) {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "openid profile",
    state: "st-1",
    nonce: "n-1",
    ...extra,
  });
  if (challenge) {
    params.set("code_challenge", challenge);
    params.set("code_challenge_method", "S256");
  }
  return `${dot.endpoints.authorization}?${params}`;
}

interface TokenAnswer {
  access_token: string;
  expires_in: number;
  token_type: string;
  scope: string;
  refresh_token: string;
  id_token: string;
}

async function post(url: string, body: Record<string, string>, authorization?: string) {
  const headers: Record<string, string> = { ...form };
  if (authorization) headers.authorization = authorization;
  const response = await fetch(url, { method: "POST", headers, body: new URLSearchParams(body) });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/** Signs alice in (fresh browser) and exchanges the code; confidential clients use Basic auth. */
async function signInAndExchange(
  client: { clientId: string; clientSecret?: string } = dot.clients.public,
  username = "alice",
): Promise<TokenAnswer> {
  const { verifier, challenge } = pkce();
  const signIn = await signInAtProvider(
    new Browser(),
    authorizeUrl(client.clientId, challenge),
    username,
    `${username}-password`,
  );
  expect(signIn.code).toBeString();
  const body: Record<string, string> = {
    grant_type: "authorization_code",
    code: signIn.code!,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  };
  if (!client.clientSecret) body.client_id = client.clientId;
  const answer = await post(
    dot.endpoints.token,
    body,
    client.clientSecret ? basic(client.clientId, client.clientSecret) : undefined,
  );
  expect(answer.status).toBe(200);
  return answer.json as TokenAnswer;
}

async function jwks(): Promise<JSONWebKeySet> {
  return (await (await fetch(dot.endpoints.jwks)).json()) as JSONWebKeySet;
}

const introspector = () => basic(dot.clients.introspection.clientId, dot.clients.introspection.clientSecret);
const introspect = async (token: string) =>
  (await post(dot.endpoints.introspection, { token }, introspector())).json;

describe("discovery", () => {
  test("issuer/.well-known/openid-configuration is a 301 to the trailing-slash URL; no revocation or introspection endpoint", async () => {
    const bare = await fetch(`${dot.issuer}/.well-known/openid-configuration`, { redirect: "manual" });
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/o/.well-known/openid-configuration/");

    const response = await fetch(`${dot.issuer}/.well-known/openid-configuration`); // follows
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const doc = (await response.json()) as Record<string, any>;
    const sorted: Record<string, unknown> = { ...doc, claims_supported: [...doc.claims_supported].sort() };
    expect(sorted).toEqual({
      issuer: dot.issuer,
      authorization_endpoint: `${dot.issuer}/authorize/`,
      token_endpoint: `${dot.issuer}/token/`,
      userinfo_endpoint: `${dot.issuer}/userinfo/`,
      jwks_uri: `${dot.issuer}/.well-known/jwks.json`,
      response_types_supported: [
        "code",
        "token",
        "id_token",
        "id_token token",
        "code token",
        "code id_token",
        "code id_token token",
      ],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256", "HS256"],
      token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      // "sub" is DOT's; the other three come from the fixture's validator (extraClaims).
      claims_supported: ["email", "name", "preferred_username", "sub"],
    });
    expect(doc.revocation_endpoint).toBeUndefined();
    expect(doc.introspection_endpoint).toBeUndefined();
    expect(doc.code_challenge_methods_supported).toBeUndefined();
  });

  test("JWKS: one RS256 key whose kid is its RFC 7638 thumbprint; Cache-Control header is malformed", async () => {
    const response = await fetch(dot.endpoints.jwks);
    expect(response.headers.get("cache-control")).toBe(
      "Cache-Control: public, max-age=3600, stale-while-revalidate=3600, stale-if-error=3600",
    );
    const { keys } = (await response.json()) as JSONWebKeySet;
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!).sort()).toEqual(["alg", "e", "kid", "kty", "n", "use"]);
    expect(keys[0]).toMatchObject({ alg: "RS256", use: "sig", kty: "RSA", e: "AQAB" });
  });
});

describe("authorization code + PKCE", () => {
  test("the public client signs in through the login form and gets tokens; the ID token verifies (RS256)", async () => {
    const { verifier, challenge } = pkce();
    const signIn = await signInAtProvider(
      new Browser(),
      authorizeUrl(dot.clients.public.clientId, challenge),
      "alice",
      "alice-password",
    );
    expect(signIn.code).toBeString();
    expect(signIn.state).toBe("st-1");
    expect(signIn.chain.map((u) => new URL(u).pathname)).toEqual([
      "/o/authorize/",
      "/accounts/login/",
      "/o/authorize/",
      "/callback",
    ]);

    // A wrong verifier is refused, and it does not burn the code.
    const wrong = await post(dot.endpoints.token, {
      grant_type: "authorization_code",
      code: signIn.code!,
      redirect_uri: redirectUri,
      client_id: dot.clients.public.clientId,
      code_verifier: pkce().verifier,
    });
    expect(wrong).toMatchObject({ status: 400, json: { error: "invalid_grant" } });

    const answer = await post(dot.endpoints.token, {
      grant_type: "authorization_code",
      code: signIn.code!,
      redirect_uri: redirectUri,
      client_id: dot.clients.public.clientId,
      code_verifier: verifier,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const tokens = answer.json as TokenAnswer;
    expect(Object.keys(tokens).sort()).toEqual([
      "access_token",
      "expires_in",
      "id_token",
      "refresh_token",
      "scope",
      "token_type",
    ]);
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid profile" });
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9]{30}$/); // opaque, not a JWT

    const header = decodeProtectedHeader(tokens.id_token);
    expect(header).toEqual({ alg: "RS256", typ: "JWT", kid: (await jwks()).keys[0]!.kid! });
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(await jwks()), {
      issuer: dot.issuer,
      audience: dot.clients.public.clientId,
    });
    expect(Object.keys(payload).sort()).toEqual([
      "at_hash",
      "aud",
      "auth_time",
      "email",
      "exp",
      "iat",
      "iss",
      "jti",
      "name",
      "nonce",
      "preferred_username",
      "sub",
    ]);
    expect(payload).toMatchObject({
      sub: "1",
      nonce: "n-1",
      preferred_username: "alice",
      email: "alice@example.test",
      name: "Alice Example",
    });

    // The code is single use.
    const again = await post(dot.endpoints.token, {
      grant_type: "authorization_code",
      code: signIn.code!,
      redirect_uri: redirectUri,
      client_id: dot.clients.public.clientId,
      code_verifier: verifier,
    });
    expect(again).toMatchObject({ status: 400, json: { error: "invalid_grant" } });
  });

  test("PKCE is required: an authorize request without code_challenge is redirected back with an error", async () => {
    const browser = new Browser();
    await signInAtProvider(
      browser,
      authorizeUrl(dot.clients.public.clientId, pkce().challenge),
      "bob",
      "bob-password",
    );
    // Already signed in: no login form this time.
    const result = await signInAtProvider(
      browser,
      authorizeUrl(dot.clients.public.clientId, null),
      "bob",
      "x",
    );
    expect(result.code).toBeNull();
    expect(result.error).toBe("invalid_request");
    expect(result.url.searchParams.get("error_description")).toBe("Code challenge required.");
  });

  test("a wrong password shows the form again (signInAtProvider throws)", async () => {
    await expect(
      signInAtProvider(
        new Browser(),
        authorizeUrl(dot.clients.public.clientId, pkce().challenge),
        "alice",
        "nope",
      ),
    ).rejects.toThrow("login refused for alice");
  });

  test("confidential client (Basic or client_secret_post); the HS256 client's ID token verifies with its secret", async () => {
    const confidential = await signInAndExchange(dot.clients.confidential);
    expect(decodeProtectedHeader(confidential.id_token).alg).toBe("RS256");

    const hs = await signInAndExchange(dot.clients.hs256);
    expect(decodeProtectedHeader(hs.id_token)).toEqual({ alg: "HS256", typ: "JWT" }); // no kid
    const { payload } = await jwtVerify(
      hs.id_token,
      new TextEncoder().encode(dot.clients.hs256.clientSecret),
      {
        issuer: dot.issuer,
        audience: dot.clients.hs256.clientId,
      },
    );
    expect(payload.sub).toBe("1");

    // client_secret_post also works; a wrong secret is invalid_client (401).
    const { verifier, challenge } = pkce();
    const signIn = await signInAtProvider(
      new Browser(),
      authorizeUrl(dot.clients.confidential.clientId, challenge),
      "alice",
      "alice-password",
    );
    const body = {
      grant_type: "authorization_code",
      code: signIn.code!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: dot.clients.confidential.clientId,
    };
    const bad = await post(dot.endpoints.token, { ...body, client_secret: "wrong" });
    expect(bad).toMatchObject({ status: 401, json: { error: "invalid_client" } });
    const ok = await post(dot.endpoints.token, {
      ...body,
      client_secret: dot.clients.confidential.clientSecret,
    });
    expect(ok.status).toBe(200);
  });
});

const refresh = (token: string, provider = dot) =>
  post(provider.endpoints.token, {
    grant_type: "refresh_token",
    refresh_token: token,
    client_id: provider.clients.public.clientId,
  });

describe("refresh", () => {
  test("rotation: new tokens but no id_token; reusing the old refresh token is invalid_grant and leaves the new one working", async () => {
    const first = await signInAndExchange();
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    const rotated = second.json as TokenAnswer;
    // oauthlib 3.2's OpenID server uses the plain OAuth 2 refresh grant: no ID token on refresh.
    expect(Object.keys(rotated).sort()).toEqual([
      "access_token",
      "expires_in",
      "refresh_token",
      "scope",
      "token_type",
    ]);
    expect(rotated).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid profile" });
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.access_token).not.toBe(first.access_token);
    // The old access token is revoked (deleted) together with the used refresh token.
    expect(await introspect(first.access_token)).toEqual({ active: false });

    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.json).toEqual({ error: "invalid_grant" });
    expect(reuse.headers.get("cache-control")).toBe("no-store");
    // No reuse detection: the tokens issued from it survive.
    expect((await introspect(rotated.access_token)).active).toBe(true);
    expect(
      (await fetch(dot.endpoints.userinfo, { headers: { authorization: `Bearer ${rotated.access_token}` } }))
        .status,
    ).toBe(200);
    const third = await refresh(rotated.refresh_token);
    expect(third.status).toBe(200);
  });

  test("within REFRESH_TOKEN_GRACE_PERIOD_SECONDS a reused refresh token answers the same new tokens again", async () => {
    const graceful = await startDotProvider({
      redirectUris: [redirectUri],
      refreshTokenGracePeriodSeconds: 30,
    });
    try {
      const { verifier, challenge } = pkce();
      const url = authorizeUrl(graceful.clients.public.clientId, challenge).replace(dot.url, graceful.url);
      const signIn = await signInAtProvider(new Browser(), url, "alice", "alice-password");
      const first = await post(graceful.endpoints.token, {
        grant_type: "authorization_code",
        code: signIn.code!,
        redirect_uri: redirectUri,
        client_id: graceful.clients.public.clientId,
        code_verifier: verifier,
      });
      const a = await refresh(first.json.refresh_token, graceful);
      const b = await refresh(first.json.refresh_token, graceful);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.json.access_token).toBe(a.json.access_token);
      expect(b.json.refresh_token).toBe(a.json.refresh_token);
      expect((await graceful.calls()).token).toEqual({ authorization_code: 1, refresh_token: 2 });
    } finally {
      await graceful.stop();
    }
  });
});

describe("revocation, introspection, userinfo", () => {
  test("introspection: Basic auth of any confidential client, or a bearer token with scope introspection", async () => {
    const tokens = await signInAndExchange();
    const viaBasic = await post(dot.endpoints.introspection, { token: tokens.access_token }, introspector());
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.json).toEqual({
      active: true,
      scope: "openid profile",
      exp: expect.any(Number),
      client_id: dot.clients.public.clientId,
      username: "alice",
    });

    const cc = await post(
      dot.endpoints.token,
      { grant_type: "client_credentials", scope: "introspection" },
      introspector(),
    );
    expect(cc.status).toBe(200);
    expect(Object.keys(cc.json).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    const viaBearer = await post(
      dot.endpoints.introspection,
      { token: tokens.access_token },
      `Bearer ${cc.json.access_token}`,
    );
    expect(viaBearer.json).toEqual(viaBasic.json);

    // Unauthenticated, wrong secret, or a bearer token without the scope: 403 with an empty body.
    for (const authorization of [
      undefined,
      basic(dot.clients.introspection.clientId, "wrong"),
      `Bearer ${tokens.access_token}`,
    ]) {
      const refused = await post(dot.endpoints.introspection, { token: tokens.access_token }, authorization);
      expect(refused.status).toBe(403);
      expect(refused.text).toBe("");
    }
    // Any confidential client's credentials are accepted (DOT does not restrict who introspects).
    const other = await post(
      dot.endpoints.introspection,
      { token: tokens.access_token },
      basic(dot.clients.confidential.clientId, dot.clients.confidential.clientSecret),
    );
    expect(other.json.active).toBe(true);
    // Refresh tokens and unknown strings are just inactive.
    expect(await introspect(tokens.refresh_token)).toEqual({ active: false });
    expect(await introspect("nope")).toEqual({ active: false });
  });

  test("userinfo answers the claims for a bearer access token; 401 once the token is revoked", async () => {
    const tokens = await signInAndExchange();
    const info = await fetch(dot.endpoints.userinfo, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(200);
    expect(info.headers.get("content-type")).toBe("application/json");
    expect(await info.json()).toEqual({
      sub: "1",
      preferred_username: "alice",
      email: "alice@example.test",
      name: "Alice Example",
    });

    // Revocation: the public client authenticates with client_id alone; answer 200, empty body.
    const revoke = await post(dot.endpoints.revocation, {
      token: tokens.access_token,
      client_id: dot.clients.public.clientId,
    });
    expect(revoke.status).toBe(200);
    expect(revoke.text).toBe("");
    expect(await introspect(tokens.access_token)).toEqual({ active: false });

    const after = await fetch(dot.endpoints.userinfo, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("invalid_token");
  });

  test("revoking the refresh token revokes its access token too and the refresh is refused", async () => {
    const tokens = await signInAndExchange();
    const revoke = await post(dot.endpoints.revocation, {
      token: tokens.refresh_token,
      token_type_hint: "refresh_token",
      client_id: dot.clients.public.clientId,
    });
    expect(revoke.status).toBe(200);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    const refreshed = await refresh(tokens.refresh_token);
    expect(refreshed).toMatchObject({ status: 400, json: { error: "invalid_grant" } });
  });
});

describe("fixture controls", () => {
  test("rotateKey: new kid first in the JWKS, the old one kept; new ID tokens use the new key", async () => {
    const before = (await jwks()).keys.map((k) => k.kid);
    const rotated = await dot.rotateKey();
    expect(rotated.inactive).toEqual(before as string[]);
    const after = (await jwks()).keys.map((k) => k.kid);
    expect(after).toEqual([rotated.kid, ...(before as string[])]);
    expect(after[0]).not.toBe(before[0]);

    const tokens = await signInAndExchange();
    expect(decodeProtectedHeader(tokens.id_token).kid).toBe(rotated.kid);
    await jwtVerify(tokens.id_token, createLocalJWKSet(await jwks()), { issuer: dot.issuer });

    const dropped = await dot.rotateKey({ dropOld: true });
    expect((await jwks()).keys.map((k) => k.kid)).toEqual([dropped.kid]);
    await expect(jwtVerify(tokens.id_token, createLocalJWKSet(await jwks()))).rejects.toThrow();
  });

  test("calls: token requests by grant type", async () => {
    await dot.calls({ reset: true });
    const tokens = await signInAndExchange();
    await refresh(tokens.refresh_token);
    const calls = await dot.calls();
    expect(calls.token).toEqual({ authorization_code: 1, refresh_token: 1 });
    expect(calls.paths["POST /o/token/"]).toBe(2);
    expect(calls.paths["GET /o/authorize/"]).toBe(2);
    expect(calls.paths["POST /accounts/login/"]).toBe(1);
  });
});
