/**
 * The membership service: each operation is one write transaction that loads the rows, asks the pure
 * rules (`transitions.ts`) what happens, applies the answer with `store.ts`, applies onMemberRemove
 * through the data seam, keeps `member_count`, and appends one event row. Routes stay thin.
 */
import type { DeletedUsers } from "../accounts/pseudonym.ts";
import type { AppRegistry, TypeConfig } from "../apps/registry.ts";
import type { DataSeam } from "../data/seam.ts";
import type { Storage, TransactionOptions, Tx } from "../db/sql.ts";
import type { Caller } from "../domain/caller.ts";
import { Refusal } from "../domain/refusal.ts";
import { appendEvent } from "../events/log.ts";
import { canSee, isOwner } from "./access.ts";
import { EVENT, refuseDeleted } from "./refusals.ts";
import type { MemberRow, ResourceRow, ResourceStore } from "./store.ts";
import {
  type Change,
  type Decision,
  decide,
  endsOfferTo,
  OPERATOR,
  type ResourceFacts,
  type Trigger,
  type TriggerRequest,
} from "./transitions.ts";
import { type VisibilityEnum, visibilityPair } from "./views.ts";

/** What an operator may do to a roster through the admin API (the public API's setRole and remove). */
export type OperatorTrigger = Extract<TriggerRequest, { kind: "setRole" } | { kind: "remove" }>;

export interface CreateResourceOptions {
  type: string;
  name: string;
  visibility?: VisibilityEnum;
}

export class MembershipService {
  constructor(
    private readonly storage: Storage,
    readonly store: ResourceStore,
    private readonly apps: AppRegistry,
    private readonly seam: DataSeam,
    /** Every change takes its users' locks and refuses a deleted user (deletion is final). */
    readonly deleted: DeletedUsers,
  ) {}

  typeOf(appId: string, type: string): TypeConfig {
    return (
      this.apps.typeConfig(appId, type) ?? {
        defaultRole: "writer",
        visibility: "members",
        grantCeiling: "admin",
        reserved: false,
      }
    );
  }

  facts(resource: ResourceRow): ResourceFacts {
    const type = this.typeOf(resource.appId, resource.type);
    return {
      isPublic: resource.visibility === "public",
      isAppResource: resource.type === "_app",
      isAppOwned: resource.ownerKind === "app",
      defaultRole: type.defaultRole,
      grantCeiling: type.grantCeiling,
    };
  }

  async createResource(principal: Caller, options: CreateResourceOptions): Promise<ResourceRow> {
    const type = this.apps.typeConfig(principal.appId, options.type);
    if (!type) throw new Refusal("unknown_type");
    if (type.reserved) throw new Refusal("reserved_type");
    const now = Date.now();
    const row: ResourceRow = {
      seq: 0,
      id: Bun.randomUUIDv7(),
      appId: principal.appId,
      type: options.type,
      name: options.name,
      ...visibilityPair(options.visibility ?? type.visibility),
      ownerId: principal.userId,
      ownerKind: "user",
      slug: null,
      memberCount: 1,
      createdAt: now,
    };
    await this.storage.transaction(async (tx) => {
      refuseDeleted(await this.deleted.guard(tx, [principal.userId]), principal.userId);
      this.store.insertResource(tx, row);
      this.store.insertMember(tx, {
        resourceId: row.id,
        userId: principal.userId,
        appId: principal.appId,
        role: "owner",
        state: "active",
        invitedBy: null,
        createdAt: now,
        updatedAt: now,
      });
      appendEvent(tx, {
        type: "resource.created",
        actor: principal.userId,
        resourceId: row.id,
        userId: principal.userId,
        data: { type: row.type },
      });
    });
    return row;
  }

