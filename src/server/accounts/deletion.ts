/**
 * Account deletion: `DELETE /admin/v1/users/:id` and `DELETE /v1/me`. One write transaction, holding
 * the user's lock exclusively (every membership change of that user holds it shared, so it waits, then
 * finds the user deleted: see pseudonym.ts) and each touched resource's row lock, does everything at once:
 *
 * - each shared table's onOwnerDelete policy on the user's linked rows, in every resource (data seam);
 * - each resource the user owns passes to its successor (rules.ts), or is deleted with its cascade;
 * - every membership, pending invite and request of the user, and every pending invite the user sent,
 *   ends (member counts move with them); pending ownership offers to or from the user end, and so do
 *   the user's counts of the current minute's budget (budget-windows.ts);
 * - every session of the user ends (reason `deleted`);
 * - the credit ledger, the audit events (subject, actor, and ids inside their data), kept copies and
 *   accepted invites name the pseudonym instead of the id; a `user.deleted` event and a `deleted_users`
 *   row keep the report, so a second delete is a no-op that answers the same report.
 *
 * Once committed, every credential of the user is refused on every process (DeletedUsers.isDeleted, asked
 * at every resolution, a cached bearer token's included), and so is a new sign-in of the same subject.
 * After the commit, never holding up the answer and never failing it: the sessions' refresh tokens are
 * revoked at the provider, the user's cached bearer checks are dropped on every process (each process
 * then asks the provider about such a token again, and still answers 403 for it: principal.ts), and the
 * Kratos identity is deleted when KRATOS_ADMIN_URL is set. Session
 * rows keep the user id until the retention purge (7 days), so a browser still holding the cookie is
 * told why its session ended.
 */
import { forgetUserShares } from "../apps/budget-windows.ts";
import { countSessionsOf } from "../auth/session-reads.ts";
import type { SessionRow, SessionStore } from "../auth/session-store.ts";
import type { SessionService } from "../auth/sessions.ts";
import { countCreditsOf, renameLedgerUser } from "../credits/ledger.ts";
import type { DataSeam } from "../data/seam.ts";
import type { Storage, Tx } from "../db/sql.ts";
import { Refusal } from "../domain/refusal.ts";
import { appendEvent, countEventsAbout, renameEventUser } from "../events/log.ts";
import type { KratosAdmin } from "../idp/kratos-admin.ts";
import type { SubjectLogouts } from "../idp/subject-logouts.ts";
import type { Logger } from "../lib/log.ts";
import { countLinkRowsOf } from "../resources/link-rows.ts";
import type { MembershipService } from "../resources/service.ts";
import type { ResourceRow } from "../resources/store.ts";
import {
  membershipsOfUser,
  pendingInvitesBy,
  resourcesOwnedBy,
  successionCandidates,
} from "../resources/user-rows.ts";
import type { DeletionReport } from "./model.ts";
import { DeletedUsers } from "./pseudonym.ts";
import { successorOf } from "./rules.ts";

export interface AccountDeletionParts {
  storage: Storage;
  membership: MembershipService;
  seam: DataSeam;
  sessionStore: SessionStore;
  sessions: SessionService;
  kratos: KratosAdmin;
  logouts: Pick<SubjectLogouts, "announce">;
  log: Logger;
}

/** Who asked: an operator (or the app's backend) on the admin API, or the user. */
export type DeletionActor = "admin" | "self";

type Stored = Omit<DeletionReport, "userId" | "deletedNow">;

export class AccountDeletion {
  private readonly followUps = new Set<Promise<void>>();

  constructor(private readonly parts: AccountDeletionParts) {}

  /** Deletes the account (idempotent); 404 `not_found` when this service holds nothing about the user. */
  async deleteUser(userId: string, actor: DeletionActor): Promise<DeletionReport> {
    const { report, ended } = await this.parts.storage.transaction((tx) =>
      this.inTransaction(tx, userId, actor),
    );
    this.parts.membership.deleted.noteDeleted(userId);
    if (report.deletedNow) {
      const followUp = this.followUp(userId, ended).finally(() => this.followUps.delete(followUp));
      this.followUps.add(followUp);
    }
    return report;
  }

  /** Resolves once every follow-up started so far (provider revocations, Kratos) has finished. */
  async idle(): Promise<void> {
    while (this.followUps.size > 0) await Promise.all([...this.followUps]);
  }

