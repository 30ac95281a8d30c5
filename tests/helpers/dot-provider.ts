// Starts a real third-party OpenID provider for tests: Django OAuth Toolkit 1.7 (Debian's
// python3-django-oauth-toolkit) from tests/fixtures/dot, on a free port of 127.0.0.1, with a fresh
// SQLite database in a temp directory. Also a scripted sign-in through its Django login form.
//
//   const dot = await startDotProvider({ redirectUris: [`${appUrl}/callback`] });
//   const { code } = await signInAtProvider(new Browser(), authorizeUrl, "alice", "alice-password");
//   await dot.rotateKey();   // new RS256 key: new kid in the JWKS, new ID tokens signed with it
//   await dot.calls();       // { paths: {"POST /o/token/": 3, …}, token: {refresh_token: 1, …} }
//   await dot.grants("alice"); // [{ client_id, revoked, access_token }] as the provider stores them
//   await dot.stop();
//
// DOT quirks worth knowing (details in tests/devidp/dot-provider.test.ts):
// - issuer is `${url}/o`; `${issuer}/.well-known/openid-configuration` answers 301 to the same
//   URL with a trailing slash (all DOT endpoints end with "/" except jwks.json);
// - discovery lists no revocation_endpoint / introspection_endpoint: they are `${issuer}/revoke_token/`
//   and `${issuer}/introspect/` (see `endpoints`);
// - PKCE is required for every client; refresh tokens rotate; a reused one is `invalid_grant`.
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "./browser.ts";
import { freePort, tempDir } from "./stack.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "dot");
const PYTHON = "/usr/bin/python3";

export interface DotUser {
  username: string;
  password: string;
  email?: string;
  /** Full name (Django's first_name); the `name` claim falls back to the username. */
  name?: string;
}

export interface DotProviderOptions {
  /** Redirect URIs registered for every authorization-code client. */
  redirectUris?: string[];
  /** Default: alice / alice-password and bob / bob-password. */
  users?: DotUser[];
  accessTokenTtlSeconds?: number;
  idTokenTtlSeconds?: number;
  /** How long a used refresh token still answers (with the same new tokens); default 0. */
  refreshTokenGracePeriodSeconds?: number;
  /** false: DOT keeps the refresh token instead of rotating it (default true). */
  rotateRefreshToken?: boolean;
  /** false: ID tokens and userinfo carry only `sub`, as DOT does by default (default true:
   * also preferred_username, email, name). */
  extraClaims?: boolean;
  /** Print the provider's request log and errors (default: only on a failed start). */
  verbose?: boolean;
}

export interface DotCalls {
  /** "METHOD /path" → requests served (fixture controls under /test/ are not counted). */
  paths: Record<string, number>;
  /** grant_type → POSTs to the token endpoint. */
  token: Record<string, number>;
}

export interface DotRefreshToken {
  client_id: string;
  /** Revoked: by the revocation endpoint, or by rotation once used. */
  revoked: boolean;
  /** The access token issued with it is still stored (revocation deletes it). */
  access_token: boolean;
}

export interface DotProvider {
  /** `${url}/o`, exactly as the discovery document and the ID tokens' `iss` say. */
  issuer: string;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every endpoint, with DOT's trailing slashes (no redirect needed). */
  endpoints: {
    discovery: string;
    authorization: string;
    token: string;
    userinfo: string;
    jwks: string;
    revocation: string;
    introspection: string;
    login: string;
  };
  clients: {
    /** Public, authorization code + PKCE, RS256 ID tokens, no consent page. */
    public: { clientId: string };
    /** Confidential (client_secret_basic or client_secret_post), RS256 ID tokens. */
    confidential: { clientId: string; clientSecret: string };
    /** Confidential, HS256 ID tokens signed with the UTF-8 bytes of the client secret. */
    hs256: { clientId: string; clientSecret: string };
    /** Confidential, client-credentials grant: Basic auth at /introspect/, or a bearer token
     * obtained with grant_type=client_credentials&scope=introspection. */
    introspection: { clientId: string; clientSecret: string };
  };
  users: DotUser[];
  /** New RS256 signing key. The previous one stays in the JWKS unless `dropOld`. */
  rotateKey(options?: { dropOld?: boolean }): Promise<{ kid: string; inactive: string[] }>;
  /** Requests served so far; `reset` zeroes the counters after reading them. */
  calls(options?: { reset?: boolean }): Promise<DotCalls>;
  /** The user's refresh tokens as the provider stores them (oldest first). */
  grants(username: string): Promise<DotRefreshToken[]>;
  stop(): Promise<void>;
}

