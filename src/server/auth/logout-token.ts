/**
 * The claims of a back-channel logout token (OpenID Back-Channel Logout 1.0, 2.4 and 2.6), checked once
 * its signature, issuer, audience and `exp` have verified:
 *
 * - `iat` is a number no more than 60 s ahead of this clock (skew) and no more than 10 minutes behind
 *   it: a logout is sent at once, so an older token is a copy, and the replay store (logout-token-jtis.ts)
 *   need keep a `jti` no longer than that.
 * - `events` is an object holding the member `http://schemas.openid.net/event/backchannel-logout`,
 *   itself an object (the specification's `{}`).
 * - No `nonce`: a token carrying one is an ID token passed off as a logout token.
 * - `sid` and/or `sub`, each a non-empty string; `jti` a non-empty string.
 *
 * Pure: the words of the first rule broken, or the logout the token asks for.
 */
import type { JWTPayload } from "jose";

export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
export const MAX_FUTURE_IAT_MS = 60_000;
export const MAX_AGE_MS = 10 * 60_000;

export interface LogoutRequest {
  jti: string;
  sid?: string;
  sub?: string;
  /** Until when the `jti` must be remembered: the token is refused anyway after it. */
  rememberUntil: number;
}

const text = (value: unknown): value is string => typeof value === "string" && value.length > 0;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function readLogoutToken(payload: JWTPayload, now = Date.now()): LogoutRequest | string {
  const { iat, exp, events, jti, sid, sub } = payload;
  if (typeof iat !== "number") return "the logout token has no iat";
  if (iat * 1000 > now + MAX_FUTURE_IAT_MS) return "the logout token's iat is in the future";
  if (iat * 1000 < now - MAX_AGE_MS) return "the logout token's iat is too old";
  if (!isObject(events) || !isObject(events[BACKCHANNEL_LOGOUT_EVENT]))
    return `the logout token's events claim does not hold ${BACKCHANNEL_LOGOUT_EVENT}`;
  if ("nonce" in payload) return "a logout token carries no nonce";
  if (!text(jti)) return "the logout token has no jti";
  if (sid !== undefined && !text(sid)) return "the logout token's sid is not a string";
  if (sub !== undefined && !text(sub)) return "the logout token's sub is not a string";
  if (sid === undefined && sub === undefined) return "the logout token names neither sid nor sub";
  const until = Math.min((exp ?? Number.POSITIVE_INFINITY) * 1000 + 30_000, iat * 1000 + MAX_AGE_MS);
  return { jti, sid, sub, rememberUntil: Math.ceil(until) };
}
