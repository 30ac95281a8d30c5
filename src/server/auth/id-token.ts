/**
 * The ID token checks beyond signature, issuer and audience (OpenID Connect Core 3.1.3.7): a token
 * with several audiences names this client as its authorized party (`azp`), an `azp` that is present
 * is this client, and the `nonce` the client sent at authorize comes back unchanged (a code injected
 * from another sign-in carries another nonce, or none). Pure: the route verifies, then asks here.
 */
import type { JWTPayload } from "jose";

export interface IdTokenRefusal {
  code: "invalid_id_token" | "invalid_nonce";
  message: string;
}

export function idTokenRefusal(
  payload: JWTPayload,
  clientId: string,
  nonce: string | undefined,
): IdTokenRefusal | undefined {
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const azp = payload.azp;
  if (audiences.length > 1 && azp === undefined)
    return { code: "invalid_id_token", message: "The ID token has several audiences and no azp." };
  if (azp !== undefined && azp !== clientId)
    return { code: "invalid_id_token", message: "The ID token was issued to another client (azp)." };
  if (nonce !== undefined && payload.nonce !== nonce)
    return { code: "invalid_nonce", message: "The ID token's nonce is not the one this sign-in sent." };
  if (nonce === undefined && payload.nonce !== undefined)
    return {
      code: "invalid_nonce",
      message: "The ID token carries a nonce but none was sent with the code.",
    };
  return undefined;
}