const DEFAULT_USERS: DotUser[] = [
  { username: "alice", password: "alice-password", email: "alice@example.test", name: "Alice Example" },
  { username: "bob", password: "bob-password", email: "bob@example.test" },
];

const randomSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

export async function startDotProvider(options: DotProviderOptions = {}): Promise<DotProvider> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const issuer = `${url}/o`;
  const dataDir = tempDir("sg-dot-");
  const users = options.users ?? DEFAULT_USERS;
  const redirectUris = options.redirectUris ?? [];
  const clients = {
    public: { clientId: "dot-public" },
    confidential: { clientId: "dot-confidential", clientSecret: randomSecret() },
    hs256: { clientId: "dot-hs256", clientSecret: randomSecret() },
    introspection: { clientId: "dot-introspection", clientSecret: randomSecret() },
  };
  const code = { grantType: "authorization-code", redirectUris, skipAuthorization: true };
  const spec = {
    users,
    clients: [
      {
        ...code,
        clientId: clients.public.clientId,
        clientSecret: "",
        clientType: "public",
        algorithm: "RS256",
      },
      { ...code, ...clients.confidential, clientType: "confidential", algorithm: "RS256" },
      { ...code, ...clients.hs256, clientType: "confidential", algorithm: "HS256" },
      {
        ...clients.introspection,
        clientType: "confidential",
        grantType: "client-credentials",
        algorithm: "",
      },
    ],
  };
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
    DOT_DATA_DIR: dataDir,
    DOT_PORT: String(port),
    DOT_SPEC: JSON.stringify(spec),
    DOT_ROTATE_REFRESH_TOKEN: options.rotateRefreshToken === false ? "0" : "1",
    DOT_EXTRA_CLAIMS: options.extraClaims === false ? "0" : "1",
  };
  if (options.accessTokenTtlSeconds !== undefined)
    env.DOT_ACCESS_TOKEN_EXPIRE_SECONDS = String(options.accessTokenTtlSeconds);
  if (options.idTokenTtlSeconds !== undefined)
    env.DOT_ID_TOKEN_EXPIRE_SECONDS = String(options.idTokenTtlSeconds);
  if (options.refreshTokenGracePeriodSeconds !== undefined)
    env.DOT_REFRESH_TOKEN_GRACE_PERIOD_SECONDS = String(options.refreshTokenGracePeriodSeconds);

  const proc = Bun.spawn([PYTHON, "-B", join(FIXTURE, "serve.py")], {
    cwd: FIXTURE,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  let log = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      log += text;
      if (options.verbose) process.stderr.write(text);
    }
  };
  void collect(proc.stdout);
  void collect(proc.stderr);

  const stop = async () => {
    if (proc.exitCode === null && !proc.killed) proc.kill();
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };

  const endpoints = {
    discovery: `${issuer}/.well-known/openid-configuration/`,
    authorization: `${issuer}/authorize/`,
    token: `${issuer}/token/`,
    userinfo: `${issuer}/userinfo/`,
    jwks: `${issuer}/.well-known/jwks.json`,
    revocation: `${issuer}/revoke_token/`,
    introspection: `${issuer}/introspect/`,
    login: `${url}/accounts/login/`,
  };

  // Ready when discovery answers (through its 301 to the trailing-slash URL).
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await stop();
      throw new Error(`DOT provider exited with ${proc.exitCode} before answering:\n${log}`);
    }
    try {
      const response = await fetch(`${issuer}/.well-known/openid-configuration`);
      if (response.ok) {
        const discovery = (await response.json()) as { issuer?: string };
        if (discovery.issuer !== issuer) throw new Error(`unexpected issuer ${discovery.issuer}`);
        break;
      }
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("unexpected issuer")) {
        await stop();
        throw error;
      }
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`DOT provider did not answer within 20 s:\n${log}`);
    }
    await Bun.sleep(50);
  }

  return {
    issuer,
    url,
    endpoints,
    clients,
    users,
    async rotateKey(rotate = {}) {
      const response = await fetch(`${url}/test/rotate-key${rotate.dropOld ? "?drop_old=1" : ""}`, {
        method: "POST",
      });
      if (!response.ok) throw new Error(`rotate-key: ${response.status} ${await response.text()}`);
      return (await response.json()) as { kid: string; inactive: string[] };
    },
    async calls(read = {}) {
      const response = await fetch(`${url}/test/calls`, { method: read.reset ? "POST" : "GET" });
      if (!response.ok) throw new Error(`calls: ${response.status}`);
      return (await response.json()) as DotCalls;
    },
    async grants(username) {
      const response = await fetch(`${url}/test/grants?username=${encodeURIComponent(username)}`);
      if (!response.ok) throw new Error(`grants: ${response.status}`);
      return ((await response.json()) as { refresh_tokens: DotRefreshToken[] }).refresh_tokens;
    },
    stop,
  };
}

