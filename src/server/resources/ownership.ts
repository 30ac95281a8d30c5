/**
 * Ownership transfer, consensual like every membership change: the owner offers the resource to an
 * active member (one pending offer per resource; a new offer replaces it), the member accepts or
 * declines, the owner may cancel. Each call is one write transaction that locks the resource, reads
 * the memberships and the pending offer, asks `transitions.ts`, and applies the answer with the
 * membership service, so an accept racing a cancel, a new offer or the target leaving can never leave
 * the resource with two owners or none: the accept makes the member the owner and the previous owner
 * an admin together.
 */
import type { Storage } from "../db/sql.ts";
import type { Caller } from "../domain/caller.ts";
import { Refusal } from "../domain/refusal.ts";
import { appendEvent } from "../events/log.ts";
import { canSee } from "./access.ts";
import { EVENT, refuseDeleted } from "./refusals.ts";
import type { MembershipService } from "./service.ts";
import { decide, type OfferFacts, type OwnershipTrigger } from "./transitions.ts";

export type OwnershipAction = OwnershipTrigger["kind"];

export class OwnershipService {
  constructor(
    private readonly storage: Storage,
    private readonly membership: MembershipService,
  ) {}

  /**
   * Runs one ownership step. `targetUserId` is the member offered the resource (transferOwnership only);
   * the other steps act on the resource's pending offer.
   */
  change(
    principal: Caller,
    resourceId: string,
    action: OwnershipAction,
    targetUserId?: string,
  ): Promise<void> {
    const { store } = this.membership;
    return this.storage.transaction(async (tx) => {
      const [gone, resource, actor, target, offer] = await Promise.all([
        this.membership.deleted.guard(tx, [principal.userId, targetUserId]),
        store.lockResource(resourceId, tx),
        store.getMembership(resourceId, principal.userId, tx),
        targetUserId === undefined ? undefined : store.getMembership(resourceId, targetUserId, tx),
        store.offers.get(resourceId, tx),
      ]);
      refuseDeleted(gone, principal.userId);
      if (!resource || resource.appId !== principal.appId || !canSee(resource, actor))
        throw new Refusal("not_found");
      const offerFacts: OfferFacts = !offer
        ? "none"
        : offer.userId === principal.userId
          ? "to_actor"
          : "to_other";
      const trigger: OwnershipTrigger =
        action === "transferOwnership"
          ? { kind: action, targetIsActor: targetUserId === principal.userId }
          : { kind: action, offer: offerFacts };
      const decision = decide(this.membership.facts(resource), trigger, actor, target);
      if (!decision.ok) throw decision.refusal;
      // Who the step is about: the member offered (now, or by the offer that ends).
      const subject = targetUserId ?? offer!.userId;
      await this.membership.apply(tx, resource, decision.change, subject, target, principal.userId);
      appendEvent(tx, {
        type: EVENT[action],
        actor: principal.userId,
        resourceId,
        userId: subject,
        data:
          action === "acceptOwnership"
            ? { previousOwner: resource.ownerId }
            : action === "transferOwnership" && offer
              ? { replaces: offer.userId }
              : undefined,
      });
    });
  }
}
