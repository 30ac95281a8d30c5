// Development identity provider: a real OAuth 2.0 / OIDC server (oidc-provider) on
// loopback that speaks Ory Hydra v2's public + admin HTTP API and Ory Kratos' public
// self-service flow fetch, so the gateway talks to it exactly as to Ory. Development
// and tests only: it refuses non-loopback hosts and prints a loud warning.
//
// Routing (one listener; admin paths start with /admin/, Kratos with /self-service/):
//   /admin/*                      Hydra admin API (hydra-admin.ts), bearer adminApiKey if set
//   /self-service/*, /ui/*        Kratos emulation (kratos.ts)
//   DELETE /admin/identities/{id} Kratos' admin identity deletion (204, or 404 when unknown)
//   /login                        login page (login-page.ts)
//   /interaction/<uid>[/finish]   interaction dispatch / completion (hydra-admin.ts)
//   GET /oauth2/auth              Hydra's `state` ≥ 8 check, then oidc-provider
//   everything else               oidc-provider (provider.ts)
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type Provider from "oidc-provider";
import { MemoryStore } from "./adapter.ts";
import { hydraError, json, redirect, sendWebResponse, toWebRequest } from "./http.ts";
import {
  acceptConsent,
  acceptLogin,
  dispatchInteraction,
  finishInteraction,
  getConsentRequest,
  getLoginRequest,
  type HydraContext,
  introspect,
  reject,
} from "./hydra-admin.ts";
import { KratosEmulator } from "./kratos.ts";
import { showLogin, submitLogin } from "./login-page.ts";
import { deleteLoginSession } from "./login-sessions.ts";
import { createProvider, INJECTED_PROMPT_PARAM } from "./provider.ts";
import { DevIdpState } from "./state.ts";

export { kratosCsrfCookieName } from "./kratos.ts";

export interface DevClient {
  clientId: string;
  redirectUris: string[];
  clientSecret?: string;
  clientName?: string;
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
  postLogoutRedirectUris?: string[];
}

export interface DevIdpOptions {
  port?: number;
  host?: string;
  clients: DevClient[];
  consentUrl: string;
  adminApiKey?: string;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  quiet?: boolean;
}

