/**
 * What a key does, as a pure function of the UI state: `handleKey(state, token, context)` returns the next
 * state and the side effects (quit, refresh, perform a confirmed action) for the app to run. Several keys can
 * arrive in one input chunk (SSH, key repeat, tmux), so the app feeds tokens one by one through this function.
 * Selection is kept by row id, with the last index as the fallback when that row disappears.
 */
export type View = "overview" | "sessions" | "pending" | "resources" | "roster";
export const TABS: readonly View[] = ["overview", "sessions", "pending", "resources"];

/** A destructive action waiting for `y`. Everything else (n, esc, enter on the default, q) cancels. */
export type Action =
  | { kind: "revoke-session"; sessionId: string; label: string }
  | { kind: "cancel-pending"; resourceId: string; userId: string; label: string };

export interface Selection {
  id: string | null;
  index: number;
}

export interface UiState {
  view: View;
  roster: { id: string; name: string } | null;
  selection: Partial<Record<View, Selection>>;
  filter: Partial<Record<View, string>>;
  editingFilter: boolean;
  help: boolean;
  confirm: Action | null;
  flash: { text: string; at: number } | null;
}

export const initialUi: UiState = {
  view: "overview",
  roster: null,
  selection: {},
  filter: {},
  editingFilter: false,
  help: false,
  confirm: null,
  flash: null,
};

export type Effect = { type: "quit" } | { type: "refresh" } | { type: "act"; action: Action };

export interface KeyContext {
  /** Ids of the rows on screen (after the filter), top to bottom. */
  ids: readonly string[];
  /** The action `x` would take on this row, if the screen has one. */
  actionFor(id: string): Action | undefined;
  /** The roster a drill-in on this row opens (Resources only). */
  drillFor(id: string): { id: string; name: string } | undefined;
  pageSize: number;
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

export function selectedId(ids: readonly string[], selection: Selection | undefined): string | undefined {
  return ids[selectedIndex(ids, selection)];
}

function select(state: UiState, ids: readonly string[], index: number): UiState {
  if (ids.length === 0) return state;
  const clamped = Math.min(Math.max(index, 0), ids.length - 1);
  const selection = { id: ids[clamped] ?? null, index: clamped };
  return { ...state, selection: { ...state.selection, [state.view]: selection } };
}

function goTo(state: UiState, view: View): UiState {
  return { ...state, view, editingFilter: false };
}

function tabIndex(view: View): number {
  return view === "roster" ? TABS.indexOf("resources") : TABS.indexOf(view);
}

export function handleKey(
  state: UiState,
  token: KeyToken,
  ctx: KeyContext,
): { state: UiState; effects: Effect[] } {
  const none = (next: UiState) => ({ state: next, effects: [] as Effect[] });
  if (state.help)
    return none(token === "?" || token === "esc" || token === "q" ? { ...state, help: false } : state);

  if (state.confirm) {
    if (token === "y" || token === "Y")
      return { state: { ...state, confirm: null }, effects: [{ type: "act", action: state.confirm }] };
    if (token === "n" || token === "N" || token === "esc" || token === "enter" || token === "q")
      return none({ ...state, confirm: null, flash: { text: "Cancelled: nothing changed", at: ctx.now } });
    return none(state);
  }

  const current = selectedIndex(ctx.ids, state.selection[state.view]);
  if (token === "up") return none(select(state, ctx.ids, current - 1));
  if (token === "down") return none(select(state, ctx.ids, current + 1));
  if (token === "pageup") return none(select(state, ctx.ids, current - ctx.pageSize));
  if (token === "pagedown") return none(select(state, ctx.ids, current + ctx.pageSize));
  if (token === "home") return none(select(state, ctx.ids, 0));
  if (token === "end") return none(select(state, ctx.ids, ctx.ids.length - 1));

  if (state.editingFilter) {
    const text = state.filter[state.view] ?? "";
    const setFilter = (value: string, editing: boolean) =>
      none({ ...state, editingFilter: editing, filter: { ...state.filter, [state.view]: value } });
    if (token === "enter") return none({ ...state, editingFilter: false });
    if (token === "esc") return setFilter("", false);
    if (token === "backspace") return setFilter(text.slice(0, -1), true);
    if (token.length === 1 && token >= " ") return setFilter(text + token, true);
    return none(state);
  }

  switch (token) {
    case "q":
      return { state, effects: [{ type: "quit" }] };
    case "j":
      return none(select(state, ctx.ids, current + 1));
    case "k":
      return none(select(state, ctx.ids, current - 1));
    case "g":
      return none(select(state, ctx.ids, 0));
    case "G":
      return none(select(state, ctx.ids, ctx.ids.length - 1));
    case "tab":
      return none(goTo(state, TABS[(tabIndex(state.view) + 1) % TABS.length] ?? "overview"));
    case "backtab":
      return none(goTo(state, TABS[(tabIndex(state.view) + TABS.length - 1) % TABS.length] ?? "overview"));
    case "1":
    case "2":
    case "3":
    case "4":
      return none(goTo(state, TABS[Number(token) - 1] ?? "overview"));
    case "/":
      return none(state.view === "overview" ? state : { ...state, editingFilter: true });
    case "?":
      return none({ ...state, help: true });
    case "r":
      return {
        state: { ...state, flash: { text: "Refreshing…", at: ctx.now } },
        effects: [{ type: "refresh" }],
      };
    case "enter": {
      const id = ctx.ids[current];
      const roster = state.view === "resources" && id ? ctx.drillFor(id) : undefined;
      if (!roster) return none(state);
      return none({
        ...goTo(state, "roster"),
        roster,
        selection: { ...state.selection, roster: { id: null, index: 0 } },
      });
    }
    case "esc":
      if (state.filter[state.view]) return none({ ...state, filter: { ...state.filter, [state.view]: "" } });
      return none(state.view === "roster" ? goTo(state, "resources") : state);
    case "x":
    case "d": {
      const id = ctx.ids[current];
      const action = id ? ctx.actionFor(id) : undefined;
      return none(action ? { ...state, confirm: action } : state);
    }
    default:
      return none(state);
  }
}

/** Splits one `useInput` call into tokens: a named key, or each character of the typed text. */
export function tokenize(input: string, key: Record<string, unknown>): KeyToken[] {
  if (key.upArrow) return ["up"];
  if (key.downArrow) return ["down"];
  if (key.pageUp) return ["pageup"];
  if (key.pageDown) return ["pagedown"];
  if (key.home) return ["home"];
  if (key.end) return ["end"];
  if (key.tab) return [key.shift ? "backtab" : "tab"];
  if (key.return) return ["enter"];
  if (key.escape) return ["esc"];
  if (key.backspace || key.delete) return ["backspace"];
  if (key.ctrl || key.meta) return [];
  return [...input.replace(/\r\n?|\n/g, "")];
}
