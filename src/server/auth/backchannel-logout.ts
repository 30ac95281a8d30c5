/**
 * Receiving a provider's back-channel logout (OpenID Back-Channel Logout 1.0): the token crosses an
 * edge, so it is checked like an ID token before anything changes: signed by the provider's keys (or,
 * for a confidential client, its secret), issued by the configured issuer, addressed to a client of the
 * apps file, unexpired, and its claims as logout-token.ts says; then its `jti` is recorded (a replay,
 * on any replica, is refused). Then, before the provider gets its answer, the sessions it names end
 * (reason `provider_logout`, one event each): those of its `sid` for that client, else every session
 * of its `sub` for that client; their refresh tokens are revoked at the provider, and then their users'
 * cached bearer checks are dropped on every process (subject-logouts.ts). A token naming no
 * live session (an unknown one, a deleted account's) is accepted and ends nothing.
 */
import { decodeJwt } from "jose";
import type { AppRegistry } from "../apps/registry.ts";
import { idp } from "../idp/call.ts";
import type { HydraClient } from "../idp/hydra.ts";
import { IdTokenInvalid, type IdTokenVerifier } from "../idp/id-tokens.ts";
import type { SubjectLogouts } from "../idp/subject-logouts.ts";
import { readLogoutToken } from "./logout-token.ts";
import type { LogoutTokenJtis } from "./logout-token-jtis.ts";
import type { SessionService } from "./sessions.ts";

export interface BackchannelLogoutParts {
  apps: AppRegistry;
  hydra: HydraClient;
  verifier: IdTokenVerifier;
  jtis: LogoutTokenJtis;
  sessions: SessionService;
  logouts: Pick<SubjectLogouts, "announce">;
}

/** Why a token is refused (the 400's `error_description`), or how many sessions it ended. */
export type LogoutOutcome = { refused: string } | { ended: number };

export async function receiveLogoutToken(
  parts: BackchannelLogoutParts,
  token: string,
): Promise<LogoutOutcome> {
  let audiences: unknown;
  try {
    audiences = decodeJwt(token).aud;
  } catch {
    return { refused: "the logout token is not a JWT" };
  }
  const clientId = (Array.isArray(audiences) ? audiences : [audiences]).find(
    (aud): aud is string => typeof aud === "string" && parts.apps.lookupClient(aud)?.client !== undefined,
  );
  if (!clientId) return { refused: "the logout token's audience is not a client of this gateway" };
  const discovery = await idp(() => parts.hydra.discover());
  let payload: Awaited<ReturnType<IdTokenVerifier["verify"]>>;
  try {
    payload = await idp(() =>
      parts.verifier.verify(token, {
        issuer: discovery.issuer,
        jwksUri: discovery.jwks_uri,
        clientId,
        clientSecret: parts.apps.lookupClient(clientId)?.client?.clientSecret,
      }),
    );
  } catch (error) {
    if (error instanceof IdTokenInvalid)
      return { refused: error.message.replace("ID token", "logout token") };
    throw error;
  }
  const request = readLogoutToken(payload);
  if (typeof request === "string") return { refused: request };
  if (!(await parts.jtis.claim(request.jti, request.rememberUntil)))
    return { refused: "the logout token was already received (its jti is replayed)" };
  const ended = await parts.sessions.endProviderLogout(
    request.sid !== undefined ? { clientId, providerSid: request.sid } : { clientId, userId: request.sub },
  );
  await parts.logouts.announce(ended.map((row) => row.userId));
  return { ended: ended.length };
}
