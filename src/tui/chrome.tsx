/**
 * The frame around the screens: header (gateway URL and connection state), tabs, flash or command line,
 * footer (keys and data age), the help panel, the confirmation box, the role picker and the too-small
 * notice. States are words (CONNECTED, DISCONNECTED, STALE, PAUSED, read-only); colour only repeats them.
 */
import { Box } from "ink";
import { short } from "./format.ts";
import { Text } from "./text.tsx";
import { type Action, type RolePick, TABS, type TabView, type View } from "./ui-state.ts";
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

export function Header(props: { url: string; connection: Connection; readonly: boolean }) {
  const now = useNow();
  const label = connectionLabel(props.connection, now);
  const color = props.connection.ok === null ? "yellow" : props.connection.ok ? "green" : "red";
  return (
    <Box>
      <Box flexGrow={1} flexShrink={1}>
        <Text wrap="truncate-end">
          <Text bold>gateway admin</Text> {props.url}
          {props.readonly ? <Text color="yellow"> read-only</Text> : null}
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

const TAB_NAMES: Record<TabView, string> = {
  overview: "Overview",
  sessions: "Sessions",
  pending: "Pending",
  resources: "Resources",
  events: "Events",
};

/** The tabs; a roster or a user shows the tab it was reached from. */
export function Tabs(props: { active: TabView }) {
  return (
    <Text wrap="truncate-end">
      {TABS.map((view, i) => {
        const name = `${i + 1} ${TAB_NAMES[view]}`;
        return view === props.active ? (
          <Text key={view} bold color="cyan">{`[${name}]`}</Text>
        ) : (
          <Text key={view}>{` ${name} `}</Text>
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

export const HELP: [string, string][] = [
  ["j k  ↓ ↑", "move (g/G first/last, pgup/pgdn)"],
  ["tab  1-5", "switch screen (shift-tab back)"],
  ["enter  esc", "open the row's roster, user or resource; esc goes back"],
  ["u", "open the row's user"],
  ["/", "filter by words or field:value, e.g. type:member.removed"],
  ["s  S", "sort by the next column / reverse the order"],
  ["x  d", "revoke · withdraw invite · decline request · remove member"],
  ["X  D", "on a user: revoke all sessions · delete the user"],
  ["e", "on a roster: change the member's role"],
  ["p  space", "on Events: pause or resume the live tail"],
  ["c", "copy the row's id to the clipboard (OSC 52)"],
  ["r", "refresh now (and reconnect at once)"],
  [":", "command: sessions pending resources events"],
  ["", "user <id> · resource <id> · tab completes"],
  ["?  q", "close this help · quit"],
];

const HELP_FOOT = "Live: gateway events refresh the screen; a full re-list every 30s.";

/** Help lines that do not fit in `height` (how far j/k scroll it). */
export function helpOverflow(height: number): number {
  return Math.max(0, HELP.length + 2 - height);
}

export function Help(props: { height: number; scroll: number; readonly: boolean }) {
  const overflow = helpOverflow(props.height);
  const scroll = Math.min(props.scroll, overflow);
  const lines = HELP.slice(scroll, scroll + Math.max(1, props.height - 2));
  return (
    <Box flexDirection="column" height={props.height} overflow="hidden">
      <Text bold wrap="truncate-end">
        {`Help${props.readonly ? " · read-only: x d X e do nothing" : ""}${overflow ? " · j/k scroll" : ""}`}
      </Text>
      {lines.map(([keys, what]) => (
        <Text key={`${keys}${what}`} wrap="truncate-end">{`  ${keys.padEnd(12)}${what}`}</Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {overflow && scroll < overflow ? "↓ more (j)" : HELP_FOOT}
      </Text>
    </Box>
  );
}

/** The question wraps onto at most this many lines (a user's deletion names what it passes on). */
const CONFIRM_LINES = 3;

/** The lines a confirmation takes at this width: its border, the question, the answers. */
export function confirmHeight(action: Action, columns: number): number {
  const lines = Math.ceil(action.label.length / Math.max(1, columns - 4));
  return 3 + Math.min(CONFIRM_LINES, Math.max(1, lines));
}

export function ConfirmBox(props: { action: Action }) {
  return (
    <Box borderStyle="round" borderColor="red" flexDirection="column" paddingX={1}>
      <Text wrap="wrap" bold>
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

export function RolePicker(props: { pick: RolePick }) {
  const { pick } = props;
  return (
    <Box borderStyle="round" borderColor="yellow" flexDirection="column" paddingX={1}>
      <Text wrap="truncate-end" bold>
        {`New role for ${pick.userId} in ${pick.resourceName} (now ${pick.role}):`}
      </Text>
      <Text wrap="truncate-end">{"r reader   w writer   a admin   esc cancel"}</Text>
    </Box>
  );
}

/** The `:` line while it is typed (it takes the flash line's place; `choices` are tab's candidates). */
export function CommandLine(props: { text: string; choices?: string }) {
  return (
    <Text wrap="truncate-end">
      <Text bold color="cyan">{`:${props.text}_`}</Text>
      <Text dimColor>{`  ${props.choices ?? "tab completes · enter runs · esc closes"}`}</Text>
    </Text>
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

/** The footer's keys (short: the help has them all). The first part is the destructive one. */
const VIEW_KEYS: Record<View, [string, string]> = {
  overview: ["", "tab/1-5 screens · : command · r refresh"],
  sessions: ["x revoke", "enter user · s sort · / filter"],
  pending: ["x withdraw/decline", "enter roster · / filter"],
  resources: ["", "enter roster · s sort · / filter · : command"],
  events: ["", "p pause · enter open · u user · / filter"],
  roster: ["e role · x remove", "enter user · esc back"],
  user: ["x revoke · X revoke all · D delete", "esc back"],
};

export function keysFor(
  view: View,
  state: { editing: boolean; confirm: boolean; help: boolean; picking: boolean; readonly: boolean },
): string {
  if (state.help) return "j/k scroll · ? or esc close help · q quit";
  if (state.confirm) return "y confirm · n, esc or enter cancel";
  if (state.picking) return "r reader · w writer · a admin · esc cancel";
  if (state.editing) return "type to filter · enter keep · esc clear · ↑↓ move";
  const [destructive, rest] = VIEW_KEYS[view];
  const act = state.readonly ? "READ-ONLY" : destructive;
  return [act, rest, "? help · q quit"].filter(Boolean).join(" · ");
}
