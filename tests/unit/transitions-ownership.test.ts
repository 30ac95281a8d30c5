/**
 * decide() for the ownership offer (issue 16, items 1 and 2): transferOwnership, acceptOwnership,
 * declineOwnership, cancelOwnership. First one readable row per rule of the issue, then every cell
 * (trigger × caller × target × pending offer × resource facts), each checked against the rule the issue
 * states for it, so a cell that changes names the rule it breaks. Breaking decide() (a non-owner
 * offering, an offer to a pending user, an accept of someone else's offer, `_app` changing hands)
 * fails a row and a cell.
 */
import { describe, expect, test } from "bun:test";
import { statusOf } from "../../src/server/http/errors.ts";
import type { Role } from "../../src/server/resources/roles.ts";
import {
  type Decision,
  decide,
  endsOfferTo,
  type Membership,
  type OfferFacts,
  type OwnershipTrigger,
  type ResourceFacts,
} from "../../src/server/resources/transitions.ts";

const active = (role: Role): Membership => ({ state: "active", role });
const invited = (role: Role): Membership => ({ state: "invited", role });
const requested = (role: Role): Membership => ({ state: "requested", role });
const facts = (over: Partial<ResourceFacts> = {}): ResourceFacts => ({
  isPublic: false,
  isAppResource: false,
  isAppOwned: false,
  defaultRole: "writer",
  grantCeiling: "admin",
  ...over,
});
const APP = { isAppResource: true, isAppOwned: true };
const STATIC = { isAppOwned: true, isPublic: true };
const ok = (kind: "offerOwnership" | "takeOwnership" | "endOffer"): Decision => ({
  ok: true,
  change: { kind },
});
const no = (code: string, status: number) => ({ ok: false, code, status });
/** A decision as compared here: a refusal by its code and the status the refusal table gives it. */
const shown = (d: Decision) => (d.ok ? d : { ok: false, code: d.refusal.code, status: statusOf(d.refusal) });
const transfer = (targetIsActor = false): OwnershipTrigger => ({ kind: "transferOwnership", targetIsActor });
const accept = (offer: OfferFacts): OwnershipTrigger => ({ kind: "acceptOwnership", offer });
const decline = (offer: OfferFacts): OwnershipTrigger => ({ kind: "declineOwnership", offer });
const cancel = (offer: OfferFacts): OwnershipTrigger => ({ kind: "cancelOwnership", offer });

type Row = [
  name: string,
  over: Partial<ResourceFacts>,
  trigger: OwnershipTrigger,
  actor: Membership | undefined,
  target: Membership | undefined,
  want: unknown,
];
// biome-ignore format: one row per rule reads better as a table
const rows: Row[] = [
  // transferOwnership: the owner offers to an active member
  ["transfer: the owner offers to an active writer", {}, transfer(), active("owner"), active("writer"), ok("offerOwnership")],
  ["transfer: the owner offers to an active reader", {}, transfer(), active("owner"), active("reader"), ok("offerOwnership")],
  ["transfer: the owner offers to an active admin", {}, transfer(), active("owner"), active("admin"), ok("offerOwnership")],
  ["transfer: on a public resource too", { isPublic: true }, transfer(), active("owner"), active("writer"), ok("offerOwnership")],
  ["transfer: an admin is not the owner → forbidden", {}, transfer(), active("admin"), active("writer"), no("forbidden", 403)],
  ["transfer: a writer → forbidden", {}, transfer(), active("writer"), active("reader"), no("forbidden", 403)],
  ["transfer: a non-member → forbidden", { isPublic: true }, transfer(), undefined, active("reader"), no("forbidden", 403)],
  ["transfer: to the owner itself → target_is_owner", {}, transfer(true), active("owner"), active("owner"), no("target_is_owner", 403)],
  ["transfer: to an invited user → not_a_member", {}, transfer(), active("owner"), invited("admin"), no("not_a_member", 404)],
  ["transfer: to a requesting user → not_a_member", {}, transfer(), active("owner"), requested("writer"), no("not_a_member", 404)],
  ["transfer: to a non-member → not_a_member", {}, transfer(), active("owner"), undefined, no("not_a_member", 404)],
  ["transfer: _app → app_resource_untransferable", APP, transfer(), active("admin"), active("writer"), no("app_resource_untransferable", 403)],
  ["transfer: a static → app_resource_untransferable", STATIC, transfer(), active("admin"), active("writer"), no("app_resource_untransferable", 403)],
  ["transfer: app-owned is checked before the caller", APP, transfer(), undefined, undefined, no("app_resource_untransferable", 403)],
  // acceptOwnership: the member offered accepts while still active
  ["accept: the offered writer → takes ownership", {}, accept("to_actor"), active("writer"), undefined, ok("takeOwnership")],
  ["accept: the offered admin → takes ownership", {}, accept("to_actor"), active("admin"), undefined, ok("takeOwnership")],
  ["accept: no pending offer → no_pending_offer", {}, accept("none"), active("writer"), undefined, no("no_pending_offer", 404)],
  ["accept: the offer is someone else's → no_pending_offer", {}, accept("to_other"), active("admin"), undefined, no("no_pending_offer", 404)],
  ["accept: the owner cannot accept another's offer", {}, accept("to_other"), active("owner"), undefined, no("no_pending_offer", 404)],
  ["accept: offered but no longer active → not_a_member", {}, accept("to_actor"), undefined, undefined, no("not_a_member", 404)],
  ["accept: offered but only invited → not_a_member", {}, accept("to_actor"), invited("writer"), undefined, no("not_a_member", 404)],
  ["accept: app-owned → app_resource_untransferable", STATIC, accept("to_actor"), active("writer"), undefined, no("app_resource_untransferable", 403)],
  // declineOwnership: the member offered declines
  ["decline: the offered member → the offer ends", {}, decline("to_actor"), active("reader"), undefined, ok("endOffer")],
  ["decline: no pending offer → no_pending_offer", {}, decline("none"), active("reader"), undefined, no("no_pending_offer", 404)],
  ["decline: someone else's offer → no_pending_offer", {}, decline("to_other"), active("admin"), undefined, no("no_pending_offer", 404)],
  ["decline: the owner cannot decline for the target", {}, decline("to_other"), active("owner"), undefined, no("no_pending_offer", 404)],
  ["decline: app-owned → app_resource_untransferable", APP, decline("to_actor"), active("writer"), undefined, no("app_resource_untransferable", 403)],
  // cancelOwnership: the owner withdraws
  ["cancel: the owner withdraws the pending offer", {}, cancel("to_other"), active("owner"), undefined, ok("endOffer")],
  ["cancel: no pending offer → no_pending_offer", {}, cancel("none"), active("owner"), undefined, no("no_pending_offer", 404)],
  ["cancel: the target is not the owner → forbidden", {}, cancel("to_actor"), active("writer"), undefined, no("forbidden", 403)],
  ["cancel: an admin is not the owner → forbidden", {}, cancel("to_other"), active("admin"), undefined, no("forbidden", 403)],
  ["cancel: the owner is checked before the offer", {}, cancel("none"), active("admin"), undefined, no("forbidden", 403)],
  ["cancel: app-owned → app_resource_untransferable", APP, cancel("to_other"), active("admin"), undefined, no("app_resource_untransferable", 403)],
];

