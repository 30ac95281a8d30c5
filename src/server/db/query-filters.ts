/**
 * Building a read's optional filters without string-pasting values: `add("type = ?", value)` numbers
 * the placeholder after the ones before it, so each combination of filters is its own statement (and
 * uses its own index). Names no table: each store writes its own statement around `where()`.
 */
import type { Param } from "./sql.ts";

export type QueryFilters = ReturnType<typeof queryFilters>;

/** Filters whose values are appended to `params` (which may already hold the statement's own). */
export function queryFilters(params: Param[]) {
  const clauses: string[] = [];
  return {
    clauses,
    add(clause: string, ...values: Param[]) {
      let text = clause;
      for (const value of values) {
        params.push(value);
        text = text.replace("?", `$${params.length}`);
      }
      clauses.push(text);
    },
    where: () => (clauses.length === 0 ? "" : `AND ${clauses.join(" AND ")}`),
  };
}

/** A LIKE pattern for "contains `text`", case-insensitively: `%` and `_` match themselves. */
export const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `search` as a case-insensitive substring of any of `columns` (ASCII case folding, as SQL's lower()). */
export function addSearch(f: QueryFilters, columns: string[], search: string | undefined): void {
  if (!search) return;
  const pattern = containing(search);
  f.add(
    `(${columns.map((c) => `lower(${c}) LIKE ? ESCAPE '\\'`).join(" OR ")})`,
    ...columns.map(() => pattern),
  );
}
