/**
 * Table layout and order as pure functions. Each column takes the width its content needs (its title
 * and its longest cell over every loaded row, so widths do not jump while scrolling); when the terminal
 * is too narrow the widest column gives way first, never below its minimum, so a short column (a client
 * id, an inviter) is never cut while a long one (a session id) has room to spare. What is left over goes
 * to the columns marked `grow`. Sorting is by any column, on its own key (times sort as times).
 */

export interface Column<T> {
  title: string;
  /** The narrowest it gets when the terminal is short of room. */
  min: number;
  /** The widest it gets (a longer cell is cut). */
  max?: number;
  /** Takes a share of the room left over. */
  grow?: boolean;
  /** Which end a cut keeps: "end" keeps the start (names), "start" keeps the end (ids whose tail differs). */
  cut?: "start" | "end";
  cell(row: T, now: number): string;
  /** The value the column sorts on (default: the cell's text). */
  sortKey?(row: T): string | number;
}

export interface Sort {
  column: number;
  desc: boolean;
}

const length = (text: string) => [...text].length;

export function columnWidths<T>(
  columns: readonly Column<T>[],
  rows: readonly T[],
  total: number,
  now: number,
): number[] {
  const want = columns.map((c) => {
    let widest = length(c.title) + 1; // room for the sort arrow
    for (const row of rows) widest = Math.max(widest, length(c.cell(row, now)));
    return Math.min(widest, Math.max(c.max ?? widest, length(c.title) + 1));
  });
  const widths = [...want];
  const floor = columns.map((c, i) => Math.min(want[i] ?? 0, c.min));
  const room = total - (columns.length - 1);
  let excess = widths.reduce((a, b) => a + b, 0) - room;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if ((widths[i] ?? 0) > (floor[i] ?? 0) && (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0)))
        widest = i;
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess -= 1;
  }
  const growers = columns.flatMap((c, i) => (c.grow ? [i] : []));
  if (excess < 0 && growers.length > 0) {
    const spare = -excess;
    growers.forEach((i, n) => {
      widths[i] =
        (widths[i] ?? 0) + Math.floor(spare / growers.length) + (n < spare % growers.length ? 1 : 0);
    });
  }
  return widths;
}

export function sortRows<T>(
  columns: readonly Column<T>[],
  rows: readonly T[],
  sort: Sort | undefined,
  now: number,
): T[] {
  const column = sort ? columns[sort.column] : undefined;
  if (!sort || !column) return [...rows];
  const key = (row: T) => column.sortKey?.(row) ?? column.cell(row, now);
  const sign = sort.desc ? -1 : 1;
  return rows
    .map((row, index) => ({ row, index, k: key(row) }))
    .sort((a, b) => {
      const order =
        typeof a.k === "number" && typeof b.k === "number"
          ? a.k - b.k
          : String(a.k).localeCompare(String(b.k), undefined, { numeric: true });
      return order === 0 ? a.index - b.index : sign * order;
    })
    .map((x) => x.row);
}

/** The next sort of a view: `s` moves to the next column (after the last: the server's order again). */
export function nextSort(sort: Sort | undefined, columnCount: number): Sort | undefined {
  if (columnCount === 0) return undefined;
  if (!sort) return { column: 0, desc: false };
  return sort.column + 1 < columnCount ? { column: sort.column + 1, desc: false } : undefined;
}

/** Times as sort keys: the moment itself (unparsable last). */
export const timeKey = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? Number.MAX_SAFE_INTEGER : t;
};
