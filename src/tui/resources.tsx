/**
 * Resources of every app; enter opens the selected resource's roster. The ID column keeps the end of the
 * id when it must be cut (UUIDv7s made together share their start), so two resources with one name are
 * told apart. The filter's words search names on the server (as one phrase); `type:`, `app:`,
 * `visibility:` and `id:` narrow what came.
 */
import type { ResourceRow } from "./client.ts";
import { timeKey } from "./columns.ts";
import { ago, visibilityWord } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec } from "./table.tsx";

export const resourcesSpec: ListSpec<ResourceRow> = {
  noun: "resources",
  idOf: (r) => r.id,
  search: (r) => r.name,
  fields: { type: (r) => r.type, app: (r) => r.appId, visibility: visibilityWord, id: (r) => r.id },
  // Names are searched as a phrase ("team 7" finds "Team 7" and "Team 70").
  serverSearch: (f) => f.words.join(" ") || undefined,
  columns: [
    { title: "ID", min: 9, max: 36, cut: "start", cell: (r) => r.id },
    { title: "NAME", min: 8, grow: true, cell: (r) => r.name },
    { title: "TYPE", min: 5, cell: (r) => r.type },
    { title: "VISIBILITY", min: 7, cell: visibilityWord },
    { title: "MEMBERS", min: 7, cell: (r) => String(r.memberCount), sortKey: (r) => r.memberCount },
    { title: "APP", min: 4, cell: (r) => r.appId },
    {
      title: "CREATED",
      min: 7,
      cell: (r, now) => ago(r.createdAt, now),
      sortKey: (r) => -timeKey(r.createdAt),
    },
  ],
  info: (r) => ({ open: { view: "roster", id: r.id, name: r.name || r.id }, copy: r.id }),
};

export function ResourcesScreen(props: Omit<ListScreenProps<ResourceRow>, "spec" | "title">) {
  return <ListScreen title="Resources" spec={resourcesSpec} {...props} />;
}
