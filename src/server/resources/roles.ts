/**
 * Roles and their ranking: reader < writer < admin < owner. `owner` is given only by
 * creation (or deploy, to the app), never by invite or setRole. The grant ceiling (Discord's rule: you
 * can grant or act only below or up to what you hold) keeps admins from escalating anyone, themselves
 * included, and nobody acts on the owner or on a peer or superior.
 */

export const ROLES = ["reader", "writer", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];
/** Roles that invite and setRole may assign. */
export const GRANTABLE_ROLES = ["reader", "writer", "admin"] as const;
export type GrantableRole = (typeof GRANTABLE_ROLES)[number];

export function rank(role: Role): number {
  return ROLES.indexOf(role);
}

export function isGrantableRole(role: unknown): role is GrantableRole {
  return typeof role === "string" && (GRANTABLE_ROLES as readonly string[]).includes(role);
}

/** Admin or higher: may invite, accept or reject requests, setRole and remove. */
export function isAdmin(role: Role): boolean {
  return rank(role) >= rank("admin");
}

/** May `actor` give `role` under this type's `ceiling`? Never above the ceiling, never above the actor. */
export function canGrant(actor: Role, role: GrantableRole, ceiling: GrantableRole): boolean {
  return rank(role) <= rank(ceiling) && rank(role) <= rank(actor);
}

export type ActOnRefusal = "target_is_owner" | "insufficient_rank";

/** May `actor` change or remove a member holding `target`? Not the owner, not a peer or superior. */
export function canActOn(actor: Role, target: Role): ActOnRefusal | null {
  if (target === "owner") return "target_is_owner";
  if (rank(target) >= rank(actor)) return "insufficient_rank";
  return null;
}
