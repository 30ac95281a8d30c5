/**
 * Events: the audit log as the admin event stream carries it, newest first, live (each event re-lists the
 * screen) unless paused with `p` or space, when the list holds still and counts what arrived meanwhile.
 * `/type:member.removed`, `/user:bob`, `/resource:<id>` or plain words filter; enter opens the event's
 * resource (or its user), `u` its user.
 */
import type { AdminEvent } from "./client.ts";
import { timeKey } from "./columns.ts";
import { ago } from "./format.ts";
import { ListScreen, type ListScreenProps, type ListSpec, longestTerm } from "./table.tsx";
import type { RowInfo } from "./ui-state.ts";

export function eventInfo(e: AdminEvent): RowInfo {
  const user = e.userId ?? e.actor ?? undefined;
  return {
    open: e.resourceId
      ? { view: "roster", id: e.resourceId, name: e.resourceId }
      : user
        ? { view: "user", id: user }
        : undefined,
    user,
    copy: e.resourceId ?? user,
  };
}

/** What an event's data says in a few words (a role, the state left, a session). */
export function eventDetail(e: AdminEvent): string {
  const data = (e.data ?? {}) as Record<string, unknown>;
  return Object.entries(data)
    .filter(([, v]) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
}

export const EVENT_COLUMNS = {
  age: {
    title: "AGE",
    min: 7,
    cell: (e: AdminEvent, now: number) => ago(e.at, now),
    sortKey: (e: AdminEvent) => -timeKey(e.at),
  },
  type: { title: "TYPE", min: 10, cell: (e: AdminEvent) => e.type },
  user: { title: "USER", min: 6, cell: (e: AdminEvent) => e.userId ?? "-" },
  resource: {
    title: "RESOURCE",
    min: 9,
    max: 36,
    cut: "start" as const,
    cell: (e: AdminEvent) => e.resourceId ?? "-",
  },
  actor: { title: "BY", min: 5, cell: (e: AdminEvent) => e.actor ?? "-" },
  detail: { title: "DETAIL", min: 6, grow: true, cell: eventDetail },
};

export const eventsSpec: ListSpec<AdminEvent> = {
  noun: "events",
  idOf: (e) => String(e.id),
  search: (e) => `${e.type} ${e.userId ?? ""} ${e.actor ?? ""} ${e.resourceId ?? ""}`,
  fields: {
    type: (e) => e.type,
    user: (e) => `${e.userId ?? ""} ${e.actor ?? ""}`,
    resource: (e) => e.resourceId ?? "",
  },
  serverSearch: (f) => longestTerm(f),
  columns: Object.values(EVENT_COLUMNS),
  info: eventInfo,
};

export function EventsScreen(
  props: Omit<ListScreenProps<AdminEvent>, "spec" | "title"> & { paused: boolean; held: number },
) {
  const { paused, held, ...rest } = props;
  const title = paused ? `Events · PAUSED${held ? ` · ${held} new` : ""} (p resumes)` : "Events · live";
  return <ListScreen title={title} spec={eventsSpec} {...rest} />;
}
