/**
 * The operator dashboard: one screen at a time inside a fixed frame whose height stays below the terminal's
 * (Ink redraws badly at full height). Keys go through the pure `handleKey`, one character at a time; the
 * effects it asks for (quit, refresh, a confirmed action, a copy) run here, and every action re-lists. A
 * refused token ends the app (`onFatal`): no retry behind "loading…".
 */
import { Box, useApp, useInput, useStdin, useStdout, useWindowSize } from "ink";
import { useEffect, useRef, useState } from "react";
import { alertFor } from "./alerts.ts";
import {
  CommandLine,
  ConfirmBox,
  confirmHeight,
  Footer,
  Header,
  Help,
  helpOverflow,
  keysFor,
  MIN_COLUMNS,
  MIN_ROWS,
  RolePicker,
  Tabs,
  TooSmall,
} from "./chrome.tsx";
import type { AdminClient } from "./client.ts";
import { osc52 } from "./clipboard.ts";
import { describeError } from "./errors.ts";
import { EventsScreen } from "./events-screen.tsx";
import { handleKey, tokenize } from "./keys.ts";
import { OverviewScreen } from "./overview.tsx";
import { PendingScreen } from "./pending.tsx";
import { ResourcesScreen } from "./resources.tsx";
import { RosterScreen } from "./roster.tsx";
import { type Screen, screenOf, specOf } from "./screen.ts";
import { SessionsScreen } from "./sessions.tsx";
import { serverQuery } from "./table.tsx";
import { Text } from "./text.tsx";
import {
  type Action,
  createUi,
  type Effect,
  placeKey,
  type RowInfo,
  selectedIndex,
  TABS,
  type TabView,
} from "./ui-state.ts";
import { dataKey, useAdminData } from "./use-admin-data.ts";
import { useStore } from "./use-store.ts";
import { UserScreen } from "./user.tsx";

export interface AppProps {
  client: AdminClient;
  /** Full re-list period (the safety net under the event stream). */
  resyncMs?: number;
  /** Data older than this is marked STALE. */
  staleMs?: number;
  /** Overrides the terminal size (tests). */
  size?: { columns: number; rows: number };
  flashMs?: number;
  /** No destructive action at all (`--readonly`). */
  readonly?: boolean;
  /** Puts text on the operator's clipboard (default: OSC 52 on stdout). */
  copy?: (text: string) => void;
  /** Called with the code of a refusal no retry can fix (a wrong token); the app then exits. */
  onFatal?: (code: string) => void;
}

async function perform(client: AdminClient, action: Action): Promise<string> {
  switch (action.kind) {
    case "revoke-session":
      await client.revokeSession(action.sessionId);
      return action.done;
    case "revoke-user-sessions": {
      const n = await client.revokeUserSessions(action.userId);
      return `Revoked ${n} session${n === 1 ? "" : "s"} of ${action.userId}.`;
    }
    case "delete-user": {
      const { transferred, deleted } = await client.deleteUser(action.userId);
      return `Deleted user ${action.userId}: ${transferred} resource${transferred === 1 ? "" : "s"} passed on, ${deleted} deleted.`;
    }
    case "cancel-pending":
      await client.cancelPending(action.resourceId, action.userId);
      return action.done;
    case "remove-member":
      await client.removeMember(action.resourceId, action.userId);
      return action.done;
    case "set-role":
      await client.setRole(action.resourceId, action.userId, action.role);
      return action.done;
  }
}