  private async inTransaction(
    tx: Tx,
    userId: string,
    actor: DeletionActor,
  ): Promise<{ report: DeletionReport; ended: SessionRow[] }> {
    const { membership, seam, sessionStore } = this.parts;
    const { store, deleted } = membership;
    // Exclusive: waits for every change of the user in flight (each holds the lock shared), and holds
    // the next ones off until this commits; they then find the user deleted.
    await tx.lock(DeletedUsers.lockKey(userId));
    const previous = await deleted.find(tx, userId);
    if (previous) return { report: { userId, deletedNow: false, ...JSON.parse(previous.report) }, ended: [] };
    const pseudonym = deleted.pseudonyms.of(userId);
    const by = actor === "self" ? pseudonym : "admin";
    const now = Date.now();
    const [memberships, owned, invitesSent, offers, other] = await Promise.all([
      membershipsOfUser(tx, userId),
      resourcesOwnedBy(tx, userId),
      pendingInvitesBy(tx, userId),
      store.offers.listInvolving(tx, userId),
      heldElsewhere(tx, userId),
    ]);
    const touched = [
      ...new Set(
        [...memberships, ...invitesSent, ...offers].map((r) => r.resourceId).concat(owned.map((r) => r.id)),
      ),
    ].sort();
    if (touched.length === 0 && other === 0) throw new Refusal("not_found", { what: "user_data" });
    // One order for every deletion: two of them never wait on each other's resource locks.
    const locked = await Promise.all(touched.map((id) => store.lockResource(id, tx)));
    const resources = new Map(locked.filter((r): r is ResourceRow => r !== undefined).map((r) => [r.id, r]));
    const stateIn = new Map(memberships.map((m) => [m.resourceId, m.state]));

    const transferred: Stored["resources"]["transferred"] = [];
    const gone = new Set<string>();
    for (const resource of resources.values()) {
      if (resource.ownerKind !== "user" || resource.ownerId !== userId) continue;
      const heir = successorOf(await successionCandidates(tx, resource.id), userId);
      if (heir === undefined) {
        gone.add(resource.id);
        continue;
      }
      store.updateMember(tx, resource.id, heir, "owner", "active", now);
      store.setOwner(tx, resource.id, heir);
      store.offers.delete(tx, resource.id);
      transferred.push({ resourceId: resource.id, to: heir });
      appendEvent(tx, {
        type: "ownership.transferred",
        actor: by,
        resourceId: resource.id,
        userId: heir,
        data: { from: pseudonym, reason: "owner_deleted" },
      });
    }

    // Memberships end (the owner rows of transferred resources too); deleted resources take theirs along.
    for (const [resourceId, state] of stateIn) {
      const resource = resources.get(resourceId);
      if (!resource || gone.has(resourceId)) continue;
      store.deleteMember(tx, resourceId, userId);
      if (state === "active") store.addToCount(tx, resource, -1);
      appendEvent(tx, {
        type: "member.deleted",
        actor: by,
        resourceId,
        userId: pseudonym,
        data: { was: state },
      });
    }
    for (const invite of invitesSent) {
      if (gone.has(invite.resourceId)) continue;
      store.deleteMember(tx, invite.resourceId, invite.userId);
      appendEvent(tx, {
        type: "member.cancelled",
        actor: by,
        resourceId: invite.resourceId,
        userId: invite.userId,
        data: { was: "invited", reason: "inviter_deleted" },
      });
    }
    for (const offer of offers) {
      if (gone.has(offer.resourceId)) continue;
      appendEvent(tx, {
        type: "ownership.invalidated",
        actor: by,
        resourceId: offer.resourceId,
        userId: offer.userId === userId ? pseudonym : offer.userId,
        data: { reason: "deleted" },
      });
    }
    store.offers.deleteInvolving(tx, userId);
    forgetUserShares(tx, userId);

    const sharedTables = await seam.applyOwnerDeletion(tx, userId, pseudonym, gone, now);
    for (const resourceId of gone) {
      store.deleteResource(tx, resourceId);
      appendEvent(tx, {
        type: "resource.deleted",
        actor: by,
        resourceId,
        userId: pseudonym,
        data: { reason: "owner_deleted" },
      });
    }

    const ended = await sessionStore.endAllOf(tx, userId, "deleted", now);
    for (const row of ended)
      appendEvent(tx, {
        type: "session.ended",
        actor: by,
        userId: pseudonym,
        data: { sessionId: row.id, clientId: row.clientId, reason: "deleted" },
      });
    await this.pseudonymize(tx, userId, pseudonym);

    const stored: Stored = {
      pseudonym,
      deletedAt: new Date(now).toISOString(),
      resources: { transferred, deleted: [...gone].sort() },
      membershipsEnded: stateIn.size,
      invitesCancelled: invitesSent.filter((i) => !gone.has(i.resourceId)).length,
      offersEnded: new Set(offers.map((o) => o.resourceId)).size,
      sessionsEnded: ended.length,
      sharedTables,
    };
    deleted.record(tx, pseudonym, now, JSON.stringify(stored));
    appendEvent(tx, { type: "user.deleted", actor: by, userId: pseudonym, data: stored });
    return { report: { userId, deletedNow: true, ...stored }, ended };
  }

  /** What keeps a record of the user keeps the pseudonym instead: the ledger, the audit log, accepted invites. */
  private async pseudonymize(tx: Tx, userId: string, pseudonym: string): Promise<void> {
    renameLedgerUser(tx, userId, pseudonym);
    // Through the membership store: the rows it renames leave its cache once this commits.
    await this.parts.membership.store.renameInviter(tx, userId, pseudonym);
    renameEventUser(tx, userId, pseudonym);
  }

  /**
   * Best effort, after the commit: revoke the sessions' refresh tokens, then drop the user's cached
   * bearer checks on every process, then delete the Kratos identity.
   */
  private async followUp(userId: string, ended: SessionRow[]): Promise<void> {
    const { sessions, kratos, logouts, log } = this.parts;
    try {
      await Promise.all(ended.map((row) => sessions.revokeAtProvider(row)));
      await logouts.announce([userId]);
      const identity = await kratos.deleteIdentity(userId);
      if (identity.outcome === "failed")
        log("warn", "the Kratos identity of a deleted account was not deleted", { cause: identity.cause });
    } catch (error) {
      log("warn", "a deleted account's follow-up failed", { error: String(error) });
    }
  }
}

/** How many rows outside memberships, ownership and offers name the user (sessions, ledger, links, events). */
async function heldElsewhere(tx: Tx, userId: string): Promise<number> {
  const counts = await Promise.all([
    countSessionsOf(tx, userId),
    countCreditsOf(tx, userId),
    countLinkRowsOf(tx, userId),
    countEventsAbout(tx, userId),
  ]);
  return counts.reduce((sum, n) => sum + n, 0);
}
