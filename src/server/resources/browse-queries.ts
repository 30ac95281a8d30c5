/**
 * The browse queries: a keyset page of an app's discoverable resources, newest first, by name when
 * asked (see `browseResources`). Only store.ts calls them, and caches their answers.
 */
import { containing } from "../db/query-filters.ts";
import type { Param, Storage } from "../db/sql.ts";
import type { BrowseRow } from "./rows.ts";

export interface BrowseQuery {
  appId: string;
  type?: string;
  /** Case-insensitive substring of the name. */
  query?: string;
  limit: number;
  after?: { createdAt: number; id: string };
}

/** How many index rows a LIKE walk may visit before browse switches to the FTS index. */
export const LIKE_WINDOW = 1000;

/**
 * One browse page, read from the database: a keyset page of discoverable resources, newest first,
 * along the (app, [type,] discoverable, created_at, id) index. With a name `query` the cost depends on
 * how common the term is.
 *
 * PostgreSQL: one LIKE over `name_fold`, served by its pg_trgm GIN index when the term is rare.
 *
 * SQLite: first walk at most LIKE_WINDOW index rows with LIKE (a common term fills the page at once);
 * if that does not fill the page, the term is rare, and the FTS5 trigram index finds its few rows
 * directly (cost grows with the number of matches, not the table). A query shorter than 3 characters
 * counted in code points (what the trigram tokenizer counts; `😀a` is 2 of them in 3 UTF-16 units)
 * can never match the trigram index: the LIKE walk alone answers it. The two matchers fold case
 * differently (JavaScript's toLowerCase for `name_fold`, SQLite's own folding for FTS5), so the FTS
 * rows never replace what the walk found: both are merged, newest first by (created_at, id), without
 * duplicates, cut to the limit.
 */
export async function browseResources(storage: Storage, query: BrowseQuery): Promise<BrowseRow[]> {
  if (!query.query) return browsePage(storage, query, undefined);
  const pattern = containing(query.query);
  if (storage.dialect === "postgres" || [...query.query].length < 3)
    return browsePage(storage, query, pattern);
  const windowed = await browseWindow(storage, query, pattern);
  if (windowed.length >= query.limit) return windowed;
  return mergeNewestFirst(windowed, await browseFts(storage, query), query.limit);
}

/**
 * The common shape of the three browse queries: `$1` app, `$2` limit, then the type, the keyset and
 * `extra` parameters, each numbered after the previous ones; `t` qualifies the columns.
 */
function browseFilter(query: BrowseQuery, t: string, extra: Param[]) {
  const params: Param[] = [query.appId, query.limit];
  const next = (value: Param) => {
    params.push(value);
    return `$${params.length}`;
  };
  let where = `${t}app_id = $1 AND ${t}discoverable = true`;
  if (query.type !== undefined) where += ` AND ${t}type = ${next(query.type)}`;
  if (query.after)
    where += ` AND (${t}created_at, ${t}id) < (${next(query.after.createdAt)}, ${next(query.after.id)})`;
  const extraRefs = extra.map(next);
  return { where, params, extraRefs };
}

function browsePage(storage: Storage, query: BrowseQuery, pattern: string | undefined): Promise<BrowseRow[]> {
  const { where, params, extraRefs } = browseFilter(query, "", pattern === undefined ? [] : [pattern]);
  const like = pattern === undefined ? "" : `AND name_fold LIKE ${extraRefs[0]} ESCAPE '\\'`;
  return storage.all(
    `SELECT id, type, name, member_count AS "memberCount", created_at AS "createdAt" FROM resources
     WHERE ${where} ${like} ORDER BY created_at DESC, id DESC LIMIT $2`,
    params,
  );
}

function browseWindow(storage: Storage, query: BrowseQuery, pattern: string): Promise<BrowseRow[]> {
  const { where, params, extraRefs } = browseFilter(query, "", [pattern]);
  return storage.all(
    `SELECT id, type, name, "memberCount", "createdAt" FROM (
       SELECT id, type, name, name_fold AS "nameFold", member_count AS "memberCount", created_at AS "createdAt"
       FROM resources WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${LIKE_WINDOW}
     ) AS w WHERE "nameFold" LIKE ${extraRefs[0]} ESCAPE '\\' LIMIT $2`,
    params,
  );
}

function browseFts(storage: Storage, query: BrowseQuery): Promise<BrowseRow[]> {
  const { where, params, extraRefs } = browseFilter(query, "r.", [ftsPhrase(query.query!)]);
  // CROSS JOIN fixes the loop order: from the FTS matches to their rows, never a walk of the table.
  return storage.all(
    `SELECT r.id AS id, r.type AS type, r.name AS name, r.member_count AS "memberCount", r.created_at AS "createdAt"
     FROM (SELECT rowid AS seq FROM resources_fts WHERE resources_fts MATCH ${extraRefs[0]}) AS f
     CROSS JOIN resources AS r ON r.seq = f.seq
     WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT $2`,
    params,
  );
}

/** Two newest-first lists of rows as one, newest first by (createdAt, id), each id once, at most `limit`. */
function mergeNewestFirst(a: BrowseRow[], b: BrowseRow[], limit: number): BrowseRow[] {
  const byId = new Map<string, BrowseRow>();
  for (const row of [...a, ...b]) if (!byId.has(row.id)) byId.set(row.id, row);
  return [...byId.values()]
    .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
    .slice(0, limit);
}

/** An FTS5 phrase for the trigram tokenizer: the whole text, quotes doubled, matched as a substring. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
