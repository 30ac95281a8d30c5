/**
 * Why a browser's session is gone, in the words the page gets: `/auth/session` says it beside
 * `authenticated: false` and a refused `/auth/refresh` beside its `code`, so an app can tell the person
 * "an operator signed you out" instead of failing on the next call. The SDK's `auth.onChange` passes it
 * on. The list is the one the SDK's `SessionEndReason` is generated from; the sentence a refused refresh
 * says for each reason is the refusal table's (`unauthenticated`, domain/refusals.ts).
 */
import { Refusal } from "../domain/refusal.ts";
import type { SessionRow } from "./session-store.ts";

export const SESSION_END_REASONS = [
  /** Signed out (this browser, another tab of it, or the app's sign-out). */
  "signed_out",
  /** Revoked by an operator. */
  "revoked",
  /** The session's lifetime ran out, or the provider no longer honours its grant. */
  "expired",
  /** A copy of the session's refresh token was used after it had been rotated: treated as theft. */
  "reused",
  /** A new sign-in in this browser took its place. */
  "replaced",
  /** The account was deleted (by the user, or by an operator). */
  "deleted",
  /** The person ended this session from another of their devices ("sign out my other devices"). */
  "signed_out_elsewhere",
  /** The person signed out at the identity provider, which told the gateway (back-channel logout). */
  "provider_logout",
  /** The browser holds no session cookie the gateway can read. */
  "no_session",
] as const;

export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

const BY_STORED_REASON: Record<string, SessionEndReason> = {
  logout: "signed_out",
  revoked: "revoked",
  refresh_reuse: "reused",
  refresh_invalid: "expired",
  replaced: "replaced",
  deleted: "deleted",
  provider_logout: "provider_logout",
  signed_out_elsewhere: "signed_out_elsewhere",
};

/** The reason for a session row that is not live (any stored reason we do not name reads as revoked). */
export function endReasonOf(
  row: Pick<SessionRow, "endedAt" | "endReason" | "expiresAt"> | undefined,
): SessionEndReason {
  if (!row) return "no_session";
  if (row.endedAt === null) return "expired";
  return BY_STORED_REASON[row.endReason ?? ""] ?? "revoked";
}

/** The refusal for a request whose browser has no live session: 401 with why (403 for a deleted account). */
export function endedRefusal(reason: SessionEndReason): Refusal {
  return reason === "deleted"
    ? new Refusal("account_deleted", { body: { reason } })
    : new Refusal("unauthenticated", { about: reason, body: { reason } });
}
