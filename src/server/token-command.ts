/**
 * `gateway token <user> [--client <id>]` (parsed in cli/development-commands.ts): signs `user` in
 * through a running `gateway dev` the way a browser would (the gateway's /auth/authorize, the development provider's login form, the gateway's
 * consent endpoints) and exchanges the code at the provider for an access token, which it prints alone
 * on stdout: `TOKEN=$(gateway token alice)`, then `Authorization: Bearer $TOKEN`. Like `hydra perform
 * authorization-code`, for development only: it refuses any provider but the development one.
 */
import { Browser } from "../devidp/browser.ts";
import { DEVELOPMENT_PROVIDER_MARKER } from "../devidp/provider.ts";
import { loadAppsFile } from "./apps/registry.ts";
import { readDevConfig } from "./config.ts";
import { DEMO_CLIENT_ID, devApps } from "./dev-apps.ts";
import { keepLoopback } from "./dev-own-apps.ts";
import { randomId, sha256 } from "./lib/crypto.ts";

export class TokenCommandError extends Error {}

const CSRF = { "content-type": "application/json", "x-service-csrf": "1" };

/** Signs `user` in and prints the token; exit 2 for a user name the provider would refuse. */
export async function runToken(user: string, clientId = DEMO_CLIENT_ID): Promise<number> {
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(user) || user.startsWith("-")) {
    console.error(
      `gateway token: the user name must be 1-64 letters, digits, '.', '_', '@' or '-' (not first), got "${user}"`,
    );
    return 2;
  }
  try {
    const token = await issueToken(user, clientId);
    console.log(token.accessToken);
    console.error(
      `gateway token: an access token for "${user}" (client ${clientId}), valid for ${token.expiresIn} s`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof TokenCommandError)) throw error;
    console.error(`gateway token: ${error.message}`);
    return 1;
  }
}

async function issueToken(
  user: string,
  clientId: string,
): Promise<{ accessToken: string; expiresIn: number }> {
  const config = readDevConfig({});
  const gatewayUrl = `http://${config.host}:${config.port}`;
  const issuer = config.oidcIssuer ?? `http://127.0.0.1:${config.devIdpPort}`;
  const discovery = await developmentProvider(issuer);
  // dev's own clients and, as gateway dev registers them, GATEWAY_CONFIG's (`--app` ones are not known here).
  const own = config.gatewayConfigPath
    ? keepLoopback(await loadAppsFile(config.gatewayConfigPath), "").file.apps
    : [];
  const devFile = devApps(gatewayUrl, `http://${config.host}:${config.demoPort}`);
  const clients = [...devFile.apps, ...own].flatMap((app) => app.clients);
  const client = clients.find((c) => c.clientId === clientId);
  if (!client)
    throw new TokenCommandError(
      `"${clientId}" is not a client of gateway dev; its clients are ${clients.map((c) => c.clientId).join(", ")}`,
    );
  const redirectUri = client.redirectUris[0]!;
  const browser = new Browser();
  const verifier = randomId() + randomId(); // 44 characters of base64url: RFC 7636's 43-128
  const challenge = sha256(verifier);
  const state = randomId();
  const authorize = `${gatewayUrl}/auth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "openid offline_access",
    state,
    nonce: randomId(),
    code_challenge: challenge,
    code_challenge_method: "S256",
  })}`;
  // The redirect URI may be the gateway's own origin: only an answer (code or error) there counts.
  const atRedirect = (u: URL) =>
    `${u.origin}${u.pathname}` === redirectUri && (u.searchParams.has("code") || u.searchParams.has("error"));
  let step = await browser
    .follow(authorize, {
      until: (u) => u.pathname === "/login" || u.pathname === "/auth/consent" || atRedirect(u),
    })
    .catch(() => {
      throw new TokenCommandError(`the gateway is not reachable at ${gatewayUrl}: start it with gateway dev`);
    });
  if (step.url.pathname === "/login" && !atRedirect(step.url)) {
    step = await browser.follow(new URL("/login", issuer), {
      init: {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          login_challenge: step.url.searchParams.get("login_challenge") ?? "",
          username: user,
        }),
      },
      until: (u) => u.pathname === "/auth/consent" || atRedirect(u),
    });
  }
  if (!atRedirect(step.url)) {
    if (step.url.pathname !== "/auth/consent")
      throw new TokenCommandError(
        `sign-in stopped at ${step.url.origin}${step.url.pathname} (${step.response.status})`,
      );
    step = await consent(
      browser,
      gatewayUrl,
      step.url.searchParams.get("consent_challenge") ?? "",
      user,
      atRedirect,
    );
  }
  const code = step.url.searchParams.get("code");
  if (!code || step.url.searchParams.get("state") !== state)
    throw new TokenCommandError(
      `the provider answered without a code: ${step.url.searchParams.get("error") ?? "no error given"}`,
    );
  const res = await fetch(discovery.token_endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(client.clientSecret
        ? {
            authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(client.clientSecret)}`)}`,
          }
        : {}),
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    expires_in?: number;
    error?: string;
  };
  if (!res.ok || typeof body.access_token !== "string")
    throw new TokenCommandError(`the token endpoint answered ${res.status} ${body.error ?? ""}`.trim());
  return { accessToken: body.access_token, expiresIn: body.expires_in ?? 0 };
}

/** The discovery document, if and only if `issuer` is the development provider. */
async function developmentProvider(issuer: string): Promise<{ token_endpoint: string }> {
  const url = `${issuer}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  if (!res) throw new TokenCommandError(`no identity provider answers at ${issuer}: start gateway dev first`);
  const doc = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (doc?.[DEVELOPMENT_PROVIDER_MARKER] !== true)
    throw new TokenCommandError(
      `${issuer} is not gateway dev's development provider; gateway token only signs people in there (with a real provider, use its own tools, e.g. hydra perform authorization-code)`,
    );
  if (typeof doc.token_endpoint !== "string") throw new TokenCommandError(`${url} names no token_endpoint`);
  return { token_endpoint: doc.token_endpoint };
}

/** The gateway's consent endpoints, as its consent page calls them: load the request, then accept. */
async function consent(
  browser: Browser,
  gatewayUrl: string,
  challenge: string,
  user: string,
  atRedirect: (u: URL) => boolean,
) {
  const opened = await browser.fetch(
    `${gatewayUrl}/auth/consent-request?challenge=${encodeURIComponent(challenge)}`,
  );
  const request = (await opened.json()) as {
    redirect_to?: string;
    requested_scope?: string[];
    error?: string;
  };
  if (opened.status !== 200)
    throw new TokenCommandError(`the consent request answered ${opened.status}: ${request.error}`);
  let redirectTo = request.redirect_to;
  if (!redirectTo) {
    const accepted = await browser.fetch(`${gatewayUrl}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ challenge, subject: user, grant_scope: request.requested_scope ?? ["openid"] }),
    });
    const answer = (await accepted.json()) as { redirect_to?: string; error?: string };
    if (accepted.status !== 200 || !answer.redirect_to)
      throw new TokenCommandError(`consent answered ${accepted.status}: ${answer.error}`);
    redirectTo = answer.redirect_to;
  }
  return browser.follow(redirectTo, { until: atRedirect });
}
