/**
 * The /v1/resources endpoints. Thin: authenticate (cookie + CSRF, or bearer; then the app's budget and
 * the user's share of it), check every string field's text, validate with TypeBox, ask the access
 * rules (access.ts) or call the service, shape the view.
 *
 * The reads (a resource, a roster, a browse page) are declared `synchronous`: from the credential to
 * the answer nothing waits when memory has it, and the answer of a cached row is rendered once. The
 * other routes take the caller in a guard (`withCaller`), and their text is checked (`checkText`).
 */
import { Elysia, t } from "elysia";
import { Refusal } from "../domain/refusal.ts";
import { checkFields, cleanName } from "../domain/text.ts";
import type { Gateway } from "../gateway.ts";
import { renderedOnce } from "../http/answer.ts";
import { NO_CONTROL } from "../http/patterns.ts";
import { type Principal, resolvePrincipal } from "../http/principal.ts";
import { synchronous } from "../http/synchronous.ts";
import { after } from "../lib/after.ts";
import { callerRosterAccess, canRead, canSee, requesterSeesDetails } from "./access.ts";
import { resourceDocs as docs } from "./responses.ts";
import type { ResourceRow, RosterRow } from "./rows.ts";
import type { ForCaller } from "./store.ts";
import {
  type BrowseParams,
  browsePageView,
  browseQuery,
  requestedView,
  resourceView,
  rosterView,
  selfChangeView,
} from "./views.ts";

const UserId = t.String({ minLength: 1, maxLength: 256, pattern: NO_CONTROL });
const Role = t.String({ minLength: 1, maxLength: 32 });
const Visibility = t.Union([t.Literal("members"), t.Literal("unlisted"), t.Literal("discoverable")]);
const Type = t.String({ minLength: 1, maxLength: 64, pattern: NO_CONTROL });
/** `name` is checked by cleanName once trimmed; a browse `query` matches names, so it follows their rule. */
const TEXT_FIELDS = { skip: new Set(["name"]), nameLike: new Set(["query"]) };

/** The caller, counted against the app's budget and the user's share: synchronous when memory decides both. */
export function apiPrincipal(gateway: Gateway, request: Request): Principal | Promise<Principal> {
  const principal = resolvePrincipal(gateway, request);
  return principal instanceof Promise
    ? principal.then((found) => counted(gateway, request, found))
    : counted(gateway, request, principal);
}

const READ = { read: true };
const WRITE = { read: false };

/** The caller once its call is counted (at once when memory decides: no closure on that path). */
function counted(gateway: Gateway, request: Request, principal: Principal): Principal | Promise<Principal> {
  const read = request.method === "GET" || request.method === "HEAD";
  const taken = gateway.budgets.take(
    principal.appId,
    principal.clientId,
    principal.userId,
    read ? READ : WRITE,
  );
  return taken === undefined ? principal : taken.then(() => principal);
}

const renderedRoster = (members: RosterRow[]) => renderedOnce(members, rosterView);

/** A resource's answer for whoever may read it. */
const readView = (resource: ResourceRow) => resourceView(resource, true);

/** The resource's answer when the caller may read it (else 404): rendered once per row. */
function readable(found: ForCaller | undefined, principal: Principal) {
  if (!found || !canRead(found.resource, found.membership, principal.appId)) throw new Refusal("not_found");
  return renderedOnce(found.resource, readView);
}

/** Every string of the body and the query: no control, format or lone-surrogate characters. */
function checkText({ body, query }: { body: unknown; query: unknown }): void {
  checkFields(body, TEXT_FIELDS);
  checkFields(query, TEXT_FIELDS);
}

