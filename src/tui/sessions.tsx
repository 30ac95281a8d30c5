/** Sessions: the live sessions, newest first; `x` revokes the selected one, enter opens its user. */
import type { SessionRow } from "./client.ts";
import { type Column, timeKey } from "./columns.ts";
import { ago, until } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec, longestTerm } from "./table.tsx";
import type { Action } from "./ui-state.ts";

export function revokeSession(s: SessionRow): Action {
  return {
    kind: "revoke-session",
    sessionId: s.id,
    label: `Revoke session ${s.id} (user ${s.userId}, client ${s.clientId})?`,
    done: `Revoked session ${s.id}.`,
  };
}

/** A session's columns (the user screen shows them too, without USER). */
export const SESSION_COLUMNS = {
  id: { title: "SESSION", min: 10, max: 24, cell: (s) => s.id },
  user: { title: "USER", min: 8, grow: true, cell: (s) => s.userId },
  client: { title: "CLIENT", min: 6, cell: (s) => s.clientId },
  created: {
    title: "CREATED",
    min: 7,
    cell: (s, now) => ago(s.createdAt, now),
    sortKey: (s) => -timeKey(s.createdAt),
  },
  seen: {
    title: "SEEN",
    min: 7,
    cell: (s, now) => ago(s.lastSeenAt, now),
    sortKey: (s) => -timeKey(s.lastSeenAt),
  },
  expires: {
    title: "EXPIRES",
    min: 7,
    cell: (s, now) => until(s.expiresAt, now),
    sortKey: (s) => timeKey(s.expiresAt),
  },
} satisfies Record<string, Column<SessionRow>>;

export const sessionsSpec: ListSpec<SessionRow> = {
  noun: "sessions",
  idOf: (s) => s.id,
  search: (s) => `${s.id} ${s.userId} ${s.clientId}`,
  fields: { user: (s) => s.userId, client: (s) => s.clientId },
  serverSearch: (f) => longestTerm(f),
  columns: Object.values(SESSION_COLUMNS),
  info: (s) => ({
    action: revokeSession(s),
    open: { view: "user", id: s.userId },
    user: s.userId,
    copy: s.id,
  }),
};

export function SessionsScreen(props: Omit<ListScreenProps<SessionRow>, "spec" | "title">) {
  return <ListScreen title="Sessions" spec={sessionsSpec} {...props} />;
}
