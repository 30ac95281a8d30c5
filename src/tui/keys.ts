/**
 * What a key does, as a pure function of the UI state: `handleKey(state, token, context)` returns the next
 * state and the side effects (quit, refresh, a confirmed action, a copy) for the app to run. Several keys
 * can arrive in one input chunk (SSH, key repeat, tmux), so the app feeds tokens one by one through this
 * function. Selection is kept by row id, with the last index as the fallback when that row disappears.
 * Every destructive action waits in `confirm` for `y`; with `--readonly` none is ever offered.
 */
import type { GrantableRole } from "./client.ts";
import { nextSort } from "./columns.ts";
import { completeCommand, parseCommand } from "./command.ts";
import {
  type Action,
  type Effect,
  type KeyContext,
  type KeyToken,
  type Place,
  placeKey,
  selectedIndex,
  TABS,
  type TabView,
  type Target,
  type UiState,
} from "./ui-state.ts";

const ROLE_KEYS: Record<string, GrantableRole> = {
  r: "reader",
  w: "writer",
  a: "admin",
  "1": "reader",
  "2": "writer",
  "3": "admin",
};
const DESTRUCTIVE = new Set(["x", "d", "X", "D", "e"]);

type Result = { state: UiState; effects: Effect[] };
const none = (state: UiState): Result => ({ state, effects: [] });
const flash = (state: UiState, text: string, now: number): UiState => ({
  ...state,
  flash: { text, at: now },
});

function select(state: UiState, ids: readonly string[], index: number): UiState {
  if (ids.length === 0) return state;
  const clamped = Math.min(Math.max(index, 0), ids.length - 1);
  const selection = { id: ids[clamped] ?? null, index: clamped };
  return { ...state, selection: { ...state.selection, [placeKey(state)]: selection } };
}

/** A tab or a screen command: a fresh start (no way back), no flash from the screen before. */
function goTo(state: UiState, view: TabView): UiState {
  return {
    ...state,
    view,
    roster: null,
    user: null,
    back: [],
    editingFilter: false,
    paused: false,
    flash: null,
  };
}

/** Enter, `u`, `:user`, `:resource`: the way back is kept; the new place starts at its first row. */
export function open(state: UiState, target: Target): UiState {
  const here: Place = { view: state.view, roster: state.roster, user: state.user };
  const place: Place =
    target.view === "roster"
      ? { view: "roster", roster: { id: target.id, name: target.name }, user: null }
      : { view: "user", roster: null, user: target.id };
  return {
    ...state,
    ...place,
    back: [...state.back, here].slice(-20),
    selection: { ...state.selection, [placeKey(place)]: { id: null, index: 0 } },
    editingFilter: false,
    paused: false,
    flash: null,
  };
}

function goBack(state: UiState): UiState {
  const previous = state.back.at(-1);
  if (!previous) return state;
  return { ...state, ...previous, back: state.back.slice(0, -1), editingFilter: false, flash: null };
}

function tabOf(state: UiState): number {
  const root = state.back[0]?.view ?? state.view;
  return Math.max(0, TABS.indexOf(root as TabView));
}

function runCommand(state: UiState, text: string, now: number): Result {
  const closed = { ...state, command: null, flash: null };
  const command = parseCommand(text);
  switch (command.kind) {
    case "go":
      return none(goTo(closed, command.view));
    case "user":
      return none(open(closed, { view: "user", id: command.id }));
    case "resource":
      return none(open(closed, { view: "roster", id: command.id, name: command.id }));
    case "help":
      return none({ ...closed, help: true, helpScroll: 0 });
    case "quit":
      return { state: closed, effects: [{ type: "quit" }] };
    case "error":
      return none(flash(closed, command.message, now));
  }
}

function commandKey(state: UiState, token: KeyToken, now: number): Result {
  const text = state.command ?? "";
  if (token === "enter") return runCommand(state, text, now);
  if (token === "esc") return none({ ...state, command: null, flash: null });
  if (token === "backspace")
    return none(text ? { ...state, command: text.slice(0, -1) } : { ...state, command: null, flash: null });
  if (token === "tab") {
    const completed = completeCommand(text);
    const next = { ...state, command: completed.text };
    return none(completed.choices.length > 1 ? flash(next, completed.choices.join("  "), now) : next);
  }
  if (token.length === 1 && token >= " ") return none({ ...state, command: text + token });
  return none(state);
}

function filterKey(state: UiState, token: KeyToken): Result {
  const key = placeKey(state);
  const text = state.filter[key] ?? "";
  const setFilter = (value: string, editing: boolean) =>
    none({ ...state, editingFilter: editing, filter: { ...state.filter, [key]: value } });
  if (token === "enter") return none({ ...state, editingFilter: false });
  if (token === "esc") return setFilter("", false);
  if (token === "backspace") return setFilter(text.slice(0, -1), true);
  if (token.length === 1 && token >= " ") return setFilter(text + token, true);
  return none(state);
}

function rolePickKey(state: UiState, token: KeyToken, now: number): Result {
  const pick = state.rolePick;
  if (!pick) return none(state);
  const role = ROLE_KEYS[token];
  if (role) {
    const closed = { ...state, rolePick: null };
    if (role === pick.role)
      return none(flash(closed, `${pick.userId} is already ${role}: nothing to change.`, now));
    const action: Action = {
      kind: "set-role",
      resourceId: pick.resourceId,
      userId: pick.userId,
      role,
      label: `Change ${pick.userId}'s role in ${pick.resourceName} from ${pick.role} to ${role}?`,
      done: `${pick.userId} is now ${role} in ${pick.resourceName}.`,
    };
    return none({ ...closed, confirm: action });
  }
  if (token === "esc" || token === "n" || token === "q" || token === "enter")
    return none(flash({ ...state, rolePick: null }, "Cancelled: nothing changed", now));
  return none(state);
}

