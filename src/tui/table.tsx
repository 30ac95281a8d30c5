/**
 * A list screen: a title with counts, the sort and the filter, a header, and the rows that fit, built from
 * text columns sized to their content (columns.ts; ink-table does not load with current Ink). The selected
 * row is marked with ">" as well as inverse video, because NO_COLOR (FORCE_COLOR=0) strips every style.
 * Ages are drawn from a clock of their own, so they tick between refreshes.
 */
import { Box } from "ink";
import { type Column, columnWidths, type Sort } from "./columns.ts";
import { type Filterable, type ParsedFilter, parseFilter } from "./filter.ts";
import { fit } from "./format.ts";
import { Text } from "./text.tsx";
import type { RowInfo } from "./ui-state.ts";
import { useNow } from "./use-now.ts";

/** The rows of a screen as the keys see them. */
export interface RowSpec<T> extends Filterable<T> {
  noun: string;
  idOf(row: T): string;
  /** What the keys do with this row. */
  info(row: T): RowInfo;
  /** The `query` the admin API narrows the list with, from the kept filter (none: only loaded rows). */
  serverSearch?(filter: ParsedFilter): string | undefined;
}

export interface ListSpec<T> extends RowSpec<T> {
  columns: Column<T>[];
}

/** The longest term of a filter (word or field value): the server narrows by it, the rest is local. */
export function longestTerm(filter: ParsedFilter): string | undefined {
  const terms = [...filter.words, ...Object.values(filter.fields)];
  return terms.sort((a, b) => b.length - a.length)[0];
}

/** The server query a spec asks for with this kept filter. */
export function serverQuery<T>(spec: RowSpec<T>, filter: string): string | undefined {
  // The admin API takes at most 200 characters; a longer term still narrows what came back.
  return spec.serverSearch?.(parseFilter(filter, Object.keys(spec.fields ?? {})))?.slice(0, 200);
}

/** One row's cells laid out in the columns' widths. */
export function formatCells<T>(
  columns: readonly Column<T>[],
  widths: readonly number[],
  row: T,
  now: number,
) {
  return columns.map((c, i) => fit(c.cell(row, now), widths[i] ?? 0, c.cut)).join(" ");
}

export function headerCells<T>(
  columns: readonly Column<T>[],
  widths: readonly number[],
  sort?: Sort,
): string {
  return columns
    .map((c, i) => fit(sort?.column === i ? `${c.title}${sort.desc ? "↓" : "↑"}` : c.title, widths[i] ?? 0))
    .join(" ");
}

export interface ListScreenProps<T> {
  title: string;
  spec: ListSpec<T>;
  /** The rows after filter and sort; undefined while the first load is under way. */
  rows: T[] | undefined;
  /** Every loaded row (column widths are sized on them). */
  all: readonly T[];
  more: boolean;
  filter: string;
  editing: boolean;
  sort: Sort | undefined;
  selected: number;
  width: number;
  height: number;
  /** Said instead of the loaded count (a roster's active and pending counts). */
  counts?: string;
}

export function ListScreen<T>(props: ListScreenProps<T>) {
  const { spec, rows, width, sort } = props;
  const now = useNow();
  const widths = columnWidths(spec.columns, props.all, width - 2, now);
  const bodyHeight = Math.max(1, props.height - 2);
  const loaded = props.all.length;
  const filtered = rows !== undefined && rows.length !== loaded;
  const count =
    rows === undefined
      ? "loading…"
      : props.counts !== undefined
        ? `${props.counts}${filtered ? ` (${rows.length} shown)` : ""}`
        : filtered
          ? `${rows.length} of ${loaded}${props.more ? " loaded" : ""}`
          : `${loaded}${props.more ? " loaded, more on the server" : ""}`;
  const sorted = sort ? ` · by ${spec.columns[sort.column]?.title ?? "?"} ${sort.desc ? "↓" : "↑"}` : "";
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
        {sorted}
        {filter}
      </Text>
      <Text bold wrap="truncate-end">
        {`  ${headerCells(spec.columns, widths, sort)}`}
      </Text>
      {rows && rows.length === 0 ? (
        <Text
          dimColor
        >{`  ${props.filter ? `no ${spec.noun} match "${props.filter}"` : `no ${spec.noun}`}`}</Text>
      ) : null}
      {visible.map((row, i) => {
        const isSelected = start + i === props.selected;
        const text = `${isSelected ? ">" : " "} ${formatCells(spec.columns, widths, row, now)}`;
        return (
          <Text key={spec.idOf(row)} inverse={isSelected} wrap="truncate-end">
            {text}
          </Text>
        );
      })}
    </Box>
  );
}
