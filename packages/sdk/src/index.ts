/**
 * The gateway's client SDK. A browser client (`gatewayUrl` + `clientId`) signs people in and keeps its
 * session in httpOnly cookies; a server client (`gatewayUrl` + `accessToken`) calls as the token's
 * user; a request client (`createServerClient({ gatewayUrl, request })`) calls from an app server as
 * the user whose gateway cookie the incoming request carries. They are different types: `auth.signIn()`
 * on a server client does not compile.
 *
 * @example
 * const gateway = createClient({ gatewayUrl: "https://gw.example.com", clientId: "my-app" });
 * if (new URL(location.href).searchParams.has("code")) await gateway.auth.handleRedirectCallback();
 * const { authenticated, userId } = await gateway.auth.getSession();
 * if (!authenticated) await gateway.auth.signIn();
 * const team = await gateway.resource.create("team", { name: "Red team" });
 * await gateway.resource(team.id).members.invite("bob");
 */
import { authApi } from "./auth.ts";
import { CookieJar } from "./cookie-jar.ts";
import { resourceApi } from "./resources.ts";
import { Transport } from "./transport.ts";
import type {
  BrowserClientOptions,
  ClientOptions,
  RequestClientOptions,
  ServerClientOptions,
} from "./types.ts";

export type { AuthChange, AuthListener } from "./auth-state.ts";
export type { ApiErrorCode, SessionEndReason } from "./codes.gen.ts";
export { API_ERROR_CODES, SESSION_END_REASONS } from "./codes.gen.ts";
export type { IncomingRequest } from "./cookie-jar.ts";
export type { ResourceHandle } from "./resources.ts";
export type { ClientErrorCode, GatewayErrorCode } from "./transport.ts";
export { GatewayError } from "./transport.ts";
export type * from "./types.ts";

type AuthApi = ReturnType<typeof authApi>;
export type ResourceApi = ReturnType<typeof resourceApi>;

/** A page's client: sign in and out through the gateway, then call the API with the session cookie. */
export interface BrowserClient {
  auth: Pick<
    AuthApi,
    | "signIn"
    | "handleRedirectCallback"
    | "getSession"
    | "exportData"
    | "deleteAccount"
    | "signOut"
    | "handleSignOutCallback"
    | "listSessions"
    | "revokeSession"
    | "signOutOthers"
    | "onChange"
  >;
  resource: ResourceApi;
}

/** A server's client: calls as the access token's user (`getSession()` says who that is). */
export interface ServerClient {
  auth: Pick<AuthApi, "getSession" | "exportData">;
  resource: ResourceApi;
}

export function createClient(options: BrowserClientOptions): BrowserClient;
export function createClient(options: ServerClientOptions): ServerClient;
export function createClient(options: ClientOptions): BrowserClient | ServerClient {
  const transport = new Transport(options);
  return { auth: authApi(transport), resource: resourceApi(transport) };
}

/**
 * An app server's client for one incoming request: acts as the user whose gateway cookie the request
 * carries (and forwards no other cookie). When the access token has expired it refreshes the session
 * once; `setCookies()` then gives the `Set-Cookie`s to add to your response, so the browser keeps the
 * refreshed session (or drops one that ended).
 */
export interface RequestClient {
  auth: Pick<AuthApi, "getSession" | "exportData" | "deleteAccount">;
  resource: ResourceApi;
  /** The gateway's `Set-Cookie`s to pass on in the response (empty when nothing changed). */
  setCookies(): string[];
}

export function createServerClient(options: RequestClientOptions): RequestClient {
  const jar = new CookieJar(options.request);
  const { gatewayUrl, timeoutMs, fetch } = options;
  const transport = new Transport({ gatewayUrl, timeoutMs, fetch }, jar);
  return {
    auth: (({ getSession, exportData, deleteAccount }) => ({ getSession, exportData, deleteAccount }))(
      authApi(transport),
    ),
    resource: resourceApi(transport),
    setCookies: () => jar.setCookies(),
  };
}

/** @deprecated Use BrowserClient or ServerClient. */
export type GatewayClient = BrowserClient | ServerClient;
