/**
 * A user's own data export (issue 16, item 7): everything this service holds about one user, as one
 * JSON document, read in one pass of plain queries. Never a token: sessions give their times and end
 * reason only (the refresh hashes, the sealed refresh token and the cookie stay in the database), and
 * no event payload carries one. The export reads events, links and retained copies by user, which no
 * index serves (they are keyed for the hot paths): acceptable for a rare, per-user request.
 */
import type { Storage } from "../db/sql.ts";
import type { UserExport } from "./model.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const parsed = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

type Row = Record<string, any>;

export async function exportUser(storage: Storage, userId: string): Promise<UserExport> {
  const q = (text: string) => storage.all<Row>(text, [userId]);
  const [sessions, memberships, owned, invites, received, made, credits, links, retained, events] =
    await Promise.all([
      q(`SELECT id, client_id AS "clientId", created_at AS "createdAt", last_seen_at AS "lastSeenAt",
           expires_at AS "expiresAt", ended_at AS "endedAt", end_reason AS "endReason"
         FROM sessions WHERE user_id = $1 ORDER BY created_at, id`),
      q(`SELECT m.resource_id AS "resourceId", r.app_id AS "appId", r.type, r.name, m.role, m.state,
           m.invited_by AS "invitedBy", m.updated_at AS since
         FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.user_id = $1
         ORDER BY m.created_at, m.resource_id`),
      q(`SELECT id, app_id AS "appId", type, name, member_count AS "memberCount", created_at AS "createdAt"
         FROM resources WHERE owner_kind = 'user' AND owner_id = $1 ORDER BY created_at, id`),
      q(`SELECT resource_id AS "resourceId", user_id AS "userId", role, created_at AS "createdAt"
         FROM members WHERE invited_by = $1 AND state = 'invited' ORDER BY created_at, resource_id, user_id`),
      q(`SELECT resource_id AS "resourceId", offered_by AS "offeredBy", created_at AS "createdAt"
         FROM ownership_offers WHERE user_id = $1 ORDER BY created_at, resource_id`),
      q(`SELECT o.resource_id AS "resourceId", o.user_id AS "userId", o.created_at AS "createdAt"
         FROM ownership_offers o JOIN resources r ON r.id = o.resource_id
         WHERE r.owner_kind = 'user' AND r.owner_id = $1 ORDER BY o.created_at, o.resource_id`),
      q(`SELECT kind, amount_micros AS "amountMicros", created_at AS "createdAt" FROM credits
         WHERE user_id = $1 ORDER BY id`),
      q(`SELECT resource_id AS "resourceId", table_name AS "table", row_id AS "rowId", hidden, data,
           created_at AS "createdAt"
         FROM resource_links WHERE contributor_id = $1 ORDER BY resource_id, table_name, created_at, row_id`),
      q(`SELECT resource_id AS "resourceId", table_name AS "table", row_id AS "rowId", data,
           created_at AS "createdAt" FROM retained_rows WHERE from_user_id = $1 ORDER BY id`),
      q(`SELECT id, type, actor, resource_id AS "resourceId", user_id AS "userId", data, at FROM events
         WHERE user_id = $1 OR actor = $1 ORDER BY id`),
    ]);
  const micros = credits.reduce((sum, c) => sum + Number(c.amountMicros), 0);
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
  return {
    userId,
    exportedAt: iso(Date.now()),
    sessions: sessions.map((s) => ({
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
      name: m.name,
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
    links: [...grouped.values()],
    retained: retained.map((r) => ({
      resourceId: r.resourceId,
      table: r.table,
      rowId: r.rowId,
      data: parsed(r.data),
      createdAt: iso(r.createdAt),
    })),
    events: events.map((e) => ({
      id: Number(e.id),
      type: e.type,
      actor: e.actor ?? null,
      resourceId: e.resourceId ?? null,
      userId: e.userId ?? null,
      data: parsed(e.data),
      at: iso(e.at),
    })),
  };
}
