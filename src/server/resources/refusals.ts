/**
 * The membership service's shared answers: the audit event type each trigger writes, and the refusal of
 * a change naming a deleted user. Shared by the public API and the operator's admin routes, so the same
 * change is refused and audited the same way (the words of every refusal are the refusal table's).
 */
import { Refusal } from "../domain/refusal.ts";
import type { Trigger } from "./transitions.ts";

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
  throw new Refusal(deleted === callerId ? "account_deleted" : "user_deleted");
}
