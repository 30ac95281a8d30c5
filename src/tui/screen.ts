/**
 * What the screen on view holds, from the UI state and its loaded data: the row spec (what keys do with a
 * row), every loaded row, the rows shown (filtered, then sorted) and their ids. Pure, so the app stays a
 * frame around it.
 */
import type { AdminEvent, MemberRow, PendingRow, ResourceRow, SessionRow, UserDetail } from "./client.ts";
import { type Column, sortRows } from "./columns.ts";
import { eventsSpec } from "./events-screen.tsx";
import { filterRows } from "./filter.ts";
import { pendingSpec } from "./pending.tsx";
import { resourcesSpec } from "./resources.tsx";
import { rosterSpec } from "./roster.tsx";
import { sessionsSpec } from "./sessions.tsx";
import type { ListSpec, RowSpec } from "./table.tsx";
import { type Action, placeKey, type UiState } from "./ui-state.ts";
import type { Loaded } from "./use-admin-data.ts";
import { deleteUserAction, revokeAllAction, userItemSpec, userItems } from "./user.tsx";

export type Screen =
  | { view: "overview" }
  | { view: "missing"; message: string }
  | ListModel<SessionRow, "sessions">
  | ListModel<PendingRow, "pending">
  | ListModel<ResourceRow, "resources">
  | ListModel<AdminEvent, "events">
  | (ListModel<MemberRow, "roster"> & { resource: { id: string; name: string } })
  | (ListModel<ReturnType<typeof userItems>[number], "user"> & {
      user: UserDetail | undefined;
      userId: string;
    });

interface ListModel<T, V extends string> {
  view: V;
  spec: RowSpec<T>;
  columns: Column<T>[];
  /** Every loaded row (undefined before the first load). */
  all: T[] | undefined;
  shown: T[] | undefined;
  ids: string[];
  more: boolean;
  /** `X` on this screen. */
  screenAction?: Action;
  /** `D` on this screen. */
  deleteAction?: Action;
}

function model<T, V extends string>(
  view: V,
  spec: RowSpec<T> & Partial<Pick<ListSpec<T>, "columns">>,
  all: T[] | undefined,
  more: boolean,
  ui: UiState,
): ListModel<T, V> {
  const columns = spec.columns ?? [];
  const filtered = all ? filterRows(spec, all, ui.filter[placeKey(ui)] ?? "") : undefined;
  const shown = filtered ? sortRows(columns, filtered, ui.sort[ui.view], Date.now()) : undefined;
  return { view, spec, columns, all, shown, ids: shown?.map((r) => spec.idOf(r)) ?? [], more };
}

/** The spec of a place before its data is known (what the server query is asked with). */
export function specOf(ui: UiState): RowSpec<unknown> | undefined {
  const specs: Record<string, RowSpec<any>> = {
    sessions: sessionsSpec,
    pending: pendingSpec,
    resources: resourcesSpec,
    events: eventsSpec,
  };
  return specs[ui.view];
}

export function screenOf(ui: UiState, loaded: Loaded | undefined): Screen {
  const data = loaded?.data;
  if (ui.view === "overview") return { view: "overview" };
  if (data?.kind === "missing") return { view: "missing", message: data.message };
  const list = data?.kind === "list" ? data : undefined;
  const more = list?.nextCursor != null;
  switch (ui.view) {
    case "sessions":
      return model("sessions", sessionsSpec, list?.rows as SessionRow[] | undefined, more, ui);
    case "pending":
      return model("pending", pendingSpec, list?.rows as PendingRow[] | undefined, more, ui);
    case "resources":
      return model("resources", resourcesSpec, list?.rows as ResourceRow[] | undefined, more, ui);
    case "events":
      return model("events", eventsSpec, list?.rows as AdminEvent[] | undefined, more, ui);
    case "roster": {
      const roster = data?.kind === "roster" ? data : undefined;
      const resource = {
        id: ui.roster?.id ?? "",
        name: roster?.resource.name || ui.roster?.name || ui.roster?.id || "?",
      };
      return { ...model("roster", rosterSpec(resource), roster?.rows, false, ui), resource };
    }
    case "user": {
      const detail = data?.kind === "user" ? data : undefined;
      const items = detail ? userItems(detail.user, detail.events) : undefined;
      return {
        ...model("user", userItemSpec, items, false, ui),
        user: detail?.user,
        userId: ui.user ?? "",
        screenAction: revokeAllAction(detail?.user),
        deleteAction: deleteUserAction(detail?.user),
      };
    }
  }
}
