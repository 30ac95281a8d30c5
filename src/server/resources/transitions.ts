/**
 * Every membership and lifecycle transition of a resource (invite, request, accept, reject, join,
 * auto-join, setRole, remove, leave, delete, and the ownership offer: transfer, accept, decline,
 * cancel) as one pure function: (resource, trigger, actor, target)
 * → the change to make, or a typed refusal. It reads no clock and no database: `service.ts` loads the
 * rows inside the write transaction, asks here, and applies the answer in that same transaction, so
 * two racing requests cannot both pass a check.
 */
import { Refusal, type RefusalCode, type RefusalDetails } from "../domain/refusal.ts";
import { canActOn, canGrant, type GrantableRole, isAdmin, isGrantableRole, type Role } from "./roles.ts";

export type MemberState = "invited" | "requested" | "active";
export interface Membership {
  role: Role;
  state: MemberState;
}

/**
 * The gateway's operator, acting on a roster through the admin API, as an actor: the owner's rank in
 * every resource. Every rule still holds for it: the owner is never demoted or removed, no role is given
 * above the type's grant ceiling, a pending membership is cancelled rather than removed.
 */
export const OPERATOR: Membership = { role: "owner", state: "active" };

export interface ResourceFacts {
  /** Public = unlisted or discoverable. */
  isPublic: boolean;
  isAppResource: boolean;
  /** Owned by its app (`_app` and statics): no user owns it, and its ownership never moves. */
  isAppOwned: boolean;
  defaultRole: GrantableRole;
  grantCeiling: GrantableRole;
}

export type Trigger =
  | { kind: "invite"; role?: unknown; pendingInvitesOfActor: number }
  | { kind: "request"; role?: unknown }
  | { kind: "acceptInvite" }
  | { kind: "acceptRequest" }
  | { kind: "rejectInvite" }
  | { kind: "rejectRequest" }
  | { kind: "join" }
  | { kind: "autoJoin" }
  | { kind: "setRole"; role?: unknown }
  | { kind: "remove" }
  | { kind: "leave" }
  | { kind: "delete"; actorIsOwner: boolean }
  /** The owner offers ownership to `target`; `targetIsActor` when the owner names itself. */
  | { kind: "transferOwnership"; targetIsActor: boolean }
  | { kind: "acceptOwnership"; offer: OfferFacts }
  | { kind: "declineOwnership"; offer: OfferFacts }
  | { kind: "cancelOwnership"; offer: OfferFacts };

/** The resource's pending ownership offer as the caller sees it: none, made to the caller, or to someone else. */
export type OfferFacts = "none" | "to_actor" | "to_other";

/** The ownership triggers (ownership.ts asks them, with the offer it reads inside the transaction). */
export type OwnershipTrigger = Extract<Trigger, { kind: `${string}Ownership` }>;

/** A trigger as callers ask for it: the service counts the inviter's pending invites itself. */
export type TriggerRequest =
  | Exclude<Trigger, { kind: "invite" } | { kind: "delete" } | OwnershipTrigger>
  | { kind: "invite"; role?: unknown }
  | { kind: "delete" };

/** The codes `decide()` refuses with (their status and words are the refusal table's). */
export type MembershipRefusalCode = Extract<
  RefusalCode,
  | "forbidden"
  | "invalid_role"
  | "role_above_ceiling"
  | "already_member"
  | "already_pending"
  | "too_many_pending_invites"
  | "no_pending_invite"
  | "no_pending_request"
  | "not_public"
  | "pending_membership"
  | "target_is_owner"
  | "insufficient_rank"
  | "owner_cannot_leave"
  | "not_a_member"
  | "app_resource_undeletable"
  | "app_resource_untransferable"
  | "no_pending_offer"
>;

export type Change =
  /** A new membership row (invite, request, join, auto-join). */
  | { kind: "add"; state: MemberState; role: GrantableRole }
  /** A pending row becomes active at its role. */
  | { kind: "activate"; role: Role }
  | { kind: "setRole"; role: GrantableRole }
  /** The row goes; `policies` says whether onMemberRemove applies (only when an active member leaves). */
  | { kind: "drop"; policies: boolean }
  | { kind: "deleteResource" }
  /** A pending ownership offer to the target, replacing the resource's previous one if any. */
  | { kind: "offerOwnership" }
  /** The offered member becomes the owner and the previous owner an admin, together. */
  | { kind: "takeOwnership" }
  /** The pending offer ends (declined or cancelled); ownership stays where it is. */
  | { kind: "endOffer" }
  | { kind: "none" };

export type Decision = { ok: true; change: Change } | { ok: false; refusal: Refusal<MembershipRefusalCode> };

export const MAX_PENDING_INVITES = 50;

const ok = (change: Change): Decision => ({ ok: true, change });
const no = <C extends MembershipRefusalCode>(code: C, ...details: RefusalDetails<C>): Decision => ({
  ok: false,
  refusal: new Refusal(code, ...details),
});

/**
 * @param actor  the caller's membership in the resource, if any
 * @param target the membership of the user acted on (invite, acceptRequest, rejectRequest, setRole,
 *               remove), if any; for triggers about the caller it is ignored
 */