export interface SignInResult {
  /** The redirect URI reached (not requested), with its query. */
  url: URL;
  /** `code` of that URL; null when the provider redirected with `error` instead. */
  code: string | null;
  state: string | null;
  error: string | null;
  /** Every URL visited, as Browser.follow reports them, across both legs. */
  chain: string[];
}

/**
 * Walks an authorization request through DOT like a user would: authorize → 302 to the login
 * form → POST username/password with Django's CSRF token (csrftoken cookie, kept by `browser`,
 * + csrfmiddlewaretoken field) → 302 back to authorize → 302 to the client's redirect_uri.
 * Stops at the redirect_uri without requesting it. When the browser already has a session at
 * the provider, the login form is skipped.
 */
export async function signInAtProvider(
  browser: Browser,
  authorizeUrl: string | URL,
  username: string,
  password: string,
): Promise<SignInResult> {
  const redirectUri = new URL(authorizeUrl).searchParams.get("redirect_uri");
  if (!redirectUri) throw new Error("signInAtProvider: the authorize URL has no redirect_uri");
  const target = new URL(redirectUri);
  const until = (u: URL) => u.origin === target.origin && u.pathname === target.pathname;
  const done = (url: URL, chain: string[]): SignInResult => ({
    url,
    code: url.searchParams.get("code"),
    state: url.searchParams.get("state"),
    error: url.searchParams.get("error"),
    chain,
  });

  const first = await browser.follow(authorizeUrl, { until });
  if (until(first.url)) return done(first.url, first.chain);
  const html = await first.response.text();
  if (first.response.status !== 200 || first.url.pathname !== "/accounts/login/")
    throw new Error(
      `signInAtProvider: expected the login form, got ${first.response.status} at ${first.url}\n${html}`,
    );
  const csrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error("signInAtProvider: no csrfmiddlewaretoken in the login form");
  const form = new URLSearchParams({
    csrfmiddlewaretoken: csrf,
    username,
    password,
    next: first.url.searchParams.get("next") ?? "",
  });
  const second = await browser.follow(first.url, {
    until,
    init: {
      method: "POST",
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded", referer: first.url.toString() },
    },
  });
  const chain = [...first.chain, ...second.chain.slice(1)];
  if (until(second.url)) return done(second.url, chain);
  const body = await second.response.text();
  if (body.includes('class="error"')) throw new Error(`signInAtProvider: login refused for ${username}`);
  throw new Error(
    `signInAtProvider: stopped at ${second.response.status} ${second.url} before the redirect URI\n${body}`,
  );
}
