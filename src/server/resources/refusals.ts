/**
 * The membership service's words: a message for a person for each refusal code (the code is the
 * stable part clients switch on), and the audit event type each trigger writes. Shared by the public
 * API and the operator's admin routes, so the same change is refused and audited the same way.
 */
import { ApiError, errors } from "../http/errors.ts";
import type { RefusalCode, Trigger } from "./transitions.ts";

const MESSAGES: Record<RefusalCode | "unknown_type" | "reserved_type", string> = {
  forbidden: "You are not allowed to do that on this resource.",
  not_found: "No such resource.",
  invalid_role: "role must be reader, writer or admin.",
  role_above_ceiling: "That role is above what you may grant on this resource.",
  already_member: "That user is already a member.",
  already_pending: "That user already has a pending invite or request.",
  too_many_pending_invites: "You already have 50 pending invites in this app.",
  no_pending_invite: "There is no pending invite to accept or reject.",
  no_pending_request: "There is no pending request from that user.",
  not_public: "This resource is members-only: ask for an invite or send a request.",
  pending_membership: "You have a pending invite or request here: accept it instead.",
  target_is_owner: "The owner cannot be changed or removed.",
  insufficient_rank: "You can only act on members below your own role.",
  owner_cannot_leave: "The owner cannot leave the resource.",
  not_a_member: "Not a member of this resource.",
  app_resource_undeletable: "The app resource cannot be deleted.",
  app_resource_untransferable: "Resources owned by the app (_app and statics) never change owner.",
  no_pending_offer: "There is no pending ownership offer to accept, decline or cancel.",
  unknown_type: "Unknown resource type.",
  reserved_type: "This resource type is reserved.",
};

export const notFound = () => new ApiError(404, "not_found", MESSAGES.not_found);
export const refusal = (code: keyof typeof MESSAGES, status: number) =>
  new ApiError(status, code, MESSAGES[code]);

/** The event each transition appends (one per change; a no-op change appends none). */
export const EVENT: Record<Trigger["kind"], string> = {
  invite: "member.invited",
  request: "member.requested",
  acceptInvite: "member.accepted",
  acceptRequest: "member.accepted",
  rejectInvite: "member.rejected",
  rejectRequest: "member.rejected",
  join: "member.joined",
  autoJoin: "member.auto_joined",
  setRole: "member.role_changed",
  remove: "member.removed",
  leave: "member.left",
  delete: "resource.deleted",
  transferOwnership: "ownership.offered",
  acceptOwnership: "ownership.accepted",
  declineOwnership: "ownership.declined",
  cancelOwnership: "ownership.cancelled",
};

/**
 * Refuses a change naming a deleted user (`guard`'s answer): the caller's own account 403
 * `account_deleted` (as at every credential's resolution), a target 404 `user_deleted`.
 */
export function refuseDeleted(deleted: string | undefined, callerId: string): void {
  if (deleted === undefined) return;
  if (deleted === callerId) throw errors.accountDeleted();
  throw new ApiError(404, "user_deleted", "That user's account has been deleted.");
}