export function decide(
  resource: ResourceFacts,
  trigger: Trigger,
  actor?: Membership,
  target?: Membership,
): Decision {
  const actorActive = actor?.state === "active";
  const actorAdmin = actorActive && isAdmin(actor.role);
  switch (trigger.kind) {
    case "invite": {
      if (!actorAdmin) return no("forbidden");
      const role = trigger.role ?? resource.defaultRole;
      if (!isGrantableRole(role)) return no("invalid_role");
      if (!canGrant(actor.role, role, resource.grantCeiling)) return no("role_above_ceiling");
      if (target?.state === "active") return no("already_member");
      if (target) return no("already_pending");
      if (trigger.pendingInvitesOfActor >= MAX_PENDING_INVITES) return no("too_many_pending_invites");
      return ok({ kind: "add", state: "invited", role });
    }
    case "request": {
      if (actorActive) return no("already_member");
      if (actor) return no("already_pending");
      const role = trigger.role ?? resource.defaultRole;
      if (!isGrantableRole(role)) return no("invalid_role");
      return ok({ kind: "add", state: "requested", role });
    }
    case "acceptInvite":
      return actor?.state === "invited"
        ? ok({ kind: "activate", role: actor.role })
        : no("no_pending_invite");
    case "rejectInvite":
      return actor?.state === "invited" ? ok({ kind: "drop", policies: false }) : no("no_pending_invite");
    case "acceptRequest": {
      if (!actorAdmin) return no("forbidden");
      if (target?.state !== "requested") return no("no_pending_request");
      const role = target.role as GrantableRole;
      if (!canGrant(actor.role, role, resource.grantCeiling)) return no("role_above_ceiling");
      return ok({ kind: "activate", role });
    }
    case "rejectRequest":
      if (!actorAdmin) return no("forbidden");
      return target?.state === "requested" ? ok({ kind: "drop", policies: false }) : no("no_pending_request");
    case "join":
      // A pending invite or request is never resolved by a join: accept it instead.
      if (actorActive) return ok({ kind: "none" });
      if (actor) return no("pending_membership");
      if (!resource.isPublic) return no("not_public");
      return ok({ kind: "add", state: "active", role: resource.defaultRole });
    case "autoJoin":
      // The first write against a public resource joins; reads never do (the data seam asks only on writes).
      if (actorActive) return ok({ kind: "none" });
      if (actor) return no("pending_membership", { autoJoin: true });
      if (!resource.isPublic) return no("forbidden");
      return ok({ kind: "add", state: "active", role: resource.defaultRole });
    case "setRole": {
      if (!actorAdmin) return no("forbidden");
      if (!isGrantableRole(trigger.role)) return no("invalid_role");
      if (target?.state !== "active") return no("not_a_member");
      const refusal = canActOn(actor.role, target.role);
      if (refusal) return no(refusal);
      if (!canGrant(actor.role, trigger.role, resource.grantCeiling)) return no("role_above_ceiling");
      return ok({ kind: "setRole", role: trigger.role });
    }
    case "remove": {
      if (!actorAdmin) return no("forbidden");
      if (!target) return no("not_a_member");
      if (target.role === "owner") return no("target_is_owner");
      if (target.state !== "active") return ok({ kind: "drop", policies: false }); // cancels the invite or request
      const refusal = canActOn(actor.role, target.role);
      return refusal ? no(refusal) : ok({ kind: "drop", policies: true });
    }
    case "leave": {
      if (!actor) return no("not_a_member");
      if (actor.role === "owner") return no("owner_cannot_leave");
      return ok({ kind: "drop", policies: actorActive });
    }
    case "delete":
      if (resource.isAppResource) return no("app_resource_undeletable");
      return trigger.actorIsOwner ? ok({ kind: "deleteResource" }) : no("forbidden");
    // Ownership moves only by consent, like membership: the owner offers, the member accepts
    // (Google Drive's rule). `_app` and statics belong to their app: checked first, whoever asks.
    case "transferOwnership":
      if (resource.isAppOwned) return no("app_resource_untransferable");
      if (!actorIsOwner(actor)) return no("forbidden");
      if (trigger.targetIsActor) return no("target_is_owner");
      if (target?.state !== "active") return no("not_a_member");
      return ok({ kind: "offerOwnership" });
    case "acceptOwnership":
      if (resource.isAppOwned) return no("app_resource_untransferable");
      if (trigger.offer !== "to_actor") return no("no_pending_offer");
      // The target must still be active when it accepts (leaving ends the offer; checked again here).
      if (!actorActive) return no("not_a_member");
      return ok({ kind: "takeOwnership" });
    case "declineOwnership":
      if (resource.isAppOwned) return no("app_resource_untransferable");
      return trigger.offer === "to_actor" ? ok({ kind: "endOffer" }) : no("no_pending_offer");
    case "cancelOwnership":
      if (resource.isAppOwned) return no("app_resource_untransferable");
      if (!actorIsOwner(actor)) return no("forbidden");
      return trigger.offer === "none" ? no("no_pending_offer") : ok({ kind: "endOffer" });
  }
}

const actorIsOwner = (actor?: Membership) => actor?.state === "active" && actor.role === "owner";

/**
 * Whether a change to a member's row ends the pending ownership offer made to that member: an offer
 * lives only while its target is an active member, so any change that ends an active membership
 * (leave, remove) ends it in the same transaction.
 */
export function endsOfferTo(change: Change, before?: Membership): boolean {
  return change.kind === "drop" && before?.state === "active";
}
