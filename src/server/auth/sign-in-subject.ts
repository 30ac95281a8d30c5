/**
 * Who signs in: the provider's `sub`, from the code exchange's answer, which the gateway checks before
 * it trusts any of it (the provider is across an edge):
 *
 * - An ID token verifies (signature with the provider's keys or the client's secret, issuer, audience,
 *   `exp` present and not past) and passes the OpenID checks of id-token.ts (`azp`, the `nonce` sent at
 *   authorize). One that does not is 502 `id_token_invalid`, its cause in the log.
 * - Its `sub` must be the subject the access token proves at the provider (introspection, or userinfo),
 *   when the provider offers either: one bounded call per sign-in. A session names its user from the ID
 *   token while its tokens act for the access token's subject, so a provider answering with two users
 *   (a bug, a mix-up) would give this user another's grant: refused as 502 `id_token_invalid`. Hydra's
 *   pairwise subjects (`obfuscated_subject`) are the ID token's `sub` and count as the same user, whose
 *   id is then the access token's subject: the id a bearer call with the same grant resolves to, so one
 *   person is one user id (one membership list, one deletion) whichever credential they present.
 * - Its `sub` must be a subject the gateway accepts (subject.ts), else 403 `invalid_subject`.
 * - The ID token's `sid` (the provider's login session), when it is a string, is kept on the session:
 *   a back-channel logout by `sid` finds the sessions of that login session.
 * - Without an ID token (or without `sub` in it), the access token's subject, through the bearer cache
 *   (which refuses the same subjects: the token is then not valid).
 */
import { Refusal } from "../domain/refusal.ts";
import { accessTokenSubject } from "../idp/access-token-subject.ts";
import { idp } from "../idp/call.ts";
import type { HydraClient, TokenSet } from "../idp/hydra.ts";
import { IdTokenInvalid, type IdTokenVerifier } from "../idp/id-tokens.ts";
import { checkSubject } from "../idp/subject.ts";
import type { TokenCache } from "../idp/token-cache.ts";
import type { Logger } from "../lib/log.ts";
import { idTokenRefusal } from "./id-token.ts";

export interface SignInSubjectParts {
  hydra: HydraClient;
  tokens: TokenCache;
  verifier: IdTokenVerifier;
  log: Logger;
}

export interface SignInClient {
  clientId: string;
  clientSecret: string | undefined;
}

/** Who signed in, and the provider's login session when its ID token names one. */
export interface SignedInSubject {
  userId: string;
  providerSid?: string;
}

export async function signInSubject(
  parts: SignInSubjectParts,
  tokens: TokenSet,
  client: SignInClient,
  nonce: string | undefined,
): Promise<SignedInSubject> {
  const { hydra, log } = parts;
  const discovery = await idp(() => hydra.discover());
  if (tokens.idToken) {
    const payload = await idp(() =>
      parts.verifier.verify(tokens.idToken!, {
        issuer: discovery.issuer,
        jwksUri: discovery.jwks_uri,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
      }),
    ).catch((error: unknown) => {
      if (!(error instanceof IdTokenInvalid)) throw error;
      log("warn", "an ID token did not verify", { clientId: client.clientId, cause: error.message });
      throw new Refusal("id_token_invalid", { about: "signature" });
    });
    const refusal = idTokenRefusal(payload, client.clientId, nonce);
    if (refusal) throw refusal;
    const sub = payload.sub;
    const providerSid = typeof payload.sid === "string" && payload.sid ? payload.sid : undefined;
    if (typeof sub === "string" && sub) {
      checkSubject(sub);
      if (!hydra.introspects && !discovery.userinfo_endpoint) return { userId: sub, providerSid };
      const proven = await idp(() => accessTokenSubject(hydra, tokens.accessToken));
      if (!proven) throw notAccepted();
      if (sub !== proven.userId && sub !== proven.pairwiseSubject) {
        log("warn", "the ID token's subject is not the access token's", { clientId: client.clientId });
        throw new Refusal("id_token_invalid", { about: "subject" });
      }
      // The user is who the access token proves: a bearer call with the same grant names that id.
      checkSubject(proven.userId);
      return { userId: proven.userId, providerSid };
    }
  } else if (nonce !== undefined) {
    throw new Refusal("invalid_nonce", { about: "no_id_token" });
  }
  const principal = await idp(() => parts.tokens.validate(tokens.accessToken));
  if (!principal) throw notAccepted();
  return { userId: principal.userId };
}

const notAccepted = () => new Refusal("idp_unavailable", { about: "own_token_refused" });