describe("decide: one row per ownership rule", () => {
  for (const [name, over, trigger, actor, target, want] of rows)
    test(name, () => {
      expect(shown(decide(facts(over), trigger, actor, target))).toEqual(want as never);
    });
});

// ---------------------------------------------------------------------------------------------------
// Every cell, against the rule the issue states for it.
// ---------------------------------------------------------------------------------------------------
const MEMBERSHIPS: Array<Membership | undefined> = [
  undefined,
  ...(["reader", "writer", "admin"] as const).flatMap((r) => [invited(r), requested(r)]),
  ...(["reader", "writer", "admin", "owner"] as const).map(active),
];
const OFFERS: OfferFacts[] = ["none", "to_actor", "to_other"];
const FACTS: ResourceFacts[] = [];
for (const isPublic of [false, true])
  for (const [isAppResource, isAppOwned] of [
    [false, false],
    [false, true],
    [true, true],
  ] as const)
    FACTS.push(facts({ isPublic, isAppResource, isAppOwned }));
const TRIGGERS: OwnershipTrigger[] = [
  transfer(false),
  transfer(true),
  ...OFFERS.flatMap((o) => [accept(o), decline(o), cancel(o)]),
];

const isActive = (m?: Membership) => m?.state === "active";
const isOwner = (m?: Membership) => isActive(m) && m!.role === "owner";

/** What the issue allows for a cell: the change, or null when it must be refused. */
function allowed(
  r: ResourceFacts,
  t: OwnershipTrigger,
  actor?: Membership,
  target?: Membership,
): string | null {
  if (r.isAppOwned) return null; // `_app` and statics: never
  switch (t.kind) {
    case "transferOwnership": // the owner offers to an active member (not itself)
      return isOwner(actor) && !t.targetIsActor && isActive(target) ? "offerOwnership" : null;
    case "acceptOwnership": // the member offered, still active
      return t.offer === "to_actor" && isActive(actor) ? "takeOwnership" : null;
    case "declineOwnership": // the member offered
      return t.offer === "to_actor" ? "endOffer" : null;
    case "cancelOwnership": // the owner, while an offer is pending
      return isOwner(actor) && t.offer !== "none" ? "endOffer" : null;
  }
}

describe("decide: every ownership cell", () => {
  for (const t of TRIGGERS)
    test(`${t.kind} ${JSON.stringify(t)}: allowed exactly where the issue allows it, refused with a known code elsewhere`, () => {
      const wrong: string[] = [];
      let cells = 0;
      for (const r of FACTS)
        for (const actor of MEMBERSHIPS)
          for (const target of MEMBERSHIPS) {
            cells++;
            const d = decide(r, t, actor, target);
            const want = allowed(r, t, actor, target);
            const got = d.ok ? d.change.kind : null;
            const knownRefusal =
              !d.ok &&
              [
                "forbidden",
                "target_is_owner",
                "not_a_member",
                "no_pending_offer",
                "app_resource_untransferable",
              ].includes(d.refusal.code) &&
              (r.isAppOwned ? d.refusal.code === "app_resource_untransferable" : true);
            if (got !== want || (!d.ok && !knownRefusal))
              wrong.push(JSON.stringify({ r, actor, target, want, d }));
          }
      expect(wrong.slice(0, 3)).toEqual([]);
      expect(cells).toBe(FACTS.length * MEMBERSHIPS.length * MEMBERSHIPS.length);
    });
});

describe("endsOfferTo: an offer lives while its target is an active member", () => {
  test.each([
    ["an active member leaves or is removed", { kind: "drop", policies: true }, active("writer"), true],
    ["an active member goes without policies", { kind: "drop", policies: false }, active("admin"), true],
    ["a pending invite is withdrawn", { kind: "drop", policies: false }, invited("writer"), false],
    ["a pending request is rejected", { kind: "drop", policies: false }, requested("writer"), false],
    ["a role changes", { kind: "setRole", role: "reader" }, active("writer"), false],
    ["nothing changes", { kind: "none" }, active("writer"), false],
  ] as const)("%s", (_name, change, before, want) => {
    expect(endsOfferTo(change, before)).toBe(want);
  });
});
