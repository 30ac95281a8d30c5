/**
 * A user's own data export: everything this service holds about one user, as one JSON document,
 * streamed. Never a token: sessions give their times and end reason only (the refresh hashes, the
 * sealed refresh token and the cookie stay in the database), and no event payload carries one.
 *
 * `GET /v1/me/export` shows the caller's app only (a `scope`), as every /v1 route does: its sessions,
 * memberships, owned resources, invites, offers, links and retained copies, and its events (see
 * export-events.ts); the credit ledger is the user's own, whatever the app. A pending request on a
 * members-only resource shows its id and type only, as the caller's list of requests does: a requester
 * may not read its name. `GET /admin/v1/users/:id/export` (operators) shows every app.
 *
 * Each section is read by the user (indexes on the user's rows), the events a page at a time with a
 * turn of the event loop between pages, and the document is written as it is read: no statement reads
 * all of a long history, and no step holds the event loop for long.
 */
import { sessionsOfUser } from "../auth/session-reads.ts";
import { ledgerOf } from "../credits/ledger.ts";
import type { Storage } from "../db/sql.ts";
import { requesterSeesDetails } from "../resources/access.ts";
import {
  exportedInvites,
  exportedLinks,
  exportedMemberships,
  exportedOffersMade,
  exportedOffersReceived,
  exportedOwned,
  exportedRetained,
} from "../resources/user-rows.ts";
import { type ExportScope, exportEvents, parsed } from "./export-events.ts";
import type { UserExport } from "./model.ts";

export type { ExportScope };

const iso = (ms: number) => new Date(Number(ms)).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

type Row = Record<string, any>;
type Head = Omit<UserExport, "events">;

/** The export as a streamed JSON response; the sections are read before it is answered. */
export async function exportResponse(
  storage: Storage,
  userId: string,
  scope?: ExportScope,
): Promise<Response> {
  const { head, sessionClients } = await exportHead(storage, userId, scope);
  async function* text(): AsyncGenerator<string> {
    yield `${JSON.stringify(head).slice(0, -1)},"events":[`;
    let first = true;
    for await (const page of exportEvents(storage, userId, sessionClients, scope)) {
      if (page.length === 0) continue;
      yield `${first ? "" : ","}${page.map((event) => JSON.stringify(event)).join(",")}`;
      first = false;
    }
    yield "]}";
  }
  const chunks = text();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "application/json;charset=utf-8" } });
}

async function exportHead(
  storage: Storage,
  userId: string,
  scope: ExportScope | undefined,
): Promise<{ head: Head; sessionClients: Map<string, string> }> {
  const appId = scope?.appId;
  const [sessions, memberships, owned, invites, received, made, credits, links, retained] = await Promise.all(
    [
      sessionsOfUser(storage, userId),
      exportedMemberships(storage, userId, appId),
      exportedOwned(storage, userId, appId),
      exportedInvites(storage, userId, appId),
      exportedOffersReceived(storage, userId, appId),
      exportedOffersMade(storage, userId, appId),
      ledgerOf(storage, userId),
      exportedLinks(storage, userId, appId),
      exportedRetained(storage, userId, appId),
    ],
  );
  const sessionClients = new Map(sessions.map((s) => [s.id as string, s.clientId as string]));
  const micros = credits.reduce((sum, c) => sum + Number(c.amountMicros), 0);
  const head: Head = {
    userId,
    exportedAt: iso(Date.now()),
    sessions: sessions
      .filter((s) => !scope || scope.appOf(s.clientId) === scope.appId)
      .map((s) => ({
        id: s.id,
        clientId: s.clientId,
        createdAt: iso(s.createdAt),
        lastSeenAt: iso(s.lastSeenAt),
        expiresAt: iso(s.expiresAt),
        endedAt: isoOrNull(s.endedAt),
        endReason: s.endReason ?? null,
      })),
    memberships: memberships.map((m) => ({
      resourceId: m.resourceId,
      appId: m.appId,
      type: m.type,
      // A requester sees what any non-member may: a members-only resource's id and type, not its name.
      ...(m.state === "requested" && !requesterSeesDetails(m as { visibility: "members" | "public" })
        ? {}
        : { name: m.name }),
      role: m.role,
      state: m.state,
      invitedBy: m.invitedBy ?? null,
      since: iso(m.since),
    })),
    resourcesOwned: owned.map((r) => ({
      id: r.id,
      appId: r.appId,
      type: r.type,
      name: r.name,
      memberCount: Number(r.memberCount),
      createdAt: iso(r.createdAt),
    })),
    invitesSent: invites.map((i) => ({
      resourceId: i.resourceId,
      userId: i.userId,
      role: i.role,
      createdAt: iso(i.createdAt),
    })),
    ownershipOffers: {
      received: received.map((o) => ({
        resourceId: o.resourceId,
        offeredBy: o.offeredBy,
        createdAt: iso(o.createdAt),
      })),
      made: made.map((o) => ({ resourceId: o.resourceId, userId: o.userId, createdAt: iso(o.createdAt) })),
    },
    credits: {
      balanceUsd: micros / 1_000_000,
      entries: credits.map((c) => ({
        kind: c.kind,
        amountUsd: Number(c.amountMicros) / 1_000_000,
        createdAt: iso(c.createdAt),
      })),
    },
    links: groupLinks(links),
    retained: retained.map((r) => ({
      resourceId: r.resourceId,
      table: r.table,
      rowId: r.rowId,
      data: parsed(r.data),
      createdAt: iso(r.createdAt),
    })),
  };
  return { head, sessionClients };
}

/** Links per resource and shared table, in the order read. */
function groupLinks(links: Row[]): UserExport["links"] {
  const grouped = new Map<string, UserExport["links"][number]>();
  for (const link of links) {
    const key = `${link.resourceId}\n${link.table}`;
    let group = grouped.get(key);
    if (!group) {
      group = { resourceId: link.resourceId, table: link.table, rows: [] };
      grouped.set(key, group);
    }
    group.rows.push({
      rowId: link.rowId,
      hidden: Boolean(link.hidden),
      data: parsed(link.data),
      createdAt: iso(link.createdAt),
    });
  }
  return [...grouped.values()];
}
