/**
 * What the demo says to a person: every error code and session-end reason becomes a plain sentence.
 * The gateway's own messages are written for developers ("send a valid bearer token"), so a code this
 * table does not know is shown as a generic sentence, never as the raw message of an auth failure.
 */
import { GatewayError, type GatewayErrorCode, type SessionEndReason } from "../../packages/sdk/src/index.ts";

/** Why the page shows nobody: the session this browser had, and how it ended. */
const SESSION_ENDED: Record<SessionEndReason, string> = {
  signed_out: "You signed out.",
  revoked: "An administrator ended your session. Sign in again to continue.",
  expired: "Your session expired. Sign in again to continue.",
  reused: "Your session was ended for safety: its sign-in was used from two places at once. Sign in again.",
  replaced: "This session was replaced by a newer sign-in in this browser. Sign in again to continue.",
  deleted: "This account has been deleted.",
  provider_logout: "You signed out at your identity provider. Sign in again to continue.",
  signed_out_elsewhere: "You signed this device out from another of your devices. Sign in again to continue.",
  no_session: "You are not signed in.",
};

const ERRORS: Partial<Record<GatewayErrorCode, string>> = {
  // The redirect back from sign-in.
  state_mismatch:
    "This sign-in link was already used, or the sign-in started in another tab. Nothing changed; sign in again if you need to.",
  missing_code: "The sign-in came back without its code. Please sign in again.",
  sign_in_refused: "Sign-in was cancelled or refused at the identity provider.",
  exchange_failed:
    "The sign-in could not be finished: its code was already used or has expired. Sign in again.",
  invalid_nonce: "The sign-in answer could not be verified, so you were not signed in. Sign in again.",
  id_token_invalid: "The sign-in answer could not be verified, so you were not signed in. Sign in again.",
  invalid_id_token: "The sign-in answer could not be verified, so you were not signed in. Sign in again.",
  idp_unavailable: "The identity provider could not be reached. Try again in a moment.",
  issuer_not_configured: "Sign-in is not set up on this gateway yet.",
  invalid_redirect_uri: "This page's address is not registered for sign-in with this app.",
  unknown_client: "This app is not registered with the gateway.",
  origin_not_allowed: "This page's address is not registered with the gateway for this app.",
  unauthenticated: "Your session has ended. Sign in again to continue.",
  // Membership refusals.
  forbidden: "You don't have the rights to do that on this resource.",
  not_found: "No such resource, or it is members-only and you are not a member.",
  invalid_role: "Pick a role: reader, writer or admin.",
  role_above_ceiling: "That role is higher than you may give on this resource.",
  already_member: "That person is already a member.",
  already_pending: "That person already has an invite or a request waiting here.",
  too_many_pending_invites: "You have 50 invites waiting for an answer; wait until some are answered.",
  no_pending_invite: "There is no invite waiting for you here.",
  no_pending_request: "That person has no request waiting here.",
  not_public: "This resource is members-only: ask for an invite, or send a request to join.",
  pending_membership: "You already have an invite or a request here: answer or withdraw it first.",
  target_is_owner: "The owner's membership cannot be changed or removed.",
  insufficient_rank: "You can only change or remove members ranked below you.",
  owner_cannot_leave: "The owner cannot leave; delete the resource instead.",
  not_a_member: "That person is not a member here.",
  app_resource_undeletable: "The app's own resource cannot be deleted.",
  unknown_type: "This app has no such resource type.",
  reserved_type: "Only the app itself creates resources of this type.",
  invalid_request: "Some of what you typed was not accepted; check the form and try again.",
  budget_exceeded: "Too many requests right now; try again in a minute.",
  // No answer, or not the gateway's.
  network_error: "The gateway could not be reached. Check your connection and try again.",
  timeout: "The gateway took too long to answer. Try again.",
  http_error: "Something between you and the gateway failed. Try again.",
  internal: "The gateway failed to do that. Try again; if it keeps failing, tell the operator.",
  database_busy: "The gateway is busy. Try again in a moment.",
  database_unavailable: "The gateway's database is unavailable. Try again later.",
  // The load balancer in front of the gateway's replicas.
  no_replica_available: "The gateway is unavailable right now; nothing was changed. Try again in a moment.",
  replica_failed:
    "The gateway was interrupted: your last change may or may not have been saved. Reload to check before trying again.",
  replica_timeout:
    "The gateway took too long: your last change may or may not have been saved. Reload to check before trying again.",
};

/** The sentence for a session that is gone (or never was). */
export function sessionWords(reason: SessionEndReason): string {
  return SESSION_ENDED[reason];
}

/** The sentence for any failure: a refused call, a failed sign-in, no answer at all. */
export function errorWords(error: unknown): string {
  if (!(error instanceof GatewayError)) return "Something went wrong in this page. Reload it and try again.";
  if (error.code === "unauthenticated" && error.reason) return sessionWords(error.reason);
  return ERRORS[error.code] ?? "The gateway refused that. Try again, or sign in again.";
}
