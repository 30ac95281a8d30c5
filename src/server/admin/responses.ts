/**
 * What each admin route answers, for the admin listener's OpenAPI document (documentation only: see
 * http/operation-docs.ts). The token check every call goes through (401, 503 `admin_disabled`) is the
 * listener's, documented once for all its routes (ADMIN_DOCUMENT in ../responses.ts).
 */
import { Type as T, type TSchema } from "@sinclair/typebox";
import { DeletionReport, UserExport } from "../accounts/responses.ts";
import { SESSION_END_REASONS } from "../auth/session-end.ts";
import { named } from "../http/openapi-components.ts";
import {
  DateTime,
  type ErrorStatus,
  json,
  media,
  Nullable,
  Ok,
  OneOf,
  type OperationDoc,
  operation,
  Shape,
} from "../http/operation-docs.ts";

const Count = T.Integer({ minimum: 0 });
const Role = T.String();
const State = T.String();

const Session = named(
  "AdminSession",
  Shape({
    id: T.String(),
    userId: T.String(),
    clientId: T.String(),
    createdAt: DateTime,
    lastSeenAt: DateTime,
    expiresAt: DateTime,
  }),
);

/** A page of `item`s, named `component`. */
const Page = (component: string, name: string, item: TSchema) =>
  named(component, Shape({ [name]: T.Array(item), nextCursor: Nullable(T.String()) }));

const Overview = named(
  "AdminOverview",
  Shape({
    sessions: Shape({ active: Count }),
    users: Count,
    resources: Count,
    pending: Shape({ invited: Count, requested: Count }),
    tokenCache: Shape({ hits: Count, misses: Count }),
    uptimeSeconds: Count,
  }),
);

const User = named(
  "AdminUser",
  Shape({
    userId: T.String(),
    welcomed: T.Boolean(),
    balanceUsd: T.Number(),
    sessions: T.Array(Session),
    endedSessions: T.Array(
      Shape({
        id: T.String(),
        clientId: T.String(),
        endedAt: DateTime,
        reason: OneOf(SESSION_END_REASONS, { description: "Why it ended, in the SDK's words." }),
      }),
      { description: "The user's latest 20 ended sessions, newest first." },
    ),
    memberships: T.Array(
      Shape({
        resourceId: T.String(),
        resourceName: T.String(),
        type: T.String(),
        appId: T.String(),
        role: Role,
        state: State,
      }),
    ),
    ifDeleted: Shape(
      {
        transfer: T.Array(Shape({ resourceId: T.String(), name: T.String(), to: T.String() })),
        delete: T.Array(Shape({ resourceId: T.String(), name: T.String() })),
      },
      "What deleting the account would do to the resources it owns: each passes to its heir (the longest-standing admin, else active member) or is deleted.",
    ),
  }),
);

const Pending = named(
  "PendingEntry",
  Shape({
    resourceId: T.String(),
    resourceName: T.String(),
    userId: T.String(),
    role: Role,
    state: T.Union([T.Literal("invited"), T.Literal("requested")]),
    invitedBy: Nullable(T.String()),
    createdAt: DateTime,
  }),
);

const Resource = named(
  "AdminResource",
  Shape({
    id: T.String(),
    appId: T.String(),
    type: T.String(),
    name: T.String(),
    visibility: T.Union([T.Literal("members"), T.Literal("public")]),
    discoverable: T.Boolean(),
    memberCount: Count,
    createdAt: DateTime,
  }),
);

const Roster = named(
  "Roster",
  Shape({
    members: T.Array(Shape({ userId: T.String(), role: Role, state: State, since: DateTime })),
  }),
);

const AuditEvent = named(
  "AuditEvent",
  Shape({
    id: T.Integer({ minimum: 1 }),
    type: T.String(),
    actor: Nullable(T.String()),
    resourceId: Nullable(T.String()),
    userId: Nullable(T.String()),
    data: T.Unknown({ description: "What the change carried (a role, the state it left), or null." }),
    at: DateTime,
  }),
);

const Links = named(
  "LinkedRows",
  Shape({
    links: T.Array(
      Shape({
        table: T.String(),
        rowId: T.String(),
        contributorId: Nullable(T.String()),
        hidden: T.Boolean(),
        contributor: T.Optional(
          Shape(
            { id: T.Null(), displayName: T.Literal("Deleted user") },
            "A tombstoned row (onOwnerDelete: tombstone): the reserved deleted-user profile.",
          ),
        ),
      }),
    ),
    retained: T.Array(
      Shape({ table: T.String(), rowId: T.String(), fromUserId: T.String(), data: T.Unknown() }),
    ),
  }),
);