export function resourceRoutes(gateway: Gateway) {
  const { membership, ownership } = gateway;
  const { store } = membership;
  const change = membership.transition.bind(membership);
  const caller = (request: Request) => apiPrincipal(gateway, request);
  /**
   * The caller of the routes guarded with it: derive (not resolve), so who is calling is settled
   * before the body is validated, and an anonymous or CSRF-less call is 401/403 whatever its body.
   */
  const withCaller = async ({ request }: { request: Request }) => ({ principal: await caller(request) });
  /** GET /:id for the caller: the row and membership from memory when it has them. */
  const read = (principal: Principal, id: string) =>
    after(store.readForCaller(id, principal.userId), readable, principal);
  /** GET /:id/members for the caller: rendered once per roster. */
  const roster = (principal: Principal, id: string) =>
    after(store.readForCaller(id, principal.userId), rosterOf, principal);
  /** The roster of a resource the caller may see (else 404 or 403). */
  const rosterOf = (found: ForCaller | undefined, principal: Principal) => {
    const access = found
      ? callerRosterAccess(found.resource, found.membership, principal.appId)
      : "not_found";
    if (access === "not_found") throw new Refusal("not_found");
    if (access === "forbidden") throw new Refusal("forbidden", { about: "roster" });
    return after(store.listMembers(found!.resource.id), renderedRoster);
  };
  return (
    new Elysia({ name: "resource-routes", prefix: "/v1/resources" })
      .guard({}, (routes) =>
        routes
          .derive(withCaller)
          .onBeforeHandle(checkText)
          .post(
            "",
            async ({ principal, body }) => {
              const name = cleanName(body.name);
              const row = await membership.createResource(principal, {
                type: body.type,
                name,
                visibility: body.visibility,
              });
              return resourceView(row);
            },
            {
              body: t.Object({
                type: Type,
                name: t.String({ maxLength: 1000 }),
                visibility: t.Optional(Visibility),
              }),
              detail: docs.create,
            },
          )
          .get(
            "",
            async ({ principal, query }) => ({
              resources: (
                await store.listForUser(
                  principal.appId,
                  principal.userId,
                  query.state ?? "active",
                  query.type,
                )
              ).map((row) =>
                query.state === "requested" && !requesterSeesDetails(row)
                  ? requestedView(row)
                  : resourceView(row),
              ),
            }),
            {
              query: t.Object({
                type: t.Optional(Type),
                state: t.Optional(
                  t.Union([t.Literal("active"), t.Literal("invited"), t.Literal("requested")]),
                ),
              }),
              detail: docs.list,
            },
          ),
      )
      .get(
        "/browse",
        synchronous(({ request, query }: { request: Request; query: BrowseParams }) => {
          checkFields(query, TEXT_FIELDS);
          return after(caller(request), (principal) => {
            const asked = browseQuery(principal.appId, query);
            // A cached page is one query's rows (the query names the limit): rendered once.
            return after(store.browse(asked.query), (rows) =>
              renderedOnce(rows, (page) => browsePageView(page, asked.limit)),
            );
          });
        }),
        {
          query: t.Object({
            type: t.Optional(Type),
            query: t.Optional(t.String({ maxLength: 1000 })),
            limit: t.Optional(t.String({ maxLength: 12 })),
            cursor: t.Optional(t.String({ maxLength: 200 })),
          }),
          detail: docs.browse,
        },
      )
      .guard({}, (routes) =>
        routes
          .derive(withCaller)
          .onBeforeHandle(checkText)
          .get(
            "/static",
            async ({ principal, query }) => {
              const row = await store.findStatic(principal.appId, query.type, query.slug);
              if (!row || !canSee(row, await store.getMembership(row.id, principal.userId)))
                throw new Refusal("not_found");
              return resourceView(row, true);
            },
            {
              query: t.Object({ type: Type, slug: t.String({ minLength: 1, maxLength: 128 }) }),
              detail: docs.getStatic,
            },
          ),
      )
      // A resource's answer is the same for every caller who may read it: rendered once per row.
      .get(
        "/:id",
        synchronous(({ request, params }: { request: Request; params: { id: string } }) =>
          after(caller(request), read, params.id),
        ),
        { detail: docs.get },
      )
      .guard({}, (routes) =>
        routes
          .derive(withCaller)
          .onBeforeHandle(checkText)
          .delete(
            "/:id",
            async ({ principal, params }) => {
              await change(principal, params.id, { kind: "delete" });
              return { ok: true };
            },
            { detail: docs.delete },
          ),
      )
      .get(
        "/:id/members",
        synchronous(({ request, params }: { request: Request; params: { id: string } }) =>
          after(caller(request), roster, params.id),
        ),
        { detail: docs.members },
      )
      .guard({}, (routes) =>
        routes
          .derive(withCaller)
          .onBeforeHandle(checkText)
          .post(
            "/:id/invite",
            async ({ principal, params, body }) => {
              await change(principal, params.id, { kind: "invite", role: body.role }, body.userId);
              return { ok: true, state: "invited" };
            },
            { body: t.Object({ userId: UserId, role: t.Optional(Role) }), detail: docs.invite },
          )
          .post(
            "/:id/request",
            async ({ principal, params, body }) => {
              await change(principal, params.id, { kind: "request", role: body?.role });
              return { ok: true, state: "requested" };
            },
            { body: t.Optional(t.Object({ role: t.Optional(Role) })), detail: docs.request },
          )
          .post(
            "/:id/accept",
            async ({ principal, params, body }) => {
              const target = body?.userId;
              if (target === undefined || target === principal.userId)
                await change(principal, params.id, { kind: "acceptInvite" });
              else await change(principal, params.id, { kind: "acceptRequest" }, target);
              return { ok: true, state: "active" };
            },
            { body: t.Optional(t.Object({ userId: t.Optional(UserId) })), detail: docs.accept },
          )
          .post(
            "/:id/reject",
            async ({ principal, params, body }) => {
              const target = body?.userId;
              if (target === undefined || target === principal.userId)
                await change(principal, params.id, { kind: "rejectInvite" });
              else await change(principal, params.id, { kind: "rejectRequest" }, target);
              return { ok: true };
            },
            { body: t.Optional(t.Object({ userId: t.Optional(UserId) })), detail: docs.reject },
          )
          .post(
            "/:id/join",
            async ({ principal, params }) => {
              return selfChangeView("join", await change(principal, params.id, { kind: "join" }));
            },
            { detail: docs.join },
          )
          .post(
            "/:id/leave",
            async ({ principal, params }) => {
              return selfChangeView("leave", await change(principal, params.id, { kind: "leave" }));
            },
            { detail: docs.leave },
          )
          .post(
            "/:id/setRole",
            async ({ principal, params, body }) => {
              await change(principal, params.id, { kind: "setRole", role: body.role }, body.userId);
              return { ok: true, role: body.role };
            },
            { body: t.Object({ userId: UserId, role: Role }), detail: docs.setRole },
          )
          .post(
            "/:id/remove",
            async ({ principal, params, body }) => {
              await change(principal, params.id, { kind: "remove" }, body.userId);
              return { ok: true };
            },
            { body: t.Object({ userId: UserId }), detail: docs.remove },
          )
          // Ownership: the owner offers, the member accepts or declines, the owner may cancel.
          .post(
            "/:id/transferOwnership",
            async ({ principal, params, body }) => {
              await ownership.change(principal, params.id, "transferOwnership", body.userId);
              return { ok: true, state: "offered", userId: body.userId };
            },
            { body: t.Object({ userId: UserId }), detail: docs.transferOwnership },
          )
          .post(
            "/:id/acceptOwnership",
            async ({ principal, params }) => {
              await ownership.change(principal, params.id, "acceptOwnership");
              return { ok: true, role: "owner" };
            },
            { detail: docs.acceptOwnership },
          )
          .post(
            "/:id/declineOwnership",
            async ({ principal, params }) => {
              await ownership.change(principal, params.id, "declineOwnership");
              return { ok: true };
            },
            { detail: docs.declineOwnership },
          )
          .post(
            "/:id/cancelOwnership",
            async ({ principal, params }) => {
              await ownership.change(principal, params.id, "cancelOwnership");
              return { ok: true };
            },
            { detail: docs.cancelOwnership },
          ),
      )
  );
}
