/**
 * The one rule for OAuth clients, shared by sign-in (`/auth/token`) and bearer tokens: a client that is
 * in no app is refused with `unknown_client`, unless the built-in `default` app (any client) is in
 * force. A token minted at the same provider for another product therefore never acts on our
 * resources. Only under the userinfo fallback is the client unknown; the first app is assumed then.
 */
import { Refusal } from "../domain/refusal.ts";
import type { AppRegistry, ClientLookup } from "./registry.ts";

export function requireClient(
  apps: AppRegistry,
  clientId: string,
  credential: "bearer" | "sign_in",
): ClientLookup {
  const lookup = apps.lookupClient(clientId);
  if (!lookup) throw new Refusal("unknown_client", { clientId, credential });
  return lookup;
}
