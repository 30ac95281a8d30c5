/**
 * The user's export as a TypeBox model: the server shapes the document with it, the OpenAPI
 * documents describe both export routes with it, and the SDK exports its static type.
 */
import { type Static, Type as T } from "@sinclair/typebox";

const Time = T.String({ format: "date-time" });
const Nullable = <S extends Parameters<typeof T.Union>[0][number]>(schema: S) => T.Union([schema, T.Null()]);
const Role = T.Union([T.Literal("reader"), T.Literal("writer"), T.Literal("admin"), T.Literal("owner")]);
const Strict = { additionalProperties: false } as const;

export const UserExportModel = T.Object(
  {
    userId: T.String(),
    exportedAt: Time,
    /** Every session row, live or ended; never a token, a token hash or a cookie. */
    sessions: T.Array(
      T.Object(
        {
          id: T.String(),
          clientId: T.String(),
          createdAt: Time,
          lastSeenAt: Time,
          expiresAt: Time,
          endedAt: Nullable(Time),
          endReason: Nullable(T.String()),
        },
        Strict,
      ),
    ),
    /** Every membership row: active, invited and requested, with the role. */
    memberships: T.Array(
      T.Object(
        {
          resourceId: T.String(),
          appId: T.String(),
          type: T.String(),
          name: T.Optional(
            T.String({
              description:
                "Absent for a pending request on a members-only resource (a requester may not read it).",
            }),
          ),
          role: Role,
          state: T.Union([T.Literal("invited"), T.Literal("requested"), T.Literal("active")]),
          invitedBy: Nullable(T.String()),
          since: Time,
        },
        Strict,
      ),
    ),
    resourcesOwned: T.Array(
      T.Object(
        {
          id: T.String(),
          appId: T.String(),
          type: T.String(),
          name: T.String(),
          memberCount: T.Integer(),
          createdAt: Time,
        },
        Strict,
      ),
    ),
    /** Pending invites the user sent. */
    invitesSent: T.Array(
      T.Object({ resourceId: T.String(), userId: T.String(), role: Role, createdAt: Time }, Strict),
    ),
    /** Pending ownership offers made to the user, and by the user. */
    ownershipOffers: T.Object(
      {
        received: T.Array(
          T.Object({ resourceId: T.String(), offeredBy: T.String(), createdAt: Time }, Strict),
        ),
        made: T.Array(T.Object({ resourceId: T.String(), userId: T.String(), createdAt: Time }, Strict)),
      },
      Strict,
    ),
    credits: T.Object(
      {
        balanceUsd: T.Number(),
        entries: T.Array(T.Object({ kind: T.String(), amountUsd: T.Number(), createdAt: Time }, Strict)),
      },
      Strict,
    ),
    /** The rows the user linked, per resource and shared table (hidden ones flagged). */
    links: T.Array(
      T.Object(
        {
          resourceId: T.String(),
          table: T.String(),
          rows: T.Array(
            T.Object({ rowId: T.String(), hidden: T.Boolean(), data: T.Unknown(), createdAt: Time }, Strict),
          ),
        },
        Strict,
      ),
    ),
    /** Copies of the user's rows that resources retained when the user left (`onMemberRemove: retain`). */
    retained: T.Array(
      T.Object(
        { resourceId: T.String(), table: T.String(), rowId: T.String(), data: T.Unknown(), createdAt: Time },
        Strict,
      ),
    ),
    /**
     * The audit events about the user (as subject or actor), oldest first. In the user's own export:
     * the caller's app's only, without other users' ids inside their data.
     */
    events: T.Array(
      T.Object(
        {
          id: T.Integer(),
          type: T.String(),
          actor: Nullable(T.String()),
          resourceId: Nullable(T.String()),
          userId: Nullable(T.String()),
          data: T.Unknown(),
          at: Time,
        },
        Strict,
      ),
    ),
  },
  Strict,
);

export type UserExport = Static<typeof UserExportModel>;

const PolicyOutcome = T.Object(
  {
    policy: T.Union([T.Literal("remove"), T.Literal("tombstone"), T.Literal("retain")]),
    delete: T.Array(T.String(), {
      description:
        "Row ids for the data service to delete (removed rows, and the originals of retained ones).",
    }),
    tombstoned: T.Array(T.String(), {
      description: "Row ids kept in place, authored by the deleted-user profile.",
    }),
    retained: T.Array(T.String(), { description: "Row ids copied into resource ownership." }),
  },
  Strict,
);

/** What an account deletion did: the answer of both delete routes and the `user.deleted` event's data. */
export const DeletionReportModel = T.Object(
  {
    userId: T.String({
      description: "The id that was deleted (only in the answer: stored data keep the pseudonym).",
    }),
    pseudonym: T.String({ description: "What the ledger and the audit events call the user from now on." }),
    deletedAt: Time,
    /** False when the account had already been deleted: this is the first deletion's report. */
    deletedNow: T.Boolean(),
    resources: T.Object(
      {
        transferred: T.Array(T.Object({ resourceId: T.String(), to: T.String() }, Strict)),
        deleted: T.Array(T.String()),
      },
      Strict,
    ),
    membershipsEnded: T.Integer({ minimum: 0 }),
    invitesCancelled: T.Integer({ minimum: 0 }),
    offersEnded: T.Integer({ minimum: 0 }),
    sessionsEnded: T.Integer({ minimum: 0 }),
    sharedTables: T.Record(T.String(), PolicyOutcome),
  },
  Strict,
);

export type DeletionReport = Static<typeof DeletionReportModel>;