/** The database: busy or unavailable. */
const ADMIN: ErrorStatus[] = [503];

const doc = (
  operationId: string,
  summary: string,
  responses: OperationDoc["responses"],
  errors: ErrorStatus[],
  tags = ["admin"],
) => operation({ operationId, summary, tags, responses, errors: [...errors, ...ADMIN] });

export const adminDocs = {
  overview: doc(
    "getOverview",
    "Counts: live sessions, users, resources, pending",
    { 200: json(Overview) },
    [],
  ),
  sessions: doc(
    "listSessions",
    "Live sessions, newest first",
    { 200: json(Page("SessionPage", "sessions", Session)) },
    [400],
  ),
  revokeSession: doc(
    "revokeSession",
    "End a session and revoke its grant at the provider",
    { 200: json(Ok) },
    [400, 404],
  ),
  user: doc("getUser", "A user: credit, sessions, memberships", { 200: json(User) }, [400]),
  deleteUser: doc(
    "deleteUser",
    "Delete an account: onOwnerDelete per shared table, owned resources passed on or deleted, memberships, invites, offers and sessions ended, ledger and audit events pseudonymized (idempotent: a second call answers the first report)",
    { 200: json(DeletionReport) },
    [400, 404],
  ),
  userExport: doc(
    "exportUserData",
    "Everything this service holds about a user, in every app (`GET /v1/me/export` gives the user the part of the caller's app)",
    { 200: json(UserExport) },
    [400],
  ),
  pending: doc(
    "listPending",
    "Pending invites and requests, newest first",
    { 200: json(Page("PendingPage", "pending", Pending)) },
    [400],
  ),
  cancelPending: doc("cancelPending", "Cancel a pending invite or request", { 200: json(Ok) }, [400, 404]),
  resources: doc(
    "listAllResources",
    "Every resource, newest first, by type or name",
    { 200: json(Page("ResourcePage", "resources", Resource)) },
    [400],
  ),
  roster: doc("getRoster", "A resource's members in every state", { 200: json(Roster) }, [400, 404]),
  resource: doc(
    "getResource",
    "One resource of any app, as the list shows it",
    { 200: json(Resource) },
    [400, 404],
  ),
  setRole: doc(
    "setMemberRole",
    "Change an active member's role, as the operator (the public API's rules: not the owner, not above the type's grant ceiling)",
    { 200: json(Shape({ ok: T.Literal(true), role: Role })) },
    [400, 403, 404],
  ),
  removeMember: doc(
    "removeMember",
    "Remove a member (onMemberRemove applies) or cancel a pending invite or request, as the operator",
    { 200: json(Ok) },
    [400, 403, 404],
  ),
  revokeUserSessions: doc(
    "revokeUserSessions",
    "End every live session of a user and revoke their grants at the provider",
    { 200: json(Shape({ ok: T.Literal(true), revoked: Count })) },
    [400],
  ),
  audit: doc(
    "listAuditEvents",
    "The audit events, newest first, by type, user (acted on or acting) or resource",
    { 200: json(Page("AuditEventPage", "events", AuditEvent)) },
    [400],
  ),
  events: doc(
    "streamEvents",
    "The audit events as they happen (Server-Sent Events; resume with Last-Event-ID)",
    { 200: media("text/event-stream", "One `event:` per change, with its JSON as `data:`.") },
    [],
  ),
  metrics: doc(
    "getMetrics",
    "Prometheus metrics",
    { 200: media("text/plain", "The Prometheus text format.") },
    [],
  ),
  deploy: operation({
    operationId: "deployApp",
    summary: "Deploy an app's configuration (validated like the apps file)",
    tags: ["data"],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: { type: "object", description: "The app as in the apps file: clients, types, statics." },
        },
      },
    },
    responses: {
      200: json(
        Shape({
          ok: T.Literal(true),
          deployment: Shape({ id: T.Integer(), appId: T.String(), createdAt: DateTime }),
        }),
      ),
    },
    errors: [400, ...ADMIN],
  }),
  authorizeWrite: doc(
    "authorizeWrite",
    "May this user write into this resource? Joins a public resource on the first write",
    { 200: json(Shape({ allowed: T.Literal(true), role: Role, joined: T.Boolean() })) },
    [400, 403, 404],
    ["data"],
  ),
  link: doc(
    "linkRow",
    "Link a data service's row into a resource (authorized like a write)",
    { 200: json(Shape({ ok: T.Literal(true), joined: T.Boolean() })) },
    [400, 403, 404, 409],
    ["data"],
  ),
  links: doc(
    "listLinkedRows",
    "A resource's linked rows and the rows kept from members who left",
    { 200: json(Links) },
    [400, 404],
    ["data"],
  ),
};