export function App(props: AppProps) {
  const window = useWindowSize();
  const { columns, rows } = props.size ?? window;
  const { exit } = useApp();
  const { stdout } = useStdout();
  const { isRawModeSupported } = useStdin();
  const [ui, update] = useStore(createUi({ readonly: props.readonly }));
  const { client } = props;
  const [held, setHeld] = useState(0);
  const paused = ui.view === "events" && ui.paused;
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  const place = placeKey(ui);
  const filter = ui.filter[place] ?? "";
  const spec = specOf(ui);
  const search = spec && !ui.editingFilter ? serverQuery(spec, filter) : undefined;
  const data = useAdminData(client, dataKey(place, { query: search }), {
    resyncMs: props.resyncMs,
    frozen: paused,
    onEvent: (event) => {
      if (pausedRef.current) setHeld((n) => n + 1);
      const alert = alertFor(event);
      if (alert) update((s) => ({ ...s, flash: { text: alert, at: Date.now() } }));
    },
  });
  const flashMs = props.flashMs ?? 5000;

  const screen: Screen = screenOf(ui, data.loaded);
  const list = "ids" in screen ? screen : undefined;
  const ids = list?.ids ?? [];
  const selected = selectedIndex(ids, ui.selection[place]);
  const height = rows - 1;
  const popup = ui.confirm ? confirmHeight(ui.confirm, columns) : ui.rolePick ? 4 : 0;
  const bodyHeight = height - 4 - popup;
  const pageSize = Math.max(1, bodyHeight - 3);
  const tooSmall = columns < MIN_COLUMNS || rows < MIN_ROWS;

  useEffect(() => {
    if (!paused) setHeld(0);
  }, [paused]);

  // A refused token is final: say so and leave (the caller prints it and exits 2).
  useEffect(() => {
    if (!data.fatal) return;
    props.onFatal?.(data.fatal);
    exit();
  }, [data.fatal, exit, props.onFatal]);

  // Pin the selection to the row on screen, so that it follows that row's id when rows arrive above it;
  // if the row is gone from the gateway, the neighbour at the same index takes over, and we say so.
  const allIds = list?.all?.map((row) => (list.spec.idOf as (r: unknown) => string)(row));
  useEffect(() => {
    if (!allIds || ids.length === 0) return;
    // Decide on the state as it is now (keys may have moved the selection since this render).
    update((s) => {
      const key = placeKey(s);
      const previous = s.selection[key];
      const index = selectedIndex(ids, previous);
      const id = ids[index];
      if (id === undefined || key !== place || previous?.id === id) return s;
      const vanished = previous?.id != null && !allIds.includes(previous.id);
      const flash =
        vanished && !s.flash
          ? { text: "The selected row is gone; moved to its neighbour.", at: Date.now() }
          : s.flash;
      return { ...s, selection: { ...s.selection, [key]: { id, index } }, flash };
    });
  });

  // Near the end of what is loaded, the next page comes (the API's cursor).
  useEffect(() => {
    if (list?.more && list.shown && selected >= list.shown.length - pageSize) data.loadMore();
  });

  useEffect(() => {
    const shownFlash = ui.flash;
    if (!shownFlash) return;
    const timer = setTimeout(
      () => update((s) => (s.flash === shownFlash ? { ...s, flash: null } : s)),
      flashMs,
    );
    return () => clearTimeout(timer);
  }, [ui.flash, update, flashMs]);

  const flash = (text: string) => update((s) => ({ ...s, flash: { text, at: Date.now() } }));

  async function act(action: Action) {
    try {
      flash(await perform(client, action));
    } catch (error) {
      flash(`Failed: ${describeError(error)}. ${action.label.replace(/\?.*$/, "")}: not done.`);
    }
    data.refresh();
  }

  const copy = props.copy ?? ((text: string) => stdout.write(osc52(text)));
  function run(effect: Effect) {
    if (effect.type === "quit") exit();
    else if (effect.type === "refresh") data.refresh();
    else if (effect.type === "copy") copy(effect.text);
    else void act(effect.action);
  }

  useInput(
    (input, key) => {
      if (tooSmall) {
        if (input.includes("q")) exit();
        return;
      }
      const context = {
        ids,
        row: (id: string) => {
          const row = list?.shown?.[ids.indexOf(id)];
          return row === undefined || !list ? undefined : (list.spec.info as (r: unknown) => RowInfo)(row);
        },
        columns: list?.columns.length ?? 0,
        screenAction: list?.screenAction,
        deleteAction: list?.deleteAction,
        pageSize,
        helpOverflow: helpOverflow(bodyHeight),
        now: Date.now(),
      };
      const effects: Effect[] = [];
      for (const token of tokenize(input, key as unknown as Record<string, unknown>)) {
        update((s) => {
          const result = handleKey(s, token, context);
          effects.push(...result.effects);
          return result.state;
        });
        if (effects.some((e) => e.type === "quit")) break;
      }
      for (const effect of effects) run(effect);
    },
    { isActive: isRawModeSupported === true },
  );

  if (tooSmall) return <TooSmall columns={columns} rows={rows} />;
  if (data.fatal)
    return (
      <Text color="red" bold>
        {`The admin API at ${client.url} refused this token (${data.fatal}). Exiting.`}
      </Text>
    );

  const loadedAt = data.loaded?.at;
  const root = ui.back[0]?.view ?? ui.view;
  const activeTab: TabView = (TABS as readonly string[]).includes(root) ? (root as TabView) : "resources";
  return (
    <Box flexDirection="column" width={columns} height={height}>
      <Header url={client.url} connection={data.connection} readonly={ui.readonly} />
      <Tabs active={activeTab} />
      <Box flexDirection="column" height={bodyHeight} overflow="hidden">
        {ui.help ? <Help height={bodyHeight} scroll={ui.helpScroll} readonly={ui.readonly} /> : renderBody()}
      </Box>
      {ui.confirm ? <ConfirmBox action={ui.confirm} /> : null}
      {ui.rolePick ? <RolePicker pick={ui.rolePick} /> : null}
      {ui.command !== null ? (
        <CommandLine text={ui.command} choices={ui.flash?.text} />
      ) : (
        <Text wrap="truncate-end" color="cyan">
          {ui.flash ? ui.flash.text : " "}
        </Text>
      )}
      <Footer
        keys={keysFor(ui.view, {
          editing: ui.editingFilter,
          confirm: ui.confirm !== null,
          help: ui.help,
          picking: ui.rolePick !== null,
          readonly: ui.readonly,
        })}
        updatedAt={loadedAt}
        stale={data.connection.ok === false}
        staleMs={props.staleMs ?? 65_000}
      />
    </Box>
  );

  function renderBody() {
    if (screen.view === "overview")
      return (
        <OverviewScreen
          overview={data.loaded?.data.kind === "overview" ? data.loaded.data.overview : undefined}
          height={bodyHeight}
        />
      );
    if (screen.view === "missing") return <Text color="yellow">{screen.message}</Text>;
    const common = {
      filter,
      editing: ui.editingFilter,
      selected,
      width: columns,
      height: bodyHeight,
      more: screen.more,
      sort: ui.sort[ui.view],
    };
    switch (screen.view) {
      case "sessions":
        return <SessionsScreen {...common} rows={screen.shown} all={screen.all ?? []} />;
      case "pending":
        return <PendingScreen {...common} rows={screen.shown} all={screen.all ?? []} />;
      case "resources":
        return <ResourcesScreen {...common} rows={screen.shown} all={screen.all ?? []} />;
      case "events":
        return (
          <EventsScreen {...common} rows={screen.shown} all={screen.all ?? []} paused={paused} held={held} />
        );
      case "roster":
        return (
          <RosterScreen {...common} rows={screen.shown} all={screen.all ?? []} resource={screen.resource} />
        );
      case "user":
        return (
          <UserScreen
            userId={screen.userId}
            user={screen.user}
            items={screen.shown ?? []}
            selected={selected}
            filter={filter}
            editing={ui.editingFilter}
            width={columns}
            height={bodyHeight}
          />
        );
    }
  }
}
