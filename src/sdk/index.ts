/**
 * The client SDK: `createClient({ gatewayUrl, clientId })` in a browser, or
 * `createClient({ gatewayUrl, accessToken })` on a server (Bun, Node, Deno). Web standards only.
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
import type { ClientOptions } from "./types.ts";

export type { ResourceHandle } from "./resources.ts";
export { GatewayError } from "./transport.ts";
export type * from "./types.ts";

export function createClient(options: ClientOptions) {
  const transport = new Transport(options);
  return { auth: authApi(transport), resource: resourceApi(transport) };
}

export type GatewayClient = ReturnType<typeof createClient>;
