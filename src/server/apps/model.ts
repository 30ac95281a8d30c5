/**
 * The apps file, validated by one TypeBox schema. The same models describe the
 * `POST /admin/v1/apps/:id/deploy` body. Types, statics and shared tables are validated here and
 * reconciled by the resources module.
 */
import { type Static, Type as T } from "@sinclair/typebox";

const Id = T.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._-]+$" });
const Role = T.Union([T.Literal("reader"), T.Literal("writer"), T.Literal("admin")]);
const Visibility = T.Union([T.Literal("members"), T.Literal("unlisted"), T.Literal("discoverable")]);

export const ClientModel = T.Object(
  {
    clientId: Id,
    redirectUris: T.Array(T.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: 50 }),
    clientSecret: T.Optional(T.String({ minLength: 1, maxLength: 512 })),
    /** Extra browser origins allowed by CORS besides the redirect URIs' origins. */
    origins: T.Optional(T.Array(T.String({ minLength: 1, maxLength: 2048 }), { maxItems: 50 })),
    /**
     * Where the provider may send the browser back after a sign-out everywhere (registered at the
     * provider too, as the client's `post_logout_redirect_uris`); the first is used.
     */
    postLogoutRedirectUris: T.Optional(
      T.Array(T.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: 50 }),
    ),
  },
  { additionalProperties: false },
);

export const TypeModel = T.Object(
  {
    defaultRole: T.Optional(Role),
    visibility: T.Optional(Visibility),
    grantCeiling: T.Optional(Role),
    reserved: T.Optional(T.Boolean()),
  },
  { additionalProperties: false },
);

export const AppModel = T.Object(
  {
    id: Id,
    clients: T.Array(ClientModel, { maxItems: 100 }),
    budget: T.Optional(
      T.Object(
        {
          requestsPerMinute: T.Integer({ minimum: 1 }),
          /** The part of the app's minute one principal may take: (0, 1], default 0.1 (at least one call). */
          userShare: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    types: T.Optional(T.Record(T.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), TypeModel)),
    statics: T.Optional(
      T.Array(
        T.Object(
          {
            type: T.String({ minLength: 1, maxLength: 64 }),
            slug: T.String({ minLength: 1, maxLength: 128 }),
            name: T.String({ minLength: 1, maxLength: 200 }),
            visibility: T.Optional(Visibility),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    sharedTables: T.Optional(
      T.Record(
        T.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }),
        T.Object(
          {
            onMemberRemove: T.Optional(
              T.Union([T.Literal("remove"), T.Literal("hide"), T.Literal("retain")]),
            ),
            /** What a deleted account's rows become (default remove): listed for deletion, kept as "Deleted user", or copied into the resource. */
            onOwnerDelete: T.Optional(
              T.Union([T.Literal("remove"), T.Literal("tombstone"), T.Literal("retain")]),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const AppsFileModel = T.Object(
  { apps: T.Array(AppModel, { minItems: 1 }) },
  { additionalProperties: false },
);

export type ClientDef = Static<typeof ClientModel>;
export type AppDef = Static<typeof AppModel>;
export type AppsFile = Static<typeof AppsFileModel>;
