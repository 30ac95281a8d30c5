/**
 * decide() against the membership and lifecycle transition tables (docs/resources.md) and our decisions: readable rows for each
 * line of the spec, then the whole matrix (trigger × actor × target × resource facts × role argument)
 * checked against properties the specification states (never above the ceiling, the owner never
 * removed or demoted, a pending membership never active without its accept, …), not against a second
 * copy of the rules. Breaking decide() (join activating a pending row, an invite ignoring the ceiling,
 * the owner allowed to leave) fails both the rows and the properties.
 */
import { describe, expect, test } from "bun:test";
import { statusOf } from "../../src/server/http/errors.ts";
import type { Role } from "../../src/server/resources/roles.ts";
import {
  type Change,
  type Decision,
  decide,
  type Membership,
  type MembershipRefusalCode,
  type OfferFacts,
  OPERATOR,
  type ResourceFacts,
  type Trigger,
} from "../../src/server/resources/transitions.ts";

type Grantable = "reader" | "writer" | "admin";
const GRANTABLE: Grantable[] = ["reader", "writer", "admin"];
const LEVEL: Record<Role, number> = { reader: 1, writer: 2, admin: 3, owner: 4 };
/** Statuses of the refusals (and, where it is silent, the code's choice: see the report). */
const STATUS: Record<MembershipRefusalCode, number> = {
  forbidden: 403,
  invalid_role: 400,
  role_above_ceiling: 403,
  already_member: 409,
  already_pending: 409,
  too_many_pending_invites: 429,
  no_pending_invite: 404,
  no_pending_request: 404,
  not_public: 403,
  pending_membership: 409,
  target_is_owner: 403,
  insufficient_rank: 403,
  owner_cannot_leave: 403,
  not_a_member: 404,
  app_resource_undeletable: 403,
  app_resource_untransferable: 403,
  no_pending_offer: 404,
};

/** A decision as compared here: a refusal by its code and the status the refusal table gives it. */
type Shown = { ok: true; change: Change } | { ok: false; code: MembershipRefusalCode; status: number };
const shown = (d: Decision): Shown =>
  d.ok ? d : { ok: false, code: d.refusal.code, status: statusOf(d.refusal) };
const allow = (change: Change): Shown => ({ ok: true, change });
const refuse = (code: MembershipRefusalCode, status = STATUS[code]): Shown => ({ ok: false, code, status });
const active = (role: Role): Membership => ({ state: "active", role });
const invited = (role: Role): Membership => ({ state: "invited", role });
const requested = (role: Role): Membership => ({ state: "requested", role });
const facts = (over: Partial<ResourceFacts> = {}): ResourceFacts => ({
  isPublic: true,
  isAppResource: false,
  isAppOwned: false,
  defaultRole: "writer",
  grantCeiling: "admin",
  ...over,
});
const MEMBERS_ONLY = { isPublic: false };
const APP = { isAppResource: true, isAppOwned: true, isPublic: false };