  /**
   * Runs one membership transition in one write transaction. `targetUserId` names the member acted on
   * (invite, acceptRequest, rejectRequest, setRole, remove); otherwise the caller is the subject.
   */
  transition(
    principal: Caller,
    resourceId: string,
    trigger: TriggerRequest,
    targetUserId?: string,
  ): Promise<Change> {
    return this.storage.transaction(async (tx) => {
      // Issued together (one round trip to PostgreSQL); they run in order, so the memberships are read
      // once the users and the resource are locked.
      const [gone, resource, actor, target] = await Promise.all([
        this.deleted.guard(tx, [principal.userId, targetUserId]),
        this.store.lockResource(resourceId, tx),
        this.store.getMembership(resourceId, principal.userId, tx),
        targetUserId === undefined ? undefined : this.store.getMembership(resourceId, targetUserId, tx),
      ]);
      refuseDeleted(gone, principal.userId);
      if (!resource || resource.appId !== principal.appId) throw new Refusal("not_found");
      if (trigger.kind === "delete" && resource.type === "_app")
        throw new Refusal("app_resource_undeletable");
      // Request and join answer for resources the caller cannot see (a members-only join is 403),
      // and a pending requester may always withdraw (leave).
      const exempt =
        trigger.kind === "request" ||
        trigger.kind === "join" ||
        (trigger.kind === "leave" && actor !== undefined);
      if (!exempt && !canSee(resource, actor)) throw new Refusal("not_found");
      let input: Trigger;
      if (trigger.kind === "delete") {
        input = { kind: "delete", actorIsOwner: isOwner(resource, principal.userId) };
      } else if (trigger.kind !== "invite") {
        input = trigger;
      } else {
        // The cap counts the inviter's pending invites across the app's resources: one inviter's
        // invites are counted and written one transaction at a time.
        const [, pendingInvitesOfActor] = await Promise.all([
          tx.lock(`invites:${resource.appId}:${principal.userId}`),
          this.store.countPendingInvites(resource.appId, principal.userId, tx),
        ]);
        input = { ...trigger, pendingInvitesOfActor };
      }
      const decision = decide(this.facts(resource), input, actor, target);
      const subject = targetUserId ?? principal.userId;
      const before = targetUserId === undefined ? actor : target;
      return this.commit(tx, resource, trigger.kind, decision, subject, before, principal.userId);
    });
  }

  /**
   * The operator (the admin API) changes a member's role or removes a member, in any app: the same
   * rules as the public API, decided with the operator as an actor of the owner's rank (OPERATOR), the
   * same changes, policies and events, with `actor` (the operator's name in the audit log) as the actor.
   */
  transitionAsOperator(
    resourceId: string,
    trigger: OperatorTrigger,
    targetUserId: string,
    actor: string,
  ): Promise<Change> {
    return this.storage.transaction(async (tx) => {
      // Issued together; they run in order, so the membership is read once the user and the resource
      // are locked (as every change does, so a deletion in progress is waited for, then refused).
      const [gone, resource, target] = await Promise.all([
        this.deleted.guard(tx, [targetUserId]),
        this.store.lockResource(resourceId, tx),
        this.store.getMembership(resourceId, targetUserId, tx),
      ]);
      refuseDeleted(gone, "");
      if (!resource) throw new Refusal("not_found");
      const decision = decide(this.facts(resource), trigger, OPERATOR, target);
      return this.commit(tx, resource, trigger.kind, decision, targetUserId, target, actor);
    });
  }

  /** Applies a decision (or raises its refusal) and appends its event, inside the caller's transaction. */
  private async commit(
    tx: Tx,
    resource: ResourceRow,
    kind: Trigger["kind"],
    decision: Decision,
    subject: string,
    before: MemberRow | undefined,
    actorId: string,
  ): Promise<Change> {
    if (!decision.ok) throw decision.refusal;
    const change = decision.change;
    await this.apply(tx, resource, change, subject, before, actorId);
    if (change.kind !== "none") {
      appendEvent(tx, {
        type: EVENT[kind],
        actor: actorId,
        resourceId: resource.id,
        userId: subject,
        data: "role" in change ? { role: change.role } : before ? { was: before.state } : undefined,
      });
    }
    return change;
  }

  /**
   * Applies a decided change inside the caller's write transaction. Its writes are not waited for
   * (`tx.write`): PostgreSQL receives them together with COMMIT, and a failure of any fails the
   * transaction. Only onMemberRemove policies read before they write.
   */
  async apply(
    tx: Tx,
    resource: ResourceRow,
    change: Change,
    userId: string,
    before: MemberRow | undefined,
    actorId: string,
  ): Promise<void> {
    const now = Date.now();
    switch (change.kind) {
      case "add":
        this.store.insertMember(tx, {
          resourceId: resource.id,
          userId,
          appId: resource.appId,
          role: change.role,
          state: change.state,
          invitedBy: change.state === "invited" ? actorId : null,
          createdAt: now,
          updatedAt: now,
        });
        if (change.state === "active") this.becameActive(tx, resource, userId);
        return;
      case "activate":
        this.store.updateMember(tx, resource.id, userId, change.role, "active", now);
        this.becameActive(tx, resource, userId);
        return;
      case "setRole":
        this.store.updateMember(tx, resource.id, userId, change.role, "active", now);
        return;
      case "drop":
        this.store.deleteMember(tx, resource.id, userId);
        if (before?.state === "active") this.store.addToCount(tx, resource, -1);
        if (endsOfferTo(change, before) && (await this.store.offers.deleteTo(tx, resource.id, userId)))
          appendEvent(tx, {
            type: "ownership.invalidated",
            actor: actorId,
            resourceId: resource.id,
            userId,
            data: { reason: actorId === userId ? "left" : "removed" },
          });
        if (change.policies) await this.seam.applyMemberRemoval(tx, resource.appId, resource.id, userId, now);
        return;
      case "deleteResource":
        // Members, links and retained copies go with it (foreign keys ON DELETE CASCADE).
        this.store.deleteResource(tx, resource.id);
        return;
      case "offerOwnership":
        this.store.offers.put(tx, { resourceId: resource.id, userId, offeredBy: actorId, createdAt: now });
        return;
      case "takeOwnership":
        // One owner before and after: the previous owner steps down to admin in the same transaction.
        this.store.updateMember(tx, resource.id, resource.ownerId, "admin", "active", now);
        this.store.updateMember(tx, resource.id, userId, "owner", "active", now);
        this.store.setOwner(tx, resource.id, userId);
        this.store.offers.delete(tx, resource.id);
        return;
      case "endOffer":
        this.store.offers.delete(tx, resource.id);
        return;
      case "none":
        return;
    }
  }

