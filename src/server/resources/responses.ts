/**
 * What each /v1/resources route answers, for the OpenAPI document (documentation only: see
 * http/operation-docs.ts). The views are the models the routes shape their answers with (model.ts).
 */
import { Type as T } from "@sinclair/typebox";
import { named } from "../http/openapi-components.ts";
import {
  BEARER_TOKEN,
  type ErrorStatus,
  json,
  Nullable,
  Ok,
  type OperationDoc,
  operation,
  SESSION_COOKIE,
  Shape,
} from "../http/operation-docs.ts";
import { BrowseItemModel, MemberEntryModel, RequestedViewModel, ResourceViewModel } from "./model.ts";

const View = named("ResourceView", Shape(ResourceViewModel.properties, "A resource as its members see it."));
const RequestedOnly = named(
  "RequestedView",
  Shape(RequestedViewModel.properties, "A members-only resource the caller asked to join."),
);
const Member = named("MemberEntry", Shape(MemberEntryModel.properties));
const Browsed = named("BrowseItem", Shape(BrowseItemModel.properties));
const State = (state: "invited" | "requested" | "active") =>
  Shape({ ok: T.Literal(true), state: T.Literal(state) });

/** Either credential: the session cookie (state-changing calls also send `X-Service-Csrf: 1`) or a bearer token. */
export const EITHER_CREDENTIAL: Array<Record<string, string[]>> = [SESSION_COOKIE, BEARER_TOKEN];

/** Who is calling, and the app's budget: no credential, a refused origin or CSRF, the budget, the provider, the database. */
const CALLER: ErrorStatus[] = [400, 401, 403, 429, 502, 503];
const CHANGE: ErrorStatus[] = [...CALLER, 404, 409];

const doc = (operationId: string, summary: string, ok: OperationDoc["responses"], errors: ErrorStatus[]) =>
  operation({
    operationId,
    summary,
    tags: ["resources"],
    security: EITHER_CREDENTIAL,
    responses: ok,
    errors,
  });

export const resourceDocs = {
  create: doc("createResource", "Create a resource; the caller owns it", { 200: json(View) }, [
    ...CALLER,
    404,
  ]),
  list: doc(
    "listResources",
    "The caller's resources whose membership is in `state` (default active)",
    { 200: json(named("ResourceList", Shape({ resources: T.Array(T.Union([View, RequestedOnly])) }))) },
    CALLER,
  ),
  browse: doc(
    "browseResources",
    "Discoverable resources of the caller's app, newest first, by substring",
    {
      200: json(
        named("BrowseResults", Shape({ resources: T.Array(Browsed), nextCursor: Nullable(T.String()) })),
      ),
    },
    CALLER,
  ),
  getStatic: doc("getStaticResource", "The app's singleton of a type and slug", { 200: json(View) }, [
    ...CALLER,
    404,
  ]),
  get: doc("getResource", "One resource, with its member count", { 200: json(View) }, [...CALLER, 404]),
  delete: doc("deleteResource", "Delete a resource (its owner only)", { 200: json(Ok) }, [...CALLER, 404]),
  members: doc(
    "listMembers",
    "The active members",
    { 200: json(named("MemberList", Shape({ members: T.Array(Member) }))) },
    [...CALLER, 404],
  ),
  invite: doc("inviteMember", "Invite a user", { 200: json(State("invited")) }, CHANGE),
  request: doc("requestToJoin", "Ask to join", { 200: json(State("requested")) }, CHANGE),
  accept: doc(
    "acceptMembership",
    "Accept the caller's invite, or (`userId`) a user's request",
    { 200: json(State("active")) },
    CHANGE,
  ),
  reject: doc(
    "rejectMembership",
    "Reject the caller's invite, or (`userId`) a user's request",
    { 200: json(Ok) },
    CHANGE,
  ),
  join: doc(
    "joinResource",
    "Join a public resource",
    {
      200: json(
        Shape({
          ok: T.Literal(true),
          state: T.Literal("active"),
          joined: T.Boolean({
            description: "False when the caller already was an active member: nothing changed.",
          }),
        }),
      ),
    },
    CHANGE,
  ),
  leave: doc("leaveResource", "Leave a resource", { 200: json(Ok) }, CHANGE),
  setRole: doc(
    "setMemberRole",
    "Change a member's role",
    { 200: json(Shape({ ok: T.Literal(true), role: T.String() })) },
    CHANGE,
  ),
  remove: doc("removeMember", "Remove a member", { 200: json(Ok) }, CHANGE),
  transferOwnership: doc(
    "transferOwnership",
    "Offer ownership to an active member (owner only); replaces a pending offer",
    { 200: json(Shape({ ok: T.Literal(true), state: T.Literal("offered"), userId: T.String() })) },
    CHANGE,
  ),
  acceptOwnership: doc(
    "acceptOwnership",
    "Accept the pending offer made to the caller: the caller becomes the owner, the previous owner an admin",
    { 200: json(Shape({ ok: T.Literal(true), role: T.Literal("owner") })) },
    CHANGE,
  ),
  declineOwnership: doc(
    "declineOwnership",
    "Decline the pending ownership offer made to the caller",
    { 200: json(Ok) },
    CHANGE,
  ),
  cancelOwnership: doc(
    "cancelOwnership",
    "Withdraw the resource's pending ownership offer (owner only)",
    { 200: json(Ok) },
    CHANGE,
  ),
};
