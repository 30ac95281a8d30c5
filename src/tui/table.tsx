/**
 * A list screen: a title with counts and the filter, a header, and the rows that fit, built from fixed-width
 * text columns (ink-table does not load with current Ink). The selected row is marked with ">" as well as
 * inverse video, because NO_COLOR (FORCE_COLOR=0) strips every style.
 */
import { Box, Text } from "ink";
import { fit } from "./format.ts";
import type { Action } from "./keys.ts";

export interface Column<T> {
  title: string;
  /** Minimum width; columns marked `grow` share what is left of the terminal's width. */
  width: number;
  grow?: boolean;
  cell(row: T, now: number): string;
}

export interface ListSpec<T> {
  noun: string;
  idOf(row: T): string;
  /** The text `/` matches against (case-insensitive substring). */
  search(row: T): string;
  columns: Column<T>[];
  action?(row: T): Action;
  drill?(row: T): { id: string; name: string };
}

export function filterRows<T>(spec: ListSpec<T>, rows: readonly T[], filter: string): T[] {
  const needle = filter.trim().toLowerCase();
  return needle ? rows.filter((row) => spec.search(row).toLowerCase().includes(needle)) : [...rows];
}

export function columnWidths(columns: readonly Column<unknown>[], total: number): number[] {
  const gaps = columns.length - 1;
  const fixed = columns.reduce((sum, c) => sum + c.width, 0) + gaps;
  const growers = columns.filter((c) => c.grow).length;
  const spare = Math.max(0, total - fixed);
  let left = spare;
  return columns.map((c, i) => {
    if (!c.grow) return c.width;
    const last = columns.slice(i + 1).every((d) => !d.grow);
    const extra = last ? left : Math.floor(spare / growers);
    left -= extra;
    return c.width + extra;
  });
}

export interface ListScreenProps<T> {
  title: string;
  spec: ListSpec<T>;
  /** The rows after the filter; undefined while the first load is under way. */
  rows: T[] | undefined;
  total: number;
  more: boolean;
  filter: string;
  editing: boolean;
  selected: number;
  width: number;
  height: number;
  now: number;
}

export function ListScreen<T>(props: ListScreenProps<T>) {
  const { spec, rows, width, now } = props;
  const inner = width - 2;
  const widths = columnWidths(spec.columns as Column<unknown>[], inner);
  const line = (cells: string[]) => cells.map((c, i) => fit(c, widths[i] ?? 0)).join(" ");
  const bodyHeight = Math.max(1, props.height - 2);
  const count =
    rows === undefined
      ? "loading…"
      : rows.length === props.total
        ? `${props.total}`
        : `${rows.length} of ${props.total}`;
  const more = props.more ? ` (first ${props.total}; more on the server)` : "";
  const filter = props.editing
    ? `  filter: /${props.filter}_`
    : props.filter
      ? `  filter: ${props.filter} (esc clears)`
      : "";

  const start = rows
    ? Math.max(0, Math.min(props.selected - Math.floor(bodyHeight / 2), rows.length - bodyHeight))
    : 0;
  const visible = rows?.slice(start, start + bodyHeight) ?? [];
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate-end">
        <Text bold>{props.title}</Text> {count}
        {more}
        {filter}
      </Text>
      <Text bold wrap="truncate-end">
        {`  ${line(spec.columns.map((c) => c.title))}`}
      </Text>
      {rows && rows.length === 0 ? (
        <Text
          dimColor
        >{`  ${props.filter ? `no ${spec.noun} match "${props.filter}"` : `no ${spec.noun}`}`}</Text>
      ) : null}
      {visible.map((row, i) => {
        const isSelected = start + i === props.selected;
        const text = `${isSelected ? ">" : " "} ${line(spec.columns.map((c) => c.cell(row, now)))}`;
        return (
          <Text key={spec.idOf(row)} inverse={isSelected} wrap="truncate-end">
            {text}
          </Text>
        );
      })}
    </Box>
  );
}
