/**
 * The views as TypeBox models: the server shapes its answers with them and the SDK exports their
 * static types, so the two cannot drift apart.
 */
import { type Static, Type as T } from "@sinclair/typebox";

export const ResourceViewModel = T.Object({
  id: T.String(),
  type: T.String(),
  name: T.String(),
  visibility: T.Union([T.Literal("members"), T.Literal("public")]),
  discoverable: T.Boolean(),
  memberCount: T.Optional(T.Integer()),
});

/** A members-only resource in the caller's `state=requested` list: nothing beyond its id and type. */
export const RequestedViewModel = T.Object({ id: T.String(), type: T.String() });

export const BrowseItemModel = T.Object({
  id: T.String(),
  type: T.String(),
  name: T.String(),
  memberCount: T.Integer(),
  createdAt: T.String({ format: "date-time" }),
});

export const MemberEntryModel = T.Object({
  userId: T.String(),
  role: T.Union([T.Literal("reader"), T.Literal("writer"), T.Literal("admin"), T.Literal("owner")]),
  state: T.Union([T.Literal("invited"), T.Literal("requested"), T.Literal("active")]),
});

export type ResourceView = Static<typeof ResourceViewModel>;
export type BrowseItem = Static<typeof BrowseItemModel>;
export type RequestedView = Static<typeof RequestedViewModel>;
export type MemberEntry = Static<typeof MemberEntryModel>;
