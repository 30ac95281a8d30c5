/**
 * The pure rules of account deletion (no clock, no database: deletion.ts reads the rows inside its
 * transaction and asks here).
 *
 * - Who inherits a resource its deleted owner leaves: the longest-standing admin, else the
 *   longest-standing active member (longest-standing: the oldest membership row, then the smaller user
 *   id); with neither, the resource is deleted with the usual cascade. Pending invitees and requesters
 *   never inherit.
 * - Self-deletion needs a recent sign-in: a session created in the last 10 minutes (a refresh does not
 *   renew it), so a cookie left on a shared computer cannot erase an account.
 */
import type { Role } from "../resources/roles.ts";
import type { MemberState } from "../resources/transitions.ts";

export const REAUTHENTICATION_WINDOW_MS = 10 * 60 * 1000;

export interface Candidate {
  userId: string;
  role: Role;
  state: MemberState;
  /** When the membership began (its row's creation), ms. */
  since: number;
}

export function successorOf(members: readonly Candidate[], ownerId: string): string | undefined {
  const active = members
    .filter((m) => m.state === "active" && m.userId !== ownerId)
    .sort((a, b) => a.since - b.since || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  return (active.find((m) => m.role === "admin") ?? active[0])?.userId;
}

/** Whether a session created at `createdAt` is recent enough, at `now`, to delete its account. */
export function signedInRecently(createdAt: number, now: number): boolean {
  return now - createdAt <= REAUTHENTICATION_WINDOW_MS && createdAt <= now;
}
