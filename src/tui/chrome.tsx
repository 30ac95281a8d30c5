/**
 * The frame around the screens: header (gateway URL and connection state), tabs, flash line, footer (keys
 * and data age), the help panel, the confirmation box and the too-small notice. States are words
 * (CONNECTED, DISCONNECTED, STALE); colour only repeats them.
 */
import { Box, Text } from "ink";
import { short } from "./format.ts";
import { type Action, TABS, type View } from "./keys.ts";
import type { Connection } from "./use-admin-data.ts";
import { useNow } from "./use-now.ts";

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;

export function connectionLabel(connection: Connection, now: number): string {
  if (connection.ok === null) return "CONNECTING…";
  if (connection.ok) return "CONNECTED";
  const retry =
    connection.retryAt === null ? "" : ` · retry in ${short(Math.max(0, connection.retryAt - now) / 1000)}`;
  return `DISCONNECTED${retry}${connection.error ? ` (${connection.error})` : ""}`;
}

export function Header(props: { url: string; connection: Connection }) {
  const now = useNow();
  const label = connectionLabel(props.connection, now);
  const color = props.connection.ok === null ? "yellow" : props.connection.ok ? "green" : "red";
  return (
    <Box>
      <Box flexGrow={1} flexShrink={1}>
        <Text wrap="truncate-end">
          <Text bold>gateway admin</Text> {props.url}
        </Text>
      </Box>
      <Box flexShrink={0} marginLeft={1}>
        <Text color={color} bold>
          {label.length > 44 ? `${label.slice(0, 43)}…` : label}
        </Text>
      </Box>
    </Box>
  );
}

const TAB_NAMES: Record<View, string> = {
  overview: "Overview",
  sessions: "Sessions",
  pending: "Pending",
  resources: "Resources",
  roster: "Resources",
};

export function Tabs(props: { view: View }) {
  const active = props.view === "roster" ? "resources" : props.view;
  return (
    <Text wrap="truncate-end">
      {TABS.map((view, i) => {
        const name = `${i + 1} ${TAB_NAMES[view]}`;
        return view === active ? (
          <Text key={view} bold color="cyan">{`[${name}] `}</Text>
        ) : (
          <Text key={view}>{` ${name}  `}</Text>
        );
      })}
    </Text>
  );
}

export function Footer(props: {
  keys: string;
  updatedAt: number | undefined;
  stale: boolean;
  staleMs: number;
}) {
  const now = useNow();
  const age =
    props.updatedAt === undefined ? "no data yet" : `updated ${short((now - props.updatedAt) / 1000)} ago`;
  const stale = props.updatedAt !== undefined && (props.stale || now - props.updatedAt > props.staleMs);
  return (
    <Box>
      <Box flexGrow={1} flexShrink={1}>
        <Text wrap="truncate-end" dimColor>
          {props.keys}
        </Text>
      </Box>
      <Box flexShrink={0} marginLeft={1}>
        <Text>{age}</Text>
        {stale ? (
          <Text color="yellow" bold>
            {" · STALE"}
          </Text>
        ) : null}
      </Box>
    </Box>
  );
}

const HELP: [string, string][] = [
  ["j k  ↓ ↑", "move (g/G first/last, pgup/pgdn)"],
  ["tab  1-4", "switch screen (shift-tab back)"],
  ["enter", "open the roster of a resource"],
  ["esc", "clear the filter, or go back"],
  ["/", "filter (enter keeps it, esc clears)"],
  ["x  d", "revoke a session / cancel an invite or request"],
  ["r", "refresh now"],
  ["?", "close this help"],
  ["q", "quit"],
];

export function Help(props: { height: number }) {
  return (
    <Box flexDirection="column" height={props.height} overflow="hidden">
      <Text bold>Help</Text>
      {HELP.map(([keys, what]) => (
        <Text key={keys} wrap="truncate-end">{`  ${keys.padEnd(10)}${what}`}</Text>
      ))}
      <Text dimColor wrap="truncate-end">
        Live: each gateway event refreshes the screen; a full re-list every 30s and on reconnect.
      </Text>
    </Box>
  );
}

export function ConfirmBox(props: { action: Action }) {
  return (
    <Box borderStyle="round" borderColor="red" flexDirection="column" paddingX={1}>
      <Text wrap="truncate-end" bold>
        {props.action.label}
      </Text>
      <Text wrap="truncate-end">
        <Text color="red">y: yes, do it</Text>
        {"   "}
        <Text inverse>{"> n: cancel (default: enter, esc)"}</Text>
      </Text>
    </Box>
  );
}

export function TooSmall(props: { columns: number; rows: number }) {
  return (
    <Box flexDirection="column">
      <Text color="yellow" bold wrap="truncate-end">
        {`terminal too small: need ${MIN_COLUMNS}x${MIN_ROWS}, have ${props.columns}x${props.rows}`}
      </Text>
      <Text wrap="truncate-end">resize the terminal, or press q to quit</Text>
    </Box>
  );
}

export function keysFor(view: View, state: { editing: boolean; confirm: boolean; help: boolean }): string {
  if (state.help) return "? or esc close help · q quit";
  if (state.confirm) return "y confirm · n, esc or enter cancel";
  if (state.editing) return "type to filter · enter keep · esc clear · ↑↓ move";
  const common = "/ filter · r refresh · ? help · q quit";
  switch (view) {
    case "overview":
      return "tab/1-4 screens · r refresh · ? help · q quit";
    case "sessions":
      return `j/k move · x revoke · ${common}`;
    case "pending":
      return `j/k move · x cancel · ${common}`;
    case "resources":
      return `j/k move · enter roster · ${common}`;
    case "roster":
      return `j/k move · esc back · ${common}`;
  }
}