export function handleKey(state: UiState, token: KeyToken, ctx: KeyContext): Result {
  if (state.help) {
    if (token === "?" || token === "esc" || token === "q") return none({ ...state, help: false });
    const scroll = (by: number) =>
      none({ ...state, helpScroll: Math.min(Math.max(state.helpScroll + by, 0), ctx.helpOverflow) });
    if (token === "j" || token === "down") return scroll(1);
    if (token === "k" || token === "up") return scroll(-1);
    return none(state);
  }

  if (state.confirm) {
    if (token === "y" || token === "Y")
      return { state: { ...state, confirm: null }, effects: [{ type: "act", action: state.confirm }] };
    if (token === "n" || token === "N" || token === "esc" || token === "enter" || token === "q")
      return none(flash({ ...state, confirm: null }, "Cancelled: nothing changed", ctx.now));
    return none(state);
  }
  if (state.rolePick) return rolePickKey(state, token, ctx.now);
  if (state.command !== null) return commandKey(state, token, ctx.now);

  const current = selectedIndex(ctx.ids, state.selection[placeKey(state)]);
  if (token === "up") return none(select(state, ctx.ids, current - 1));
  if (token === "down") return none(select(state, ctx.ids, current + 1));
  if (token === "pageup") return none(select(state, ctx.ids, current - ctx.pageSize));
  if (token === "pagedown") return none(select(state, ctx.ids, current + ctx.pageSize));
  if (token === "home") return none(select(state, ctx.ids, 0));
  if (token === "end") return none(select(state, ctx.ids, ctx.ids.length - 1));
  if (state.editingFilter) return filterKey(state, token);

  const id = ctx.ids[current];
  const row = id === undefined ? undefined : ctx.row(id);
  if (state.readonly && DESTRUCTIVE.has(token))
    return none(flash(state, `Read-only (--readonly): "${token}" changes nothing here.`, ctx.now));

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
      return none(goTo(state, TABS[(tabOf(state) + 1) % TABS.length] ?? "overview"));
    case "backtab":
      return none(goTo(state, TABS[(tabOf(state) + TABS.length - 1) % TABS.length] ?? "overview"));
    case "1":
    case "2":
    case "3":
    case "4":
    case "5":
      return none(goTo(state, TABS[Number(token) - 1] ?? "overview"));
    case "/":
      return none(state.view === "overview" ? state : { ...state, editingFilter: true });
    case ":":
      return none({ ...state, command: "", flash: null });
    case "?":
      return none({ ...state, help: true, helpScroll: 0 });
    case "r":
      return { state: flash(state, "Refreshing…", ctx.now), effects: [{ type: "refresh" }] };
    case "enter":
      return none(row?.open ? open(state, row.open) : state);
    case "u":
      return none(row?.user ? open(state, { view: "user", id: row.user }) : state);
    case "esc": {
      const key = placeKey(state);
      if (state.filter[key]) return none({ ...state, filter: { ...state.filter, [key]: "" } });
      return none(goBack(state));
    }
    case "x":
    case "d":
      return none(row?.action ? { ...state, confirm: row.action } : state);
    case "X":
      return none(ctx.screenAction ? { ...state, confirm: ctx.screenAction } : state);
    case "D":
      return none(ctx.deleteAction ? { ...state, confirm: ctx.deleteAction } : state);
    case "e":
      if (typeof row?.rolePick === "string") return none(flash(state, row.rolePick, ctx.now));
      return none(row?.rolePick ? { ...state, rolePick: row.rolePick } : state);
    case "c":
      if (!row?.copy) return none(state);
      return {
        state: flash(state, `Copied ${row.copy} to the clipboard (OSC 52).`, ctx.now),
        effects: [{ type: "copy", text: row.copy }],
      };
    case "s": {
      if (ctx.columns === 0) return none(state);
      return none({
        ...state,
        sort: { ...state.sort, [state.view]: nextSort(state.sort[state.view], ctx.columns) },
      });
    }
    case "S": {
      if (ctx.columns === 0) return none(state);
      const sort = state.sort[state.view];
      const flipped = sort ? { ...sort, desc: !sort.desc } : { column: 0, desc: true };
      return none({ ...state, sort: { ...state.sort, [state.view]: flipped } });
    }
    case "p":
    case " ":
      if (state.view !== "events") return none(state);
      return none(
        flash(
          { ...state, paused: !state.paused },
          state.paused ? "Resumed: the newest events again." : "Paused: the list holds still (p resumes).",
          ctx.now,
        ),
      );
    default:
      return none(state);
  }
}

/** Control characters that arrive inside a chunk of typed text (Ink names them only when alone). */
const IN_TEXT: Record<string, KeyToken> = {
  "\r": "enter",
  "\n": "enter",
  "\t": "tab",
  "\u007f": "backspace",
  "\b": "backspace",
};

/**
 * Splits one `useInput` call into tokens: a named key, or each character of the typed text. Keys typed
 * quickly arrive as one chunk ("ops-user\r"): an enter, tab or backspace inside it is a key of its own.
 */
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
  return [...input.replace(/\r\n/g, "\r")].map((ch) => IN_TEXT[ch] ?? ch);
}
