/**
 * The ID token checks beyond signature, issuer and audience (OpenID Connect Core 3.1.3.7): a token
 * with several audiences names this client as its authorized party (`azp`), an `azp` that is present
 * is this client, and the `nonce` the client sent at authorize comes back unchanged (a code injected
 * from another sign-in carries another nonce, or none). Pure: the route verifies, then asks here.
 */
import type { JWTPayload } from "jose";
import { Refusal } from "../domain/refusal.ts";

export function idTokenRefusal(
  payload: JWTPayload,
  clientId: string,
  nonce: string | undefined,
): Refusal<"invalid_id_token" | "invalid_nonce"> | undefined {
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const azp = payload.azp;
  if (audiences.length > 1 && azp === undefined)
    return new Refusal("invalid_id_token", { about: "audiences" });
  if (azp !== undefined && azp !== clientId) return new Refusal("invalid_id_token", { about: "azp" });
  if (nonce !== undefined && payload.nonce !== nonce)
    return new Refusal("invalid_nonce", { about: "mismatch" });
  if (nonce === undefined && payload.nonce !== undefined)
    return new Refusal("invalid_nonce", { about: "unexpected" });
  return undefined;
}
