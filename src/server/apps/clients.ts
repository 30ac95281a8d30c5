/**
 * The one rule for OAuth clients, shared by sign-in (`/auth/token`) and bearer tokens: a client that is
 * in no app is refused with `unknown_client`, unless the built-in `default` app (any client) is in
 * force. A token minted at the same provider for another product therefore never acts on our
 * resources. Only under the userinfo fallback is the client unknown; the first app is assumed then.
 */
import { ApiError } from "../http/errors.ts";
import type { AppRegistry, ClientLookup } from "./registry.ts";

export function requireClient(apps: AppRegistry, clientId: string, status: 400 | 401): ClientLookup {
  const lookup = apps.lookupClient(clientId);
  if (!lookup) throw new ApiError(status, "unknown_client", `Unknown client_id "${clientId}".`);
  return lookup;
}
