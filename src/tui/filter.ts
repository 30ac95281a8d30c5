/**
 * The `/` filter of a list: words and `field:value` terms, e.g. `type:member.removed bob`. Every term must
 * match (a case-insensitive substring of the row's text, or of that field). The admin API narrows by one
 * term (its `query`) once the filter is kept with enter, so the filter searches every row, not only the
 * pages loaded so far; the other terms then narrow what came.
 */

export interface ParsedFilter {
  fields: Record<string, string>;
  words: string[];
}

export function parseFilter(text: string, fieldNames: readonly string[] = []): ParsedFilter {
  const fields: Record<string, string> = {};
  const words: string[] = [];
  for (const term of text.trim().split(/\s+/).filter(Boolean)) {
    const colon = term.indexOf(":");
    const name = colon > 0 ? term.slice(0, colon).toLowerCase() : "";
    const value = term.slice(colon + 1);
    if (fieldNames.includes(name) && value) fields[name] = value;
    else words.push(term);
  }
  return { fields, words };
}

export interface Filterable<T> {
  /** The text words match against. */
  search(row: T): string;
  /** Named fields a `name:value` term matches against. */
  fields?: Record<string, (row: T) => string>;
}

export function filterRows<T>(spec: Filterable<T>, rows: readonly T[], text: string): T[] {
  const { fields, words } = parseFilter(text, Object.keys(spec.fields ?? {}));
  const has = (haystack: string, needle: string) => haystack.toLowerCase().includes(needle.toLowerCase());
  const terms = Object.entries(fields);
  if (terms.length === 0 && words.length === 0) return [...rows];
  return rows.filter(
    (row) =>
      words.every((w) => has(spec.search(row), w)) &&
      terms.every(([name, value]) => has(spec.fields?.[name]?.(row) ?? "", value)),
  );
}
