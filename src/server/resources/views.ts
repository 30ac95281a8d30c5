/**
 * The shapes clients see (seed "Resources and their fields"). The owner principal and deployment
 * internals (`seq`, `app_id`, `owner_id`, `slug`) never appear in a view.
 */
import type { BrowseItem, ResourceView } from "./model.ts";
import type { BrowseRow, ResourceRow } from "./store.ts";

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
