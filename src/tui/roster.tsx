/**
 * Roster: the members of one resource, active and pending (reached with enter from Resources, Pending,
 * Events or a user, or `:resource <id>`; esc goes back). `x` removes an active member (onMemberRemove
 * applies) or withdraws an invite / declines a request; `e` changes an active member's role. The title
 * counts active members (what the Resources list's MEMBERS counts) and pending ones apart.
 */
import type { MemberRow } from "./client.ts";
import { timeKey } from "./columns.ts";
import { ago } from "./format.ts";
import { withdrawPending } from "./pending.tsx";
import { ListScreen, type ListScreenProps, type ListSpec } from "./table.tsx";
import type { RowInfo } from "./ui-state.ts";

function memberInfo(resource: { id: string; name: string }, m: MemberRow): RowInfo {
  const common = { open: { view: "user", id: m.userId } as const, user: m.userId, copy: m.userId };
  if (m.state !== "active")
    return {
      ...common,
      action: withdrawPending({ resourceId: resource.id, userId: m.userId, state: m.state }, resource.name),
      rolePick: `${m.userId} is ${m.state}, not a member yet: only an active member's role changes.`,
    };
  if (m.role === "owner")
    return { ...common, rolePick: "The owner's role never changes, and the owner cannot be removed." };
  return {
    ...common,
    action: {
      kind: "remove-member",
      resourceId: resource.id,
      userId: m.userId,
      label: `Remove ${m.userId} (${m.role}) from ${resource.name}? Their rows follow each table's onMemberRemove.`,
      done: `Removed ${m.userId} from ${resource.name}.`,
    },
    rolePick: { resourceId: resource.id, resourceName: resource.name, userId: m.userId, role: m.role },
  };
}

export function rosterSpec(resource: { id: string; name: string }): ListSpec<MemberRow> {
  return {
    noun: "members",
    idOf: (m) => m.userId,
    search: (m) => `${m.userId} ${m.role} ${m.state}`,
    fields: { user: (m) => m.userId, role: (m) => m.role, state: (m) => m.state },
    serverSearch: undefined,
    columns: [
      { title: "USER", min: 8, grow: true, cell: (m) => m.userId },
      { title: "ROLE", min: 6, cell: (m) => m.role },
      { title: "STATE", min: 6, cell: (m) => m.state },
      { title: "SINCE", min: 7, cell: (m, now) => ago(m.since, now), sortKey: (m) => -timeKey(m.since) },
    ],
    info: (m) => memberInfo(resource, m),
  };
}

/** "2 active · 1 pending": the roster's counts, active as the Resources list counts them. */
export function rosterCounts(members: readonly MemberRow[]): string {
  const active = members.filter((m) => m.state === "active").length;
  return `${active} active · ${members.length - active} pending`;
}

export function RosterScreen(
  props: Omit<ListScreenProps<MemberRow>, "spec" | "title" | "counts"> & {
    resource: { id: string; name: string };
  },
) {
  const { resource, ...rest } = props;
  return (
    <ListScreen
      title={`Resources › ${resource.name} › members`}
      spec={rosterSpec(resource)}
      counts={props.rows ? rosterCounts(props.all) : undefined}
      {...rest}
    />
  );
}