// ---------------------------------------------------------------------------------------------------
// Readable rows: one per line of the transition tables and our decisions, then the code's choices.
// ---------------------------------------------------------------------------------------------------
type Row = [
  name: string,
  over: Partial<ResourceFacts>,
  trigger: Trigger,
  actor?: Membership,
  target?: Membership,
];
// biome-ignore format: one row per spec line reads better as a table
const rows: Array<[...Row, Shown]> = [
  // Seed membership table
  ["invite: admin invites a non-member", {}, { kind: "invite", role: "reader", pendingInvitesOfActor: 0 }, active("admin"), undefined, allow({ kind: "add", state: "invited", role: "reader" })],
  ["invite: no role → the type's defaultRole", { defaultRole: "reader" }, { kind: "invite", pendingInvitesOfActor: 0 }, active("owner"), undefined, allow({ kind: "add", state: "invited", role: "reader" })],
  ["invite: owner invites at admin (default ceiling admin)", {}, { kind: "invite", role: "admin", pendingInvitesOfActor: 0 }, active("owner"), undefined, allow({ kind: "add", state: "invited", role: "admin" })],
  ["invite: writer caller → forbidden", {}, { kind: "invite", role: "reader", pendingInvitesOfActor: 0 }, active("writer"), undefined, refuse("forbidden", 403)],
  ["invite: above ceiling → role_above_ceiling", { grantCeiling: "writer" }, { kind: "invite", role: "admin", pendingInvitesOfActor: 0 }, active("owner"), undefined, refuse("role_above_ceiling", 403)],
  ["invite: default role above ceiling → role_above_ceiling", { defaultRole: "admin", grantCeiling: "reader" }, { kind: "invite", pendingInvitesOfActor: 0 }, active("admin"), undefined, refuse("role_above_ceiling", 403)],
  ["invite: 49 pending → allowed", {}, { kind: "invite", role: "writer", pendingInvitesOfActor: 49 }, active("admin"), undefined, allow({ kind: "add", state: "invited", role: "writer" })],
  ["invite: 50 pending → too_many_pending_invites", {}, { kind: "invite", role: "writer", pendingInvitesOfActor: 50 }, active("admin"), undefined, refuse("too_many_pending_invites", 429)],
  ["request: non-member asks at the defaultRole", { defaultRole: "writer" }, { kind: "request" }, undefined, undefined, allow({ kind: "add", state: "requested", role: "writer" })],
  ["request: non-member asks at a given role", {}, { kind: "request", role: "reader" }, undefined, undefined, allow({ kind: "add", state: "requested", role: "reader" })],
  ["accept (empty body): invited user → active at the invited role", {}, { kind: "acceptInvite" }, invited("admin"), undefined, allow({ kind: "activate", role: "admin" })],
  ["accept {userId}: admin accepts a request → active at the requested role", {}, { kind: "acceptRequest" }, active("admin"), requested("writer"), allow({ kind: "activate", role: "writer" })],
  ["join: public resource → active at the defaultRole", { defaultRole: "reader" }, { kind: "join" }, undefined, undefined, allow({ kind: "add", state: "active", role: "reader" })],
  ["join: idempotent for an active member", {}, { kind: "join" }, active("writer"), undefined, allow({ kind: "none" })],
  ["auto-join: first write on a public resource → active at the defaultRole", { defaultRole: "admin" }, { kind: "autoJoin" }, undefined, undefined, allow({ kind: "add", state: "active", role: "admin" })],
  ["auto-join: never resolves a pending invite", {}, { kind: "autoJoin" }, invited("writer"), undefined, refuse("pending_membership", 403)],
  ["auto-join: never resolves a pending request", {}, { kind: "autoJoin" }, requested("writer"), undefined, refuse("pending_membership", 403)],
  ["setRole: admin replaces a writer's role", {}, { kind: "setRole", role: "reader" }, active("admin"), active("writer"), allow({ kind: "setRole", role: "reader" })],
  ["setRole: target is the owner", {}, { kind: "setRole", role: "reader" }, active("admin"), active("owner"), refuse("target_is_owner", 403)],
  ["setRole: target is a peer", {}, { kind: "setRole", role: "reader" }, active("admin"), active("admin"), refuse("insufficient_rank", 403)],
  ["setRole: above the ceiling", { grantCeiling: "writer" }, { kind: "setRole", role: "admin" }, active("owner"), active("reader"), refuse("role_above_ceiling", 403)],
  ["leave: active member → ended, policies applied", {}, { kind: "leave" }, active("admin"), undefined, allow({ kind: "drop", policies: true })],
  ["leave: the owner cannot leave", {}, { kind: "leave" }, active("owner"), undefined, refuse("owner_cannot_leave", 403)],
  ["remove: admin removes a writer, policies applied", {}, { kind: "remove" }, active("admin"), active("writer"), allow({ kind: "drop", policies: true })],
  ["remove: target is the owner", {}, { kind: "remove" }, active("admin"), active("owner"), refuse("target_is_owner", 403)],
  ["remove: target is a peer", {}, { kind: "remove" }, active("admin"), active("admin"), refuse("insufficient_rank", 403)],
  ["reject: own invite", {}, { kind: "rejectInvite" }, invited("reader"), undefined, allow({ kind: "drop", policies: false })],
  ["reject {userId}: admin rejects a request", {}, { kind: "rejectRequest" }, active("owner"), requested("admin"), allow({ kind: "drop", policies: false })],
  ["join: members-only → not_public", MEMBERS_ONLY, { kind: "join" }, undefined, undefined, refuse("not_public", 403)],
  // Seed resource lifecycle
  ["delete: the owner deletes", {}, { kind: "delete", actorIsOwner: true }, active("owner"), undefined, allow({ kind: "deleteResource" })],
  ["delete: _app is undeletable even for the owner", APP, { kind: "delete", actorIsOwner: true }, active("owner"), undefined, refuse("app_resource_undeletable", 403)],
  ["delete: _app checked before the owner check", APP, { kind: "delete", actorIsOwner: false }, active("admin"), undefined, refuse("app_resource_undeletable", 403)],
  ["delete: an admin is not the owner", {}, { kind: "delete", actorIsOwner: false }, active("admin"), undefined, refuse("forbidden", 403)],
  // Our decisions where the seed is silent
  ["invite role 'owner' → invalid_role", {}, { kind: "invite", role: "owner", pendingInvitesOfActor: 0 }, active("owner"), undefined, refuse("invalid_role", 400)],
  ["invite role 3 → invalid_role", {}, { kind: "invite", role: 3, pendingInvitesOfActor: 0 }, active("owner"), undefined, refuse("invalid_role", 400)],
  ["setRole role 'root' → invalid_role", {}, { kind: "setRole", role: "root" }, active("owner"), active("writer"), refuse("invalid_role", 400)],
  ["setRole role 'owner' → invalid_role", {}, { kind: "setRole", role: "owner" }, active("owner"), active("admin"), refuse("invalid_role", 400)],
  ["setRole without role → invalid_role", {}, { kind: "setRole" }, active("owner"), active("admin"), refuse("invalid_role", 400)],
  ["invite an active member → already_member", {}, { kind: "invite", pendingInvitesOfActor: 0 }, active("admin"), active("reader"), refuse("already_member", 409)],
  ["invite an invited user → already_pending", {}, { kind: "invite", pendingInvitesOfActor: 0 }, active("admin"), invited("reader"), refuse("already_pending", 409)],
  ["invite a requesting user → already_pending", {}, { kind: "invite", pendingInvitesOfActor: 0 }, active("admin"), requested("reader"), refuse("already_pending", 409)],
  ["accept, no body, no invite → no_pending_invite", {}, { kind: "acceptInvite" }, undefined, undefined, refuse("no_pending_invite", 404)],
  ["accept, no body, own request only → no_pending_invite", {}, { kind: "acceptInvite" }, requested("writer"), undefined, refuse("no_pending_invite", 404)],
  ["accept own invite at a role above today's ceiling: the invited role", { grantCeiling: "reader" }, { kind: "acceptInvite" }, invited("admin"), undefined, allow({ kind: "activate", role: "admin" })],
  ["accept {userId}: requested role above ceiling → role_above_ceiling", { grantCeiling: "writer" }, { kind: "acceptRequest" }, active("owner"), requested("admin"), refuse("role_above_ceiling", 403)],
  ["owner setRole on the owner (itself) → target_is_owner", {}, { kind: "setRole", role: "admin" }, active("owner"), active("owner"), refuse("target_is_owner", 403)],
  ["remove a pending invite → cancelled, no policies", {}, { kind: "remove" }, active("admin"), invited("reader"), allow({ kind: "drop", policies: false })],
  ["remove a pending request → cancelled, no policies", {}, { kind: "remove" }, active("admin"), requested("writer"), allow({ kind: "drop", policies: false })],
  ["leave while invited → withdraws, no policies", {}, { kind: "leave" }, invited("writer"), undefined, allow({ kind: "drop", policies: false })],
  ["leave while requesting → withdraws, no policies", {}, { kind: "leave" }, requested("admin"), undefined, allow({ kind: "drop", policies: false })],
  ["leave as a non-member → not_a_member", {}, { kind: "leave" }, undefined, undefined, refuse("not_a_member", 404)],
  ["join with a pending invite → pending_membership 409", {}, { kind: "join" }, invited("writer"), undefined, refuse("pending_membership", 409)],
  ["join with a pending request → pending_membership 409", {}, { kind: "join" }, requested("reader"), undefined, refuse("pending_membership", 409)],
  ["caller below admin: acceptRequest", {}, { kind: "acceptRequest" }, active("writer"), requested("reader"), refuse("forbidden", 403)],
  ["caller below admin: rejectRequest", {}, { kind: "rejectRequest" }, active("reader"), requested("reader"), refuse("forbidden", 403)],
  ["caller below admin: setRole", {}, { kind: "setRole", role: "reader" }, active("writer"), active("reader"), refuse("forbidden", 403)],
  ["caller below admin: remove", {}, { kind: "remove" }, active("writer"), active("reader"), refuse("forbidden", 403)],
  ["a pending admin is not an admin yet: invite", {}, { kind: "invite", pendingInvitesOfActor: 0 }, invited("admin"), undefined, refuse("forbidden", 403)],
  ["a non-member is not an admin: remove", {}, { kind: "remove" }, undefined, active("reader"), refuse("forbidden", 403)],
  // Where the spec is silent: the code's choices
  ["choice: request allowed on a members-only resource", MEMBERS_ONLY, { kind: "request" }, undefined, undefined, allow({ kind: "add", state: "requested", role: "writer" })],
  ["choice: request above the ceiling is accepted; the ceiling applies at accept", { grantCeiling: "reader" }, { kind: "request", role: "admin" }, undefined, undefined, allow({ kind: "add", state: "requested", role: "admin" })],
  ["choice: request role 'owner' → invalid_role", {}, { kind: "request", role: "owner" }, undefined, undefined, refuse("invalid_role", 400)],
  ["choice: request by an active member → already_member", {}, { kind: "request" }, active("reader"), undefined, refuse("already_member", 409)],
  ["choice: request while invited → already_pending", {}, { kind: "request" }, invited("reader"), undefined, refuse("already_pending", 409)],
  ["choice: setRole on a pending user → not_a_member", {}, { kind: "setRole", role: "reader" }, active("admin"), invited("writer"), refuse("not_a_member", 404)],
  ["choice: setRole on a non-member → not_a_member", {}, { kind: "setRole", role: "reader" }, active("admin"), undefined, refuse("not_a_member", 404)],
  ["choice: remove a non-member → not_a_member", {}, { kind: "remove" }, active("admin"), undefined, refuse("not_a_member", 404)],
  ["choice: remove of a pending admin skips the rank check", {}, { kind: "remove" }, active("admin"), invited("admin"), allow({ kind: "drop", policies: false })],
  ["choice: rejectRequest with no request → no_pending_request 404", {}, { kind: "rejectRequest" }, active("admin"), undefined, refuse("no_pending_request", 404)],
  ["choice: acceptRequest of an invited user → no_pending_request 404", {}, { kind: "acceptRequest" }, active("admin"), invited("reader"), refuse("no_pending_request", 404)],
  ["choice: auto-join on members-only → forbidden 403", MEMBERS_ONLY, { kind: "autoJoin" }, undefined, undefined, refuse("forbidden", 403)],
  ["choice: auto-join of an active reader → none", {}, { kind: "autoJoin" }, active("reader"), undefined, allow({ kind: "none" })],
  ["choice: join by an active member of a members-only resource → none", MEMBERS_ONLY, { kind: "join" }, active("writer"), undefined, allow({ kind: "none" })],
  ["choice: join while pending on members-only → pending_membership first", MEMBERS_ONLY, { kind: "join" }, invited("writer"), undefined, refuse("pending_membership", 409)],
  ["choice: invite checks the role before the target", {}, { kind: "invite", role: "root", pendingInvitesOfActor: 50 }, active("admin"), active("reader"), refuse("invalid_role", 400)],
  ["choice: invite checks the target before the pending count", {}, { kind: "invite", pendingInvitesOfActor: 50 }, active("admin"), invited("reader"), refuse("already_pending", 409)],
  ["choice: setRole checks the role before the target", {}, { kind: "setRole", role: 3 }, active("admin"), active("owner"), refuse("invalid_role", 400)],
  ["choice: setRole checks rank before the ceiling", { grantCeiling: "reader" }, { kind: "setRole", role: "admin" }, active("admin"), active("admin"), refuse("insufficient_rank", 403)],
  ["choice: invite role null is treated as absent", { defaultRole: "reader" }, { kind: "invite", role: null, pendingInvitesOfActor: 0 }, active("admin"), undefined, allow({ kind: "add", state: "invited", role: "reader" })],
  // The operator (admin API) acts with the owner's rank, under the same rules
  ["operator: setRole promotes a writer to admin", {}, { kind: "setRole", role: "admin" }, OPERATOR, active("writer"), allow({ kind: "setRole", role: "admin" })],
  ["operator: setRole demotes an admin", {}, { kind: "setRole", role: "reader" }, OPERATOR, active("admin"), allow({ kind: "setRole", role: "reader" })],
  ["operator: setRole on the owner → target_is_owner", {}, { kind: "setRole", role: "admin" }, OPERATOR, active("owner"), refuse("target_is_owner", 403)],
  ["operator: setRole above the ceiling → role_above_ceiling", { grantCeiling: "writer" }, { kind: "setRole", role: "admin" }, OPERATOR, active("reader"), refuse("role_above_ceiling", 403)],
  ["operator: setRole to owner → invalid_role", {}, { kind: "setRole", role: "owner" }, OPERATOR, active("reader"), refuse("invalid_role", 400)],
  ["operator: setRole on an invited user → not_a_member", {}, { kind: "setRole", role: "reader" }, OPERATOR, invited("writer"), refuse("not_a_member", 404)],
  ["operator: remove an admin, policies applied", {}, { kind: "remove" }, OPERATOR, active("admin"), allow({ kind: "drop", policies: true })],
  ["operator: remove the owner → target_is_owner", {}, { kind: "remove" }, OPERATOR, active("owner"), refuse("target_is_owner", 403)],
  ["operator: remove a requesting user cancels the request", {}, { kind: "remove" }, OPERATOR, requested("admin"), allow({ kind: "drop", policies: false })],
  ["operator: remove a non-member → not_a_member", {}, { kind: "remove" }, OPERATOR, undefined, refuse("not_a_member", 404)],
];

