/**
 * What the person's own-sessions routes answer, for the OpenAPI document (documentation only: see
 * http/operation-docs.ts).
 */
import { Type as T } from "@sinclair/typebox";
import { named } from "../http/openapi-components.ts";
import { json, operation, SESSION_COOKIE, Shape } from "../http/operation-docs.ts";

const OwnSession = named(
  "OwnSession",
  Shape({
    id: T.String({ description: "The session's public id (never the cookie's value)." }),
    current: T.Boolean({ description: "True for the session of the browser asking." }),
    client_id: T.String(),
    created_at: T.String({ format: "date-time" }),
    last_seen_at: T.String({ format: "date-time", description: "Written at most once a minute." }),
    device: T.String({
      description: 'A coarse description of the browser that signed in: "Chrome on Linux".',
    }),
  }),
);

const Ended = Shape({
  ok: T.Literal(true),
  ended: T.Integer({ minimum: 0, description: "How many sessions ended." }),
});

export const ownSessionsDocs = {
  list: operation({
    operationId: "listOwnSessions",
    summary: "The signed-in person's live sessions in this app, newest first",
    tags: ["auth"],
    security: [SESSION_COOKIE],
    responses: { 200: json(Shape({ sessions: T.Array(OwnSession) })) },
    errors: [401, 403, 503],
  }),
  revoke: operation({
    operationId: "revokeOwnSession",
    summary: "End one of the person's own sessions in this app (needs X-Service-Csrf: 1)",
    description:
      "Another person's session, another app's, an ended one and an unknown id all answer the same 404. The ended browser's next request is refused with `reason: signed_out_elsewhere`.",
    tags: ["auth"],
    security: [SESSION_COOKIE],
    responses: { 200: json(Ended) },
    errors: [400, 401, 403, 404, 503],
  }),
  revokeOthers: operation({
    operationId: "revokeOtherOwnSessions",
    summary: "End every session of the person in this app but this browser's (needs X-Service-Csrf: 1)",
    tags: ["auth"],
    security: [SESSION_COOKIE],
    responses: { 200: json(Ended) },
    errors: [401, 403, 503],
  }),
};
