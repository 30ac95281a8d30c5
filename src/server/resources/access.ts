/**
 * Who may see what of a resource, and who owns it. Pure (rows in, answers out), next to the transition
 * rules, so no route decides access on its own.
 *
 * - A resource is seen by its active members, the invited user, and anyone when it is public; everyone
 *   else gets the answer of a resource that does not exist.
 * - A roster is read by active members, except the app's `_app` roster: consent makes every user of
 *   the app a member of it, so it is a list of the app's users, and only its admins may read it.
 * - A pending requester of a members-only resource sees only what a non-member may: its id and type.
 * - Only a user-owned resource has a user owner: `_app` and statics are owned by their app, whatever
 *   a user's subject looks like (`app:demo` included).
 */
import { APP_RESOURCE_TYPE } from "../apps/registry.ts";
import { isAdmin, type Role } from "./roles.ts";
import type { MemberState } from "./transitions.ts";

export interface ResourceAccessFacts {
  type: string;
  visibility: "members" | "public";
}

export interface MembershipFacts {
  role?: Role;
  state: MemberState;
}

/** Active members, the invited user, anyone if public. */
export function canSee(
  resource: Pick<ResourceAccessFacts, "visibility">,
  membership?: MembershipFacts | null,
) {
  return (
    resource.visibility === "public" || membership?.state === "active" || membership?.state === "invited"
  );
}

export type RosterAccess = "allowed" | "forbidden" | "not_found";

/** Who reads `/members`: active members (admins only for `_app`); a public resource's others get 403. */
export function rosterAccess(
  resource: ResourceAccessFacts,
  membership?: MembershipFacts | null,
): RosterAccess {
  if (membership?.state !== "active") return resource.visibility === "public" ? "forbidden" : "not_found";
  if (resource.type === APP_RESOURCE_TYPE && !(membership.role && isAdmin(membership.role)))
    return "forbidden";
  return "allowed";
}

/** Whether a pending requester may see more than the id and type (only when anyone may). */
export function requesterSeesDetails(resource: Pick<ResourceAccessFacts, "visibility">): boolean {
  return resource.visibility === "public";
}

/** The user who owns a resource: never anyone for an app-owned one. */
export function isOwner(resource: { ownerKind: "user" | "app"; ownerId: string }, userId: string): boolean {
  return resource.ownerKind === "user" && resource.ownerId === userId;
}

/** A resource's facts with the app it belongs to. */
export type AppResourceFacts = ResourceAccessFacts & { appId: string };

/**
 * Whether the caller of `appId` may read the resource (GET /v1/resources/:id), given the caller's
 * membership (null: not a member); otherwise 404.
 */
export function canRead(
  resource: AppResourceFacts,
  membership: MembershipFacts | null,
  appId: string,
): boolean {
  return resource.appId === appId && canSee(resource, membership);
}

/** `rosterAccess` for the caller of `appId`: another app's resource is not found. */
export function callerRosterAccess(
  resource: AppResourceFacts,
  membership: MembershipFacts | null,
  appId: string,
): RosterAccess {
  return resource.appId === appId ? rosterAccess(resource, membership) : "not_found";
}
