/**
 * A user: welcome credit and balance, live sessions, memberships with roles and states, and their latest
 * events, in one scrolling list whose rows the keys act on: `x` revokes the selected session, `X` every
 * session of the user, `D` deletes the account (each behind a confirmation), enter opens a membership's
 * or an event's resource.
 * Reached with enter or `u` from a session, a roster row, a pending row or an event, or `:user <id>`.
 */
import { Box } from "ink";
import type { AdminEvent, EndedSession, Membership, SessionRow, UserDetail } from "./client.ts";
import { type Column, columnWidths } from "./columns.ts";
import { EVENT_COLUMNS, eventInfo } from "./events-screen.tsx";
import { ago, money } from "./format.ts";
import { revokeSession, SESSION_COLUMNS } from "./sessions.tsx";
import { formatCells, headerCells, type RowSpec } from "./table.tsx";
import { Text } from "./text.tsx";
import type { Action } from "./ui-state.ts";
import { useNow } from "./use-now.ts";

export type UserItem =
  | { kind: "session"; id: string; session: SessionRow }
  | { kind: "ended"; id: string; ended: EndedSession }
  | { kind: "membership"; id: string; membership: Membership }
  | { kind: "event"; id: string; event: AdminEvent };

export function userItems(user: UserDetail, events: readonly AdminEvent[]): UserItem[] {
  return [
    ...user.sessions.map((session) => ({ kind: "session" as const, id: `s:${session.id}`, session })),
    ...(user.endedSessions ?? []).map((ended) => ({ kind: "ended" as const, id: `x:${ended.id}`, ended })),
    ...user.memberships.map((membership) => ({
      kind: "membership" as const,
      id: `m:${membership.resourceId}`,
      membership,
    })),
    ...events.map((event) => ({ kind: "event" as const, id: `e:${event.id}`, event })),
  ];
}

export const userItemSpec: RowSpec<UserItem> = {
  noun: "sessions, memberships or events",
  idOf: (item) => item.id,
  search: (item) =>
    item.kind === "session"
      ? `${item.session.id} ${item.session.clientId}`
      : item.kind === "ended"
        ? `${item.ended.id} ${item.ended.clientId} ${item.ended.reason}`
        : item.kind === "membership"
          ? `${item.membership.resourceName} ${item.membership.resourceId} ${item.membership.type} ${item.membership.role} ${item.membership.state}`
          : `${item.event.type} ${item.event.resourceId ?? ""} ${item.event.actor ?? ""}`,
  info: (item) => {
    if (item.kind === "session") return { action: revokeSession(item.session), copy: item.session.id };
    if (item.kind === "ended") return { copy: item.ended.id };
    if (item.kind === "membership") {
      const m = item.membership;
      return {
        open: { view: "roster", id: m.resourceId, name: m.resourceName || m.resourceId },
        copy: m.resourceId,
      };
    }
    return { ...eventInfo(item.event), user: undefined };
  },
};

/** `X`: every live session of the user, or nothing when there is none. */
export function revokeAllAction(user: UserDetail | undefined): Action | undefined {
  if (!user || user.sessions.length === 0) return undefined;
  const n = user.sessions.length;
  return {
    kind: "revoke-user-sessions",
    userId: user.userId,
    label: `Revoke all ${n} session${n === 1 ? "" : "s"} of ${user.userId}? They are signed out everywhere.`,
    done: `Revoked every session of ${user.userId}.`,
  };
}

/**
 * `D`: delete the account, after a confirmation that names what happens to what the user owns: each
 * resource passes to its heir (the longest-standing admin, else active member) or is deleted.
 */
export function deleteUserAction(user: UserDetail | undefined): Action | undefined {
  if (!user) return undefined;
  const { transfer, delete: gone } = user.ifDeleted;
  // At most three named per kind, so the question fits its box.
  const some = (list: readonly string[]) =>
    list.length > 3 ? `${list.slice(0, 3).join(", ")} and ${list.length - 3} more` : list.join(", ");
  const fate = [
    transfer.length ? `passes ${some(transfer.map((r) => `${r.name} to ${r.to}`))}` : "",
    gone.length ? `deletes ${some(gone.map((r) => r.name))}` : "",
  ].filter(Boolean);
  return {
    kind: "delete-user",
    userId: user.userId,
    label: `Delete user ${user.userId}? It ${fate.length ? `${fate.join("; ")}; it ` : ""}ends their memberships and sessions. There is no undo.`,
    done: `Deleted user ${user.userId}.`,
  };
}

