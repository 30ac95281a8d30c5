/** Roster: the members of one resource (reached from Resources with enter; esc goes back). */
import type { MemberRow } from "./client.ts";
import { ago } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec } from "./table.tsx";

export const rosterSpec: ListSpec<MemberRow> = {
  noun: "members",
  idOf: (m) => m.userId,
  search: (m) => `${m.userId} ${m.role} ${m.state}`,
  columns: [
    { title: "USER", width: 16, grow: true, cell: (m) => m.userId },
    { title: "ROLE", width: 10, cell: (m) => m.role },
    { title: "STATE", width: 10, cell: (m) => m.state },
    { title: "SINCE", width: 8, cell: (m, now) => ago(m.since, now) },
  ],
};

export function RosterScreen(
  props: Omit<ListScreenProps<MemberRow>, "spec" | "title"> & { resourceName: string },
) {
  const { resourceName, ...rest } = props;
  return <ListScreen title={`Resources › ${resourceName} › members`} spec={rosterSpec} {...rest} />;
}
