/** Sessions: the live sessions, newest first; `x` revokes the selected one (after a confirmation). */
import type { SessionRow } from "./client.ts";
import { ago, until } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec } from "./table.tsx";

export const sessionsSpec: ListSpec<SessionRow> = {
  noun: "sessions",
  idOf: (s) => s.id,
  search: (s) => `${s.id} ${s.userId} ${s.clientId}`,
  columns: [
    { title: "SESSION", width: 11, grow: true, cell: (s) => s.id },
    { title: "USER", width: 10, grow: true, cell: (s) => s.userId },
    { title: "CLIENT", width: 8, cell: (s) => s.clientId },
    { title: "CREATED", width: 8, cell: (s, now) => ago(s.createdAt, now) },
    { title: "SEEN", width: 8, cell: (s, now) => ago(s.lastSeenAt, now) },
    { title: "EXPIRES", width: 8, cell: (s, now) => until(s.expiresAt, now) },
  ],
  action: (s) => ({
    kind: "revoke-session",
    sessionId: s.id,
    label: `Revoke session ${s.id} (user ${s.userId}, client ${s.clientId})?`,
  }),
};

export function SessionsScreen(props: Omit<ListScreenProps<SessionRow>, "spec" | "title">) {
  return <ListScreen title="Sessions" spec={sessionsSpec} {...props} />;
}