export interface DevIdp {
  issuer: string;
  adminUrl: string;
  kratosUrl: string;
  calls: Record<string, number>;
  resetCalls(): void;
  expireKratosFlow(id: string): void;
  /** The identities deleted through Kratos' admin API, in order. */
  deletedIdentities: string[];
  /** Tests: the token endpoint completes each request, then answers `ms` later (a slow provider). */
  delayTokenResponses(ms: number): void;
  stop(): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

const STATE_ERROR =
  "The state is missing or does not have enough characters and is therefore considered too weak. Request parameter 'state' must be at least be 8 characters long to ensure sufficient entropy.";

/** fosite's authorize_request_handler: `state` shorter than 8 characters → invalid_state, redirected back. */
async function checkState(provider: Provider, url: URL): Promise<Response | undefined> {
  const state = url.searchParams.get("state") ?? "";
  if (state.length >= 8) return undefined;
  const client = await provider.Client.find(url.searchParams.get("client_id") ?? "").catch(() => undefined);
  if (!client) return undefined; // let oidc-provider render its own invalid_client page
  const uris = client.redirectUris ?? [];
  const redirectUri = url.searchParams.get("redirect_uri") ?? (uris.length === 1 ? uris[0] : undefined);
  if (!redirectUri || !uris.includes(redirectUri)) return undefined;
  const target = new URL(redirectUri);
  target.searchParams.set("error", "invalid_state");
  target.searchParams.set("error_description", STATE_ERROR);
  if (state) target.searchParams.set("state", state);
  return redirect(target.toString(), 302);
}

async function routeAdmin(
  ctx: HydraContext,
  store: MemoryStore,
  request: Request,
  url: URL,
  adminApiKey?: string,
) {
  const { state } = ctx;
  const path = url.pathname.replace(/\/+$/, "");
  const routes: Record<string, [string, string, () => Promise<Response>]> = {
    "/admin/oauth2/introspect": ["POST", "introspect", () => introspect(ctx, request)],
    "/admin/oauth2/auth/requests/login": ["GET", "login:get", () => getLoginRequest(ctx, url)],
    "/admin/oauth2/auth/requests/login/accept": ["PUT", "login:accept", () => acceptLogin(ctx, url, request)],
    "/admin/oauth2/auth/requests/login/reject": [
      "PUT",
      "login:reject",
      () => reject(ctx, url, request, "login"),
    ],
    "/admin/oauth2/auth/requests/consent": ["GET", "consent:get", () => getConsentRequest(ctx, url)],
    "/admin/oauth2/auth/requests/consent/accept": [
      "PUT",
      "consent:accept",
      () => acceptConsent(ctx, url, request),
    ],
    "/admin/oauth2/auth/requests/consent/reject": [
      "PUT",
      "consent:reject",
      () => reject(ctx, url, request, "consent"),
    ],
    "/admin/oauth2/auth/sessions/login": [
      "DELETE",
      "sessions:login:delete",
      () => deleteLoginSession(ctx.provider, store, url),
    ],
  };
  const route = routes[path];
  if (!route) return hydraError(404, "Not Found", `No admin endpoint at ${path}.`);
  const [method, counter, run] = route;
  if (request.method !== method) return hydraError(405, "Method Not Allowed", `Use ${method} for ${path}.`);
  state.count(counter);
  if (adminApiKey !== undefined && request.headers.get("authorization") !== `Bearer ${adminApiKey}`) {
    return json(
      {
        error: "request_unauthorized",
        error_description: "A valid admin API key is required.",
        status_code: 401,
      },
      401,
      { "www-authenticate": 'Bearer realm="devidp-admin"' },
    );
  }
  return run();
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host)) {
    throw new Error(
      `devidp: refusing to listen on "${host}": the development identity provider binds loopback only (127.x.x.x, ::1, localhost)`,
    );
  }
  const consentUrl = new URL(options.consentUrl).toString();
  const server = createServer();
  await listen(server, options.port ?? 0, host === "localhost" ? "127.0.0.1" : host.replace(/^\[|\]$/g, ""));
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const issuer = `http://${urlHost}:${address.port}`;

  const state = new DevIdpState();
  state.resetCalls();
  let provider: Provider;
  const store = new MemoryStore();
  try {
    provider = await createProvider({
      issuer,
      clients: options.clients,
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
      refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 30 * 24 * 3600,
      state,
      store,
    });
  } catch (error) {
    server.close();
    throw error;
  }
  const ctx: HydraContext = { provider, state, issuer, consentUrl };
  const kratos = new KratosEmulator(issuer, state);
  const callback = provider.callback();
  let tokenDelayMs = 0;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<Response | undefined> {
    const url = new URL(req.url ?? "/", issuer);
    const path = url.pathname;
    const interaction = /^\/interaction\/([^/]+)(\/finish)?$/.exec(path);
    const identity = /^\/admin\/identities\/([^/]+)$/.exec(path);
    if (identity?.[1] && req.method === "DELETE")
      return kratos.deleteIdentity(decodeURIComponent(identity[1]));
    if (path.startsWith("/admin/")) {
      return routeAdmin(ctx, store, await toWebRequest(req, issuer), url, options.adminApiKey);
    }
    if (path.startsWith("/self-service/") || path.startsWith("/ui/")) {
      const answer = await kratos.handle(await toWebRequest(req, issuer), url);
      return answer ?? json({ error: { code: 404, status: "Not Found", message: "Not Found" } }, 404);
    }
    if (path === "/login" && req.method === "GET") return showLogin(ctx, url);
    if (path === "/login" && req.method === "POST") return submitLogin(ctx, await toWebRequest(req, issuer));
    if (interaction?.[1] && req.method === "GET") {
      const uid = decodeURIComponent(interaction[1]);
      return interaction[2] ? finishInteraction(ctx, uid) : dispatchInteraction(ctx, uid);
    }
    if (path === "/health/alive" || path === "/health/ready") return json({ status: "ok" });
    if (path === "/oauth2/token" && tokenDelayMs > 0) {
      // The grant is done when oidc-provider ends the response: only the answer is held back.
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      const delay = tokenDelayMs;
      res.end = ((...args: unknown[]) => {
        setTimeout(() => end(...args), delay);
        return res;
      }) as typeof res.end;
    }
    if (path === "/oauth2/auth" && req.method === "GET") {
      const early = await checkState(provider, url);
      if (early) return early;
      const scopes = (url.searchParams.get("scope") ?? "").split(" ");
      const prompt = url.searchParams.get("prompt") ?? "";
      const prompts = prompt.split(" ").filter(Boolean);
      if (scopes.includes("offline_access") && !prompts.includes("consent") && !prompts.includes("none")) {
        url.searchParams.set("prompt", [...prompts, "consent"].join(" "));
        url.searchParams.set(INJECTED_PROMPT_PARAM, prompt === "" ? "-" : prompt);
        req.url = `${url.pathname}${url.search}`;
      }
    }
    callback(req, res);
    return undefined;
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    route(req, res)
      .then((answer) => (answer ? sendWebResponse(res, answer) : undefined))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          const message = error instanceof Error ? error.message : String(error);
          void sendWebResponse(res, hydraError(500, "server_error", message));
        } else res.destroy();
      });
  });

  if (!options.quiet) {
    console.warn(
      `⚠️  DEVELOPMENT IDENTITY PROVIDER on ${issuer}: any username signs in without a password. NOT FOR PRODUCTION. ⚠️`,
    );
  }

  return {
    issuer,
    adminUrl: issuer,
    kratosUrl: issuer,
    calls: state.calls,
    resetCalls: () => state.resetCalls(),
    expireKratosFlow: (id: string) => kratos.expire(id),
    deletedIdentities: kratos.deletedIdentities,
    delayTokenResponses: (ms: number) => {
      tokenDelayMs = ms;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
