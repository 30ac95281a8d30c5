/** The admin routes' parameter schemas: ids, paging and searches, each checked before a handler runs. */
import { t } from "elysia";
import { NO_CONTROL, NO_CONTROL_OR_EMPTY } from "../http/patterns.ts";

export const AdminId = t.String({ minLength: 1, maxLength: 256, pattern: NO_CONTROL });

/**
 * The schema of a route's path parameters: every one an AdminId. A malformed percent-encoding reaches
 * a handler as no value at all, which a query would read as "no filter": every `:param` admin route
 * declares this, so such a value (or an empty one, or a control character) is 400 invalid_request.
 */
export function adminParams<const K extends string>(...names: K[]) {
  return t.Object(Object.fromEntries(names.map((name) => [name, AdminId])) as Record<K, typeof AdminId>);
}

export const Limit = t.Optional(t.String({ maxLength: 12 }));
export const Cursor = t.Optional(t.String({ maxLength: 1024 }));
/** A case-insensitive substring to look for (the lists' `query`). */
export const Search = t.Optional(t.String({ maxLength: 200, pattern: NO_CONTROL_OR_EMPTY }));
