/**
 * The gateway's client SDK. A browser client (`gatewayUrl` + `clientId`) signs people in and keeps its
 * session in httpOnly cookies; a server client (`gatewayUrl` + `accessToken`) calls as the token's
 * user. They are different types: `auth.signIn()` on a server client does not compile.
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
import { resourceApi } from "./resources.ts";
import { Transport } from "./transport.ts";
import type { BrowserClientOptions, ClientOptions, ServerClientOptions } from "./types.ts";

export type { ApiErrorCode } from "./codes.gen.ts";
export { API_ERROR_CODES } from "./codes.gen.ts";
export type { ResourceHandle } from "./resources.ts";
export type { ClientErrorCode, GatewayErrorCode } from "./transport.ts";
export { GatewayError } from "./transport.ts";
export type * from "./types.ts";

type AuthApi = ReturnType<typeof authApi>;
export type ResourceApi = ReturnType<typeof resourceApi>;

/** A page's client: sign in and out through the gateway, then call the API with the session cookie. */
export interface BrowserClient {
  auth: Pick<AuthApi, "signIn" | "handleRedirectCallback" | "getSession" | "signOut">;
  resource: ResourceApi;
}

/** A server's client: calls as the access token's user (`getSession()` says who that is). */
export interface ServerClient {
  auth: Pick<AuthApi, "getSession">;
  resource: ResourceApi;
}

export function createClient(options: BrowserClientOptions): BrowserClient;
export function createClient(options: ServerClientOptions): ServerClient;
export function createClient(options: ClientOptions): BrowserClient | ServerClient {
  const transport = new Transport(options);
  return { auth: authApi(transport), resource: resourceApi(transport) };
}

/** @deprecated Use BrowserClient or ServerClient. */
export type GatewayClient = BrowserClient | ServerClient;
