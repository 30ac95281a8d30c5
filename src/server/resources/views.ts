/**
 * The shapes clients see: a resource view, a pending requester's view, a browse item. The owner
 * principal and deployment internals (`seq`, `app_id`, `owner_id`, `slug`) never appear in a view.
 */

import { Refusal } from "../domain/refusal.ts";
import { cleanQuery } from "../domain/text.ts";
import type { BrowseItem, RequestedView, ResourceView } from "./model.ts";
import type { BrowseQuery, BrowseRow, ResourceRow, RosterRow } from "./store.ts";

export type { ResourceView };

export type VisibilityEnum = "members" | "unlisted" | "discoverable";

/** The schema-level visibility enum compiles to the stored pair (visibility, discoverable). */
export function visibilityPair(visibility: VisibilityEnum): {
  visibility: "members" | "public";
  discoverable: boolean;
} {
  if (visibility === "members") return { visibility: "members", discoverable: false };
  return { visibility: "public", discoverable: visibility === "discoverable" };
}

export function resourceView(row: ResourceRow, withCount = false): ResourceView {
  const view: ResourceView = {
    id: row.id,
    type: row.type,
    name: row.name,
    visibility: row.visibility,
    discoverable: Boolean(row.discoverable),
  };
  if (withCount) view.memberCount = row.memberCount;
  return view;
}

/** What a pending requester of a members-only resource sees: what any non-member may, its id and type. */
export function requestedView(row: Pick<ResourceRow, "id" | "type">): RequestedView {
  return { id: row.id, type: row.type };
}

export function browseItem(row: BrowseRow): BrowseItem {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    memberCount: row.memberCount,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

/** Browse cursors are opaque: base64url of the last row's (createdAt, id). */
export function encodeCursor(row: { createdAt: number; id: string }): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: number; id: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === "string" &&
      value[1].length <= 512
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {}
  return undefined;
}

/** `limit` as browse takes it: default 20, above 100 is 100, not an integer or below 1 is 400. */
export function parseLimit(raw: unknown, fallback = 20): number {
  if (raw === undefined || raw === "") return fallback;
  if (typeof raw !== "string" || !/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw new Refusal("invalid_request", { field: "limit", why: "must be an integer >= 1" });
  }
  return Math.min(Number(raw), 100);
}

/** A cursor this API returned, or 400; no cursor means the first page. */
export function parseCursor(raw: string | undefined): { createdAt: number; id: string } | undefined {
  if (raw === undefined || raw === "") return undefined;
  const after = decodeCursor(raw);
  if (!after)
    throw new Refusal("invalid_request", { field: "cursor", why: "is not a cursor this API returned" });
  return after;
}

/** The parameters of a browse request, as sent. */
export interface BrowseParams {
  type?: string;
  query?: string;
  limit?: string;
  cursor?: string;
}

/**
 * The store's query for a browse request: one row more than the page, which tells whether another
 * page follows. Throws 400 for a bad limit, cursor or query.
 */
export function browseQuery(appId: string, params: BrowseParams): { query: BrowseQuery; limit: number } {
  const limit = parseLimit(params.limit);
  const after = parseCursor(params.cursor);
  return {
    query: { appId, type: params.type, query: cleanQuery(params.query), limit: limit + 1, after },
    limit,
  };
}

/** A browse answer: the page, and the cursor of its last row when another page follows. */
export function browsePageView(rows: BrowseRow[], limit: number) {
  const page = rows.slice(0, limit);
  return {
    resources: page.map(browseItem),
    nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
  };
}

/** The roster as clients see it: who, their role, their state. */
export function rosterView(rows: RosterRow[]) {
  return { members: rows.map(({ userId, role, state }) => ({ userId, role, state })) };
}

/** What the caller's own join and leave answer (the routes send it). */
/** A join's `joined` is false when the caller already was an active member (nothing changed). */
export function selfChangeView(kind: "join" | "leave", change: { kind: string }) {
  return kind === "join" ? { ok: true, state: "active", joined: change.kind !== "none" } : { ok: true };
}
