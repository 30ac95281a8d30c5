/**
 * The subject an access token proves at the provider: introspection when there is a credential for it
 * (RFC 7662; it also names the client), with userinfo naming the user when the answer has no `sub`
 * (optional in RFC 7662); else userinfo alone (the user only). Null when the provider does not accept
 * the token; IdpUnavailable when it cannot say. No cache and no policy of the gateway's own: the bearer
 * cache and the sign-in's subject check build on it.
 */
import { type HydraClient, IdpUnavailable } from "./hydra.ts";

export interface ProvenSubject {
  userId: string;
  clientId: string | undefined;
  /** The token's expiry (ms since the epoch), when introspection says. */
  expiresAt: number | undefined;
  /** Hydra's pairwise subject for the token's client: what its ID tokens carry as `sub`. */
  pairwiseSubject: string | undefined;
}

export async function accessTokenSubject(hydra: HydraClient, token: string): Promise<ProvenSubject | null> {
  if (hydra.introspects) {
    const result = await hydra.introspect(token);
    if (!result.active) return null;
    // `token_use` is Hydra's: a refresh token is not a bearer credential.
    if (result.tokenUse !== undefined && result.tokenUse !== "access_token") return null;
    const userId = result.sub ?? (await hydra.userinfo(token))?.sub;
    if (userId === undefined)
      throw new IdpUnavailable("introspection says active but userinfo refuses the token");
    return {
      userId,
      clientId: result.clientId,
      expiresAt: result.exp !== undefined ? result.exp * 1000 : undefined,
      pairwiseSubject: result.obfuscatedSubject,
    };
  }
  const info = await hydra.userinfo(token);
  return info
    ? { userId: info.sub, clientId: undefined, expiresAt: undefined, pairwiseSubject: undefined }
    : null;
}
