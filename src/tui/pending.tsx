/**
 * Pending: invites (an admin asked a user) and requests (a user asked to join). `x` withdraws an invite
 * or declines a request (words apart from the confirmation's "cancel", which only closes it).
 */
import type { PendingRow } from "./client.ts";
import { timeKey } from "./columns.ts";
import { ago } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec, longestTerm } from "./table.tsx";
import type { Action } from "./ui-state.ts";

/** Withdraw an invite or decline a request (the admin API's cancel of a pending membership). */
export function withdrawPending(
  p: { resourceId: string; userId: string; state: string },
  resourceName: string,
): Action {
  const invite = p.state === "invited";
  return {
    kind: "cancel-pending",
    resourceId: p.resourceId,
    userId: p.userId,
    label: invite
      ? `Withdraw the invite of ${p.userId} to ${resourceName}?`
      : `Decline the request from ${p.userId} for ${resourceName}?`,
    done: invite
      ? `Withdrew the invite of ${p.userId} to ${resourceName}.`
      : `Declined the request from ${p.userId} for ${resourceName}.`,
  };
}

export const pendingSpec: ListSpec<PendingRow> = {
  noun: "pending invites or requests",
  idOf: (p) => JSON.stringify([p.resourceId, p.userId]),
  search: (p) => `${p.state} ${p.resourceName} ${p.resourceId} ${p.userId} ${p.role} ${p.invitedBy ?? ""}`,
  fields: {
    user: (p) => p.userId,
    resource: (p) => `${p.resourceName} ${p.resourceId}`,
    state: (p) => p.state,
  },
  serverSearch: (f) => longestTerm(f),
  columns: [
    { title: "STATE", min: 7, cell: (p) => p.state },
    { title: "RESOURCE", min: 8, grow: true, cell: (p) => p.resourceName || p.resourceId },
    { title: "USER", min: 6, grow: true, cell: (p) => p.userId },
    { title: "ROLE", min: 5, cell: (p) => p.role },
    { title: "BY", min: 4, cell: (p) => p.invitedBy ?? "-" },
    { title: "AGE", min: 7, cell: (p, now) => ago(p.createdAt, now), sortKey: (p) => -timeKey(p.createdAt) },
  ],
  info: (p) => ({
    action: withdrawPending(p, p.resourceName || p.resourceId),
    open: { view: "roster", id: p.resourceId, name: p.resourceName || p.resourceId },
    user: p.userId,
    copy: p.userId,
  }),
};

export function PendingScreen(props: Omit<ListScreenProps<PendingRow>, "spec" | "title">) {
  return <ListScreen title="Pending invites and requests" spec={pendingSpec} {...props} />;
}