const MEMBERSHIP_COLUMNS: Column<Membership>[] = [
  { title: "RESOURCE", min: 8, grow: true, cell: (m) => m.resourceName || m.resourceId },
  { title: "TYPE", min: 5, cell: (m) => m.type },
  { title: "APP", min: 4, cell: (m) => m.appId },
  { title: "ROLE", min: 5, cell: (m) => m.role },
  { title: "STATE", min: 6, cell: (m) => m.state },
];
const USER_SESSION_COLUMNS = [
  SESSION_COLUMNS.id,
  SESSION_COLUMNS.client,
  SESSION_COLUMNS.created,
  SESSION_COLUMNS.seen,
  SESSION_COLUMNS.expires,
];
/** Why a session ended, as the operator reads it (the reason codes are the SDK's). */
const ENDED_WORDS: Record<string, string> = {
  signed_out: "signed out",
  signed_out_elsewhere: "signed out from another device",
  revoked: "revoked by an operator",
  expired: "expired",
  reused: "refresh token reused (theft)",
  replaced: "replaced by a new sign-in",
  deleted: "account deleted",
  provider_logout: "signed out at the provider",
};
const ENDED_COLUMNS: Column<EndedSession>[] = [
  { title: "SESSION", min: 10, max: 24, cell: (s) => s.id },
  { title: "CLIENT", min: 6, cell: (s) => s.clientId },
  { title: "ENDED", min: 7, cell: (s, now) => ago(s.endedAt, now) },
  { title: "WHY", min: 6, grow: true, cell: (s) => ENDED_WORDS[s.reason] ?? s.reason },
];
const USER_EVENT_COLUMNS = [
  EVENT_COLUMNS.age,
  EVENT_COLUMNS.type,
  EVENT_COLUMNS.resource,
  EVENT_COLUMNS.actor,
  EVENT_COLUMNS.detail,
];

interface Line {
  key: string;
  text: string;
  /** The item this line shows (selectable). */
  id?: string;
  heading?: boolean;
}

/** One section: a heading with its count, the column header, its rows. */
function section<T>(
  title: string,
  columns: readonly Column<T>[],
  rows: readonly T[],
  idOf: (row: T) => string,
  width: number,
  now: number,
  empty: string,
): Line[] {
  const widths = columnWidths(columns, rows, width - 4, now);
  const lines: Line[] = [{ key: `h:${title}`, text: `${title} ${rows.length}`, heading: true }];
  if (rows.length === 0) return [...lines, { key: `none:${title}`, text: `    ${empty}` }];
  lines.push({ key: `c:${title}`, text: `    ${headerCells(columns, widths)}` });
  for (const row of rows)
    lines.push({ key: idOf(row), id: idOf(row), text: formatCells(columns, widths, row, now) });
  return lines;
}

export function UserScreen(props: {
  userId: string;
  user: UserDetail | undefined;
  /** The items after the filter. */
  items: UserItem[];
  selected: number;
  filter: string;
  editing: boolean;
  width: number;
  height: number;
}) {
  const now = useNow();
  const { user, items, width } = props;
  const filter = props.editing
    ? `  filter: /${props.filter}_`
    : props.filter
      ? `  filter: ${props.filter} (esc clears)`
      : "";
  const head = user
    ? `User ${user.userId} · welcome credit ${user.welcomed ? "granted" : "not granted"} · balance ${money(user.balanceUsd)}`
    : `User ${props.userId} loading…`;
  const pick = <K extends UserItem["kind"]>(kind: K) =>
    items.filter((i): i is Extract<UserItem, { kind: K }> => i.kind === kind);
  const lines: Line[] = user
    ? [
        ...section(
          "Sessions",
          USER_SESSION_COLUMNS,
          pick("session").map((i) => i.session),
          (s) => `s:${s.id}`,
          width,
          now,
          "no live session",
        ),
        ...section(
          "Ended sessions",
          ENDED_COLUMNS,
          pick("ended").map((i) => i.ended),
          (s) => `x:${s.id}`,
          width,
          now,
          "no ended session",
        ),
        ...section(
          "Memberships",
          MEMBERSHIP_COLUMNS,
          pick("membership").map((i) => i.membership),
          (m) => `m:${m.resourceId}`,
          width,
          now,
          "no membership",
        ),
        ...section(
          "Recent events",
          USER_EVENT_COLUMNS,
          pick("event").map((i) => i.event),
          (e) => `e:${e.id}`,
          width,
          now,
          "no event",
        ),
      ]
    : [];
  const selectedId = items[props.selected]?.id;
  const at = Math.max(
    0,
    lines.findIndex((l) => l.id !== undefined && l.id === selectedId),
  );
  const bodyHeight = Math.max(1, props.height - 1);
  const start = Math.max(0, Math.min(at - Math.floor(bodyHeight / 2), lines.length - bodyHeight));
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate-end">
        <Text bold>{head}</Text>
        {filter}
      </Text>
      {lines.slice(start, start + bodyHeight).map((line) => {
        const isSelected = line.id !== undefined && line.id === selectedId;
        if (line.heading)
          return (
            <Text key={line.key} bold wrap="truncate-end">
              {line.text}
            </Text>
          );
        return (
          <Text key={line.key} inverse={isSelected} wrap="truncate-end">
            {line.id ? `  ${isSelected ? ">" : " "} ${line.text}` : line.text}
          </Text>
        );
      })}
    </Box>
  );
}