describe("decide: rows from the transition tables and our decisions", () => {
  for (const [name, over, trigger, actor, target, want] of rows) {
    test(name, () => {
      expect(shown(decide(facts(over), trigger, actor, target))).toEqual(want);
    });
  }
});

// ---------------------------------------------------------------------------------------------------
// The full matrix.
// ---------------------------------------------------------------------------------------------------
const MEMBERSHIPS: Array<Membership | undefined> = [
  undefined,
  ...GRANTABLE.map(invited),
  ...GRANTABLE.map(requested),
  ...(["reader", "writer", "admin", "owner"] as const).map(active),
].map((m) => (m ? Object.freeze(m) : m));
const ALL_FACTS: ResourceFacts[] = [];
for (const isPublic of [true, false])
  for (const [isAppResource, isAppOwned] of [
    [false, false],
    [false, true],
    [true, true],
  ] as const)
    for (const defaultRole of GRANTABLE)
      for (const grantCeiling of GRANTABLE)
        ALL_FACTS.push(Object.freeze({ isPublic, isAppResource, isAppOwned, defaultRole, grantCeiling }));
const ROLE_ARGS: unknown[] = [
  undefined,
  "reader",
  "writer",
  "admin",
  "owner",
  3,
  "root",
  "",
  "Admin",
  null,
  {},
];
const OFFERS: OfferFacts[] = ["none", "to_actor", "to_other"];
const TRIGGERS: Record<Trigger["kind"], Trigger[]> = {
  invite: ROLE_ARGS.flatMap((role) =>
    [0, 49, 50].map((n) => ({ kind: "invite" as const, role, pendingInvitesOfActor: n })),
  ),
  request: ROLE_ARGS.map((role) => ({ kind: "request" as const, role })),
  acceptInvite: [{ kind: "acceptInvite" }],
  acceptRequest: [{ kind: "acceptRequest" }],
  rejectInvite: [{ kind: "rejectInvite" }],
  rejectRequest: [{ kind: "rejectRequest" }],
  join: [{ kind: "join" }],
  autoJoin: [{ kind: "autoJoin" }],
  setRole: ROLE_ARGS.map((role) => ({ kind: "setRole" as const, role })),
  remove: [{ kind: "remove" }],
  leave: [{ kind: "leave" }],
  delete: [
    { kind: "delete", actorIsOwner: true },
    { kind: "delete", actorIsOwner: false },
  ],
  transferOwnership: [
    { kind: "transferOwnership", targetIsActor: false },
    { kind: "transferOwnership", targetIsActor: true },
  ],
  acceptOwnership: OFFERS.map((offer) => ({ kind: "acceptOwnership" as const, offer })),
  declineOwnership: OFFERS.map((offer) => ({ kind: "declineOwnership" as const, offer })),
  cancelOwnership: OFFERS.map((offer) => ({ kind: "cancelOwnership" as const, offer })),
};
const label = (m?: Membership) => (m ? `${m.state} ${m.role}` : "non-member");

