/**
 * The operator dashboard: one screen at a time inside a fixed frame whose height stays below the terminal's
 * (Ink redraws badly at full height). Keys go through the pure `handleKey`, one character at a time; the
 * effects it asks for (quit, refresh, a confirmed revoke or cancel) run here, and every action re-lists.
 */
import { Box, Text, useApp, useInput, useStdin, useWindowSize } from "ink";
import { useEffect } from "react";
import { alertFor } from "./alerts.ts";
import {
  ConfirmBox,
  Footer,
  Header,
  Help,
  keysFor,
  MIN_COLUMNS,
  MIN_ROWS,
  Tabs,
  TooSmall,
} from "./chrome.tsx";
import type { AdminClient } from "./client.ts";
import { describeError } from "./errors.ts";
import { type Action, type Effect, handleKey, initialUi, selectedIndex, tokenize } from "./keys.ts";
import { OverviewScreen } from "./overview.tsx";
import { PendingScreen, pendingSpec } from "./pending.tsx";
import { ResourcesScreen, resourcesSpec } from "./resources.tsx";
import { RosterScreen, rosterSpec } from "./roster.tsx";
import { SessionsScreen, sessionsSpec } from "./sessions.tsx";
import { filterRows, type ListSpec } from "./table.tsx";
import { type Loaded, useAdminData, viewKey } from "./use-admin-data.ts";
import { useStore } from "./use-store.ts";

export interface AppProps {
  client: AdminClient;
  /** Full re-list period (the safety net under the event stream). */
  resyncMs?: number;
  /** Data older than this is marked STALE. */
  staleMs?: number;
  /** Overrides the terminal size (tests). */
  size?: { columns: number; rows: number };
  flashMs?: number;
}

interface CurrentList {
  spec: ListSpec<any>;
  all: any[] | undefined;
  more: boolean;
}

function currentList(view: string, loaded: Loaded | undefined): CurrentList | undefined {
  const data = loaded?.data;
  const rows = data && data.view === view && data.view !== "overview" ? data : undefined;
  const spec = { sessions: sessionsSpec, pending: pendingSpec, resources: resourcesSpec, roster: rosterSpec }[
    view
  ];
  if (!spec) return undefined;
  return { spec: spec as ListSpec<any>, all: rows?.rows, more: rows?.more ?? false };
}

export function App(props: AppProps) {
  const window = useWindowSize();
  const { columns, rows } = props.size ?? window;
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  const [ui, update] = useStore(initialUi);
  const { client } = props;
  const data = useAdminData(client, viewKey(ui.view, ui.roster?.id), {
    resyncMs: props.resyncMs,
    onEvent: (event) => {
      const alert = alertFor(event);
      if (alert) update((s) => ({ ...s, flash: { text: alert, at: Date.now() } }));
    },
  });
  const flashMs = props.flashMs ?? 5000;

  const view = ui.view;
  const list = currentList(view, data.loaded);
  const filter = ui.filter[ui.view] ?? "";
  const shown = list?.all ? filterRows(list.spec, list.all, filter) : undefined;
  const ids = shown && list ? shown.map((row) => list.spec.idOf(row)) : [];
  const selected = selectedIndex(ids, ui.selection[ui.view]);
  const height = rows - 1;
  const bodyHeight = height - 4 - (ui.confirm ? 4 : 0);
  const tooSmall = columns < MIN_COLUMNS || rows < MIN_ROWS;

  // Pin the selection to the row on screen, so that it follows that row's id when rows arrive above it;
  // if the row is gone from the gateway, the neighbour at the same index takes over, and we say so.
  const allIds = list?.all?.map((row) => list.spec.idOf(row));
  useEffect(() => {
    if (!allIds || ids.length === 0) return;
    // Decide on the state as it is now (keys may have moved the selection since this render).
    update((s) => {
      const previous = s.selection[s.view];
      const index = selectedIndex(ids, previous);
      const id = ids[index];
      if (id === undefined || s.view !== view || previous?.id === id) return s;
      const vanished = previous?.id != null && !allIds.includes(previous.id);
      const flash =
        vanished && !s.flash
          ? { text: "The selected row is gone; moved to its neighbour.", at: Date.now() }
          : s.flash;
      return { ...s, selection: { ...s.selection, [s.view]: { id, index } }, flash };
    });
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

  async function perform(action: Action) {
    try {
      if (action.kind === "revoke-session") {
        await client.revokeSession(action.sessionId);
        flash(`Revoked session ${action.sessionId}.`);
      } else {
        await client.cancelPending(action.resourceId, action.userId);
        flash(`Cancelled the pending membership of ${action.userId} in ${action.resourceId}.`);
      }
    } catch (error) {
      flash(
        `Failed: ${describeError(error)}. ${action.kind === "revoke-session" ? "Revoke" : "Cancel"} did not happen.`,
      );
    }
    data.refresh();
  }

  function run(effect: Effect) {
    if (effect.type === "quit") exit();
    else if (effect.type === "refresh") data.refresh();
    else void perform(effect.action);
  }

  useInput(
    (input, key) => {
      if (tooSmall) {
        if (input.includes("q")) exit();
        return;
      }
      const context = {
        ids,
        pageSize: Math.max(1, bodyHeight - 3),
        now: Date.now(),
        actionFor: (id: string) => {
          const row = shown?.[ids.indexOf(id)];
          return row !== undefined ? list?.spec.action?.(row) : undefined;
        },
        drillFor: (id: string) => {
          const row = shown?.[ids.indexOf(id)];
          return row !== undefined ? list?.spec.drill?.(row) : undefined;
        },
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

  const loadedAt = data.loaded?.at;
  const body = ui.help ? (
    <Help height={bodyHeight} />
  ) : ui.view === "overview" ? (
    <OverviewScreen
      overview={data.loaded?.data.view === "overview" ? data.loaded.data.overview : undefined}
      height={bodyHeight}
    />
  ) : (
    renderList()
  );

  function renderList() {
    const common = {
      rows: shown,
      total: list?.all?.length ?? 0,
      more: list?.more ?? false,
      filter,
      editing: ui.editingFilter,
      selected,
      width: columns,
      height: bodyHeight,
      now: loadedAt ?? Date.now(),
    };
    if (ui.view === "sessions") return <SessionsScreen {...common} />;
    if (ui.view === "pending") return <PendingScreen {...common} />;
    if (ui.view === "resources") return <ResourcesScreen {...common} />;
    return <RosterScreen {...common} resourceName={ui.roster?.name ?? "?"} />;
  }

  return (
    <Box flexDirection="column" width={columns} height={height}>
      <Header url={client.url} connection={data.connection} />
      <Tabs view={ui.view} />
      <Box flexDirection="column" height={bodyHeight} overflow="hidden">
        {body}
      </Box>
      {ui.confirm ? <ConfirmBox action={ui.confirm} /> : null}
      <Text wrap="truncate-end" color="cyan">
        {ui.flash ? ui.flash.text : " "}
      </Text>
      <Footer
        keys={keysFor(ui.view, { editing: ui.editingFilter, confirm: ui.confirm !== null, help: ui.help })}
        updatedAt={loadedAt}
        stale={data.connection.ok === false}
        staleMs={props.staleMs ?? 65_000}
      />
    </Box>
  );
}