  private becameActive(tx: Tx, resource: ResourceRow, userId: string): void {
    this.store.addToCount(tx, resource, 1);
    this.seam.restoreOnRejoin(tx, resource.id, userId);
  }

  /**
   * The data seam's check for a write: an active member may write (the returned role lets
   * the data service decide what that role may do); a non-member of a public resource joins at the
   * type's default role in this same transaction; members-only and pending callers are refused.
   * `write` runs inside the transaction after the check, so the write and its auto-join commit together.
   */
  authorizeWrite(
    resourceId: string,
    userId: string,
    write?: (tx: Tx, resource: ResourceRow) => Promise<void>,
  ): Promise<{ role: string; joined: boolean }> {
    return this.storage.transaction(async (tx) => {
      const [gone, resource, actor] = await Promise.all([
        this.deleted.guard(tx, [userId]),
        this.store.lockResource(resourceId, tx),
        this.store.getMembership(resourceId, userId, tx),
      ]);
      // The writer is the user the data service acts for: its own account.
      refuseDeleted(gone, userId);
      if (!resource) throw new Refusal("not_found");
      const decision = decide(this.facts(resource), { kind: "autoJoin" }, actor);
      if (!decision.ok) throw decision.refusal;
      const change = decision.change;
      if (change.kind === "add") {
        await this.apply(tx, resource, change, userId, undefined, userId);
        appendEvent(tx, {
          type: EVENT.autoJoin,
          actor: userId,
          resourceId,
          userId,
          data: { role: change.role },
        });
      }
      await write?.(tx, resource);
      return { role: change.kind === "add" ? change.role : actor!.role, joined: change.kind === "add" };
    });
  }

  /** An operator cancels a pending invite or request (no policies: nothing was contributed). */
  cancelPending(resourceId: string, userId: string, actor: string): Promise<boolean> {
    return this.storage.transaction(async (tx) => {
      const resource = await this.store.lockResource(resourceId, tx);
      const current = resource && (await this.store.getMembership(resourceId, userId, tx));
      if (!resource || !current || current.state === "active") return false;
      await this.apply(tx, resource, { kind: "drop", policies: false }, userId, current, actor);
      appendEvent(tx, {
        type: "member.cancelled",
        actor,
        resourceId,
        userId,
        data: { was: current.state },
      });
      return true;
    });
  }

  /** Consent's side effect: the subject joins the app's `_app` resource at its default role (idempotent). */
  joinAppResource(appId: string, userId: string, options?: TransactionOptions): Promise<boolean> {
    return this.storage.transaction(async (tx) => {
      if (await this.deleted.guard(tx, [userId])) return false;
      const found = await this.store.findStatic(appId, "_app", "_app", tx);
      const resource = found && (await this.store.lockResource(found.id, tx));
      if (!resource) return false;
      const current = await this.store.getMembership(resource.id, userId, tx);
      if (current?.state === "active") return false;
      const role = this.typeOf(appId, "_app").defaultRole;
      // A pending invite keeps the role an admin offered; a self-made request is not granted its role.
      const change: Change = current
        ? { kind: "activate", role: current.state === "invited" ? current.role : role }
        : { kind: "add", state: "active", role };
      await this.apply(tx, resource, change, userId, current, userId);
      appendEvent(tx, {
        type: "member.joined",
        actor: userId,
        resourceId: resource.id,
        userId,
        data: { via: "consent" },
      });
      return true;
    }, options);
  }
}