// ---------------------------------------------------------------------------------------------------
// Properties the specification states, checked over every cell. Each is a rule in the spec's own
// words, not a second copy of decide(): a cell that breaks one names the rule it breaks.
// ---------------------------------------------------------------------------------------------------
type Cell = { r: ResourceFacts; t: Trigger; actor?: Membership; target?: Membership; d: Shown };
const rank = (role: Role) => LEVEL[role];
const isGrantableRole = (x: unknown): x is Grantable => x === "reader" || x === "writer" || x === "admin";
const grantedRole = ({ d }: Cell): Role | undefined =>
  d.ok && (d.change.kind === "add" || d.change.kind === "activate" || d.change.kind === "setRole")
    ? d.change.role
    : undefined;
const isAdminActor = (m?: Membership) => m?.state === "active" && rank(m.role) >= LEVEL.admin;

const PROPERTIES: Array<[string, (cell: Cell) => boolean]> = [
  [
    "a refusal carries a known code and a 4xx status",
    ({ d }) => d.ok || (d.code in STATUS && d.status >= 400 && d.status < 500),
  ],
  [
    "no change ever makes anyone owner (only an accepted ownership offer does)",
    (c) => grantedRole(c) !== "owner",
  ],
  [
    "membership triggers never touch ownership, ownership triggers never touch memberships",
    (c) =>
      !c.d.ok ||
      ["offerOwnership", "takeOwnership", "endOffer"].includes(c.d.change.kind) ===
        c.t.kind.endsWith("Ownership"),
  ],
  [
    "a role given by someone else is within the grant ceiling and the giver's own role",
    (c) => {
      const role = grantedRole(c);
      if (!role || !["invite", "setRole", "acceptRequest"].includes(c.t.kind)) return true;
      return rank(role) <= rank(c.r.grantCeiling) && !!c.actor && rank(role) <= rank(c.actor.role);
    },
  ],
  [
    "self-serve joins are at the type's default role",
    (c) =>
      !(c.t.kind === "join" || c.t.kind === "autoJoin") ||
      !c.d.ok ||
      c.d.change.kind !== "add" ||
      c.d.change.role === c.r.defaultRole,
  ],
  [
    "only admins or higher invite, set roles, remove, or decide someone else's request",
    (c) =>
      !c.d.ok ||
      !["invite", "setRole", "remove", "acceptRequest", "rejectRequest"].includes(c.t.kind) ||
      isAdminActor(c.actor),
  ],
  [
    "the owner is never removed, demoted or made to leave",
    (c) => {
      if (!c.d.ok) return true;
      const kind = c.d.change.kind;
      if ((c.t.kind === "setRole" || c.t.kind === "remove") && c.target?.role === "owner")
        return kind === "none";
      if (c.t.kind === "leave" && c.actor?.role === "owner") return kind === "none";
      return true;
    },
  ],
  [
    "nobody acts on a peer or a superior",
    (c) =>
      !c.d.ok ||
      !(c.t.kind === "setRole" || (c.t.kind === "remove" && c.target?.state === "active")) ||
      (!!c.actor && !!c.target && rank(c.target.role) < rank(c.actor.role)),
  ],
  [
    "a pending membership becomes active only through its explicit accept",
    (c) =>
      !c.d.ok ||
      c.d.change.kind !== "activate" ||
      (c.t.kind === "acceptInvite" && c.actor?.state === "invited") ||
      (c.t.kind === "acceptRequest" && c.target?.state === "requested"),
  ],
  [
    "join and auto-join never resolve a pending invite or request",
    (c) =>
      !(c.t.kind === "join" || c.t.kind === "autoJoin") || !c.actor || c.actor.state === "active" || !c.d.ok,
  ],
  [
    "a members-only resource has no implicit path to membership",
    (c) =>
      c.r.isPublic ||
      !(c.t.kind === "join" || c.t.kind === "autoJoin") ||
      !c.d.ok ||
      c.d.change.kind === "none",
  ],
  [
    "membership is consensual: nobody else's action makes a user active without their accept",
    (c) =>
      !c.d.ok ||
      c.d.change.kind !== "add" ||
      c.d.change.state !== "active" ||
      c.t.kind === "join" ||
      c.t.kind === "autoJoin",
  ],
  [
    "invites add pending rows, requests add requested rows",
    (c) =>
      !c.d.ok ||
      c.d.change.kind !== "add" ||
      (c.t.kind === "invite"
        ? c.d.change.state === "invited"
        : c.t.kind !== "request" || c.d.change.state === "requested"),
  ],
  [
    "an inviter never holds more than 50 pending invites",
    (c) => c.t.kind !== "invite" || !c.d.ok || c.t.pendingInvitesOfActor < 50,
  ],
  [
    "an invite or a role change names a grantable role (reader, writer, admin)",
    (c) =>
      !c.d.ok ||
      // (null is treated as absent: the type's default role)
      !((c.t.kind === "invite" && c.t.role != null) || c.t.kind === "setRole") ||
      isGrantableRole((c.t as { role?: unknown }).role),
  ],
  ["_app is never deleted", (c) => !c.r.isAppResource || c.t.kind !== "delete" || !c.d.ok],
  [
    "only the owner deletes",
    (c) => c.t.kind !== "delete" || !c.d.ok || (c.t as { actorIsOwner: boolean }).actorIsOwner,
  ],
  [
    "an active member joining again changes nothing (idempotent)",
    (c) => !(c.t.kind === "join" && c.actor?.state === "active") || (c.d.ok && c.d.change.kind === "none"),
  ],
  [
    "onMemberRemove applies only when an active member goes",
    (c) =>
      !c.d.ok ||
      c.d.change.kind !== "drop" ||
      !c.d.change.policies ||
      (c.t.kind === "leave" ? c.actor?.state === "active" : c.target?.state === "active"),
  ],
];

describe("decide: every trigger × actor × target × resource facts × role argument", () => {
  for (const [kind, triggers] of Object.entries(TRIGGERS)) {
    test(`${kind}: every cell keeps every stated property`, () => {
      const broken = new Map<string, string[]>();
      let cells = 0;
      for (const actor of MEMBERSHIPS)
        for (const t of triggers)
          for (const target of MEMBERSHIPS)
            for (const r of ALL_FACTS) {
              cells++;
              const cell: Cell = { r, t, actor, target, d: shown(decide(r, t, actor, target)) };
              for (const [name, holds] of PROPERTIES) {
                if (holds(cell)) continue;
                const seen = broken.get(name) ?? [];
                if (seen.length < 3)
                  seen.push(JSON.stringify({ actor: label(actor), t, target: label(target), r, d: cell.d }));
                broken.set(name, seen);
              }
            }
      expect(Object.fromEntries(broken)).toEqual({});
      // Counted here, from the dimensions: independent of which other tests ran.
      expect(cells).toBe(MEMBERSHIPS.length * triggers.length * MEMBERSHIPS.length * ALL_FACTS.length);
    });
  }
});
