/**
 * The UI's state and the words the screens and the key handler share: views and places, the actions a
 * confirmation waits on, what the keys can do with a row, and the selection kept by row id.
 */
import type { GrantableRole } from "./client.ts";
import type { Sort } from "./columns.ts";

export type TabView = "overview" | "sessions" | "pending" | "resources" | "events";
export type View = TabView | "roster" | "user";
export const TABS: readonly TabView[] = ["overview", "sessions", "pending", "resources", "events"];

/** A destructive action waiting for `y`: `label` asks, `done` is the flash once it worked. */
export type Action = { label: string; done: string } & (
  | { kind: "revoke-session"; sessionId: string }
  | { kind: "revoke-user-sessions"; userId: string }
  | { kind: "delete-user"; userId: string }
  | { kind: "cancel-pending"; resourceId: string; userId: string }
  | { kind: "remove-member"; resourceId: string; userId: string }
  | { kind: "set-role"; resourceId: string; userId: string; role: GrantableRole }
);

/** Where enter (or `u`, or a command) leads. */
export type Target = { view: "roster"; id: string; name: string } | { view: "user"; id: string };

/** The role picker of a roster row (`e`): the member and their role now. */
export interface RolePick {
  resourceId: string;
  resourceName: string;
  userId: string;
  role: string;
}

/** What the keys can do with one row of the screen. */
export interface RowInfo {
  /** `x`: revoke, withdraw, remove. */
  action?: Action;
  /** enter. */
  open?: Target;
  /** `u`: the row's user. */
  user?: string;
  /** `c`: the id copied. */
  copy?: string;
  /** `e`: the role picker, or why the role cannot change. */
  rolePick?: RolePick | string;
}

export interface Selection {
  id: string | null;
  index: number;
}

export interface Place {
  view: View;
  roster: { id: string; name: string } | null;
  user: string | null;
}

export interface UiState extends Place {
  /** Where esc goes back to (enter, `u` and `:user` push; the tabs start over). */
  back: Place[];
  /** By place (a roster's selection is its own). */
  selection: Record<string, Selection>;
  filter: Record<string, string>;
  editingFilter: boolean;
  sort: Partial<Record<View, Sort>>;
  /** The `:` line being typed, or null. */
  command: string | null;
  rolePick: RolePick | null;
  /** Events: the list holds still while new events are counted. */
  paused: boolean;
  help: boolean;
  helpScroll: number;
  readonly: boolean;
  confirm: Action | null;
  flash: { text: string; at: number } | null;
}

export function createUi(options: { readonly?: boolean } = {}): UiState {
  return {
    view: "overview",
    roster: null,
    user: null,
    back: [],
    selection: {},
    filter: {},
    editingFilter: false,
    sort: {},
    command: null,
    rolePick: null,
    paused: false,
    help: false,
    helpScroll: 0,
    readonly: options.readonly ?? false,
    confirm: null,
    flash: null,
  };
}

/** The place's key: its data, selection and filter are its own (each roster, each user). */
export function placeKey(place: Place): string {
  if (place.view === "roster") return `roster:${place.roster?.id ?? ""}`;
  if (place.view === "user") return `user:${place.user ?? ""}`;
  return place.view;
}

export type Effect =
  | { type: "quit" }
  | { type: "refresh" }
  | { type: "act"; action: Action }
  | { type: "copy"; text: string };

export interface KeyContext {
  /** Ids of the rows on screen (after filter and sort), top to bottom. */
  ids: readonly string[];
  row(id: string): RowInfo | undefined;
  /** How many columns the screen sorts by (0: it does not sort). */
  columns: number;
  /** `X` on this screen (a user's revoke-all). */
  screenAction?: Action;
  /** `D` on this screen (deleting a user). */
  deleteAction?: Action;
  pageSize: number;
  /** Lines of help that do not fit (how far it scrolls). */
  helpOverflow: number;
  now: number;
}

/** Special keys by name; anything of length 1 is a typed character. */
export type KeyToken =
  | "up"
  | "down"
  | "pageup"
  | "pagedown"
  | "home"
  | "end"
  | "tab"
  | "backtab"
  | "enter"
  | "esc"
  | "backspace"
  | (string & {});

export function selectedIndex(ids: readonly string[], selection: Selection | undefined): number {
  if (ids.length === 0) return -1;
  const found = selection?.id ? ids.indexOf(selection.id) : -1;
  if (found >= 0) return found;
  return Math.min(Math.max(selection?.index ?? 0, 0), ids.length - 1);
}
