/** Pending: invites (an owner asked a user) and requests (a user asked to join); `x` cancels one. */
import type { PendingRow } from "./client.ts";
import { ago } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec } from "./table.tsx";

export const pendingSpec: ListSpec<PendingRow> = {
  noun: "pending invites or requests",
  idOf: (p) => JSON.stringify([p.resourceId, p.userId]),
  search: (p) => `${p.state} ${p.resourceName} ${p.resourceId} ${p.userId} ${p.role} ${p.invitedBy ?? ""}`,
  columns: [
    { title: "STATE", width: 9, cell: (p) => p.state },
    { title: "RESOURCE", width: 10, grow: true, cell: (p) => p.resourceName || p.resourceId },
    { title: "USER", width: 10, grow: true, cell: (p) => p.userId },
    { title: "ROLE", width: 7, cell: (p) => p.role },
    { title: "BY", width: 8, cell: (p) => p.invitedBy ?? "-" },
    { title: "AGE", width: 8, cell: (p, now) => ago(p.createdAt, now) },
  ],
  action: (p) => ({
    kind: "cancel-pending",
    resourceId: p.resourceId,
    userId: p.userId,
    label: `Cancel the ${p.state === "invited" ? "invite of" : "request from"} ${p.userId} ${p.state === "invited" ? "to" : "for"} ${p.resourceName || p.resourceId}?`,
  }),
};

export function PendingScreen(props: Omit<ListScreenProps<PendingRow>, "spec" | "title">) {
  return <ListScreen title="Pending invites and requests" spec={pendingSpec} {...props} />;
}
