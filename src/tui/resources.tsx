/** Resources of every app; enter opens the selected resource's roster. */
import type { ResourceRow } from "./client.ts";
import { ago } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec } from "./table.tsx";

export const resourcesSpec: ListSpec<ResourceRow> = {
  noun: "resources",
  idOf: (r) => r.id,
  search: (r) => `${r.name} ${r.id} ${r.type} ${r.visibility} ${r.appId}`,
  columns: [
    { title: "NAME", width: 11, grow: true, cell: (r) => r.name },
    { title: "TYPE", width: 8, cell: (r) => r.type },
    { title: "VISIBLE", width: 8, cell: (r) => r.visibility },
    { title: "FIND", width: 4, cell: (r) => (r.discoverable ? "yes" : "no") },
    { title: "MEMBERS", width: 7, cell: (r) => String(r.memberCount) },
    { title: "APP", width: 6, grow: true, cell: (r) => r.appId },
    { title: "CREATED", width: 8, cell: (r, now) => ago(r.createdAt, now) },
  ],
  drill: (r) => ({ id: r.id, name: r.name || r.id }),
};

export function ResourcesScreen(props: Omit<ListScreenProps<ResourceRow>, "spec" | "title">) {
  return <ListScreen title="Resources" spec={resourcesSpec} {...props} />;
}
