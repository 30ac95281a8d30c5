/**
 * The operators' read models: lists for the admin API and the TUI, keyset-paginated
 * newest first like browse. Plain prepared SQL over the same tables the services write.
 */
import type { Database } from "bun:sqlite";
import { encodeCursor } from "../resources/views.ts";

export type After = { createdAt: number; id: string } | undefined;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

function page<T extends { createdAt: number; id: string }>(rows: T[], limit: number): Page<T> {
  const shown = rows.slice(0, limit);
  return { rows: shown, nextCursor: rows.length > limit ? encodeCursor(shown[shown.length - 1]!) : null };
}

export class AdminQueries {
  constructor(private readonly sqlite: Database) {}

  overview() {
    const one = (sql: string) => (this.sqlite.query(sql).get() as { n: number }).n;
    return {
      users: one(
        "SELECT count(*) AS n FROM (SELECT user_id FROM sessions UNION SELECT user_id FROM credits)",
      ),
      resources: one("SELECT count(*) AS n FROM resources"),
      pending: {
        invited: one("SELECT count(*) AS n FROM members WHERE state = 'invited' AND state <> 'active'"),
        requested: one("SELECT count(*) AS n FROM members WHERE state = 'requested' AND state <> 'active'"),
      },
    };
  }

  sessions(filter: { userId?: string; clientId?: string }, limit: number, after?: After) {
    const rows = this.sqlite
      .query(
        `SELECT id, user_id AS userId, client_id AS clientId, created_at AS createdAt, last_seen_at AS lastSeenAt, expires_at AS expiresAt
         FROM sessions WHERE ended_at IS NULL AND expires_at > ?1 AND (?2 IS NULL OR user_id = ?2) AND (?3 IS NULL OR client_id = ?3)
         AND (?4 IS NULL OR (created_at, id) < (?4, ?5)) ORDER BY created_at DESC, id DESC LIMIT ?6`,
      )
      .all(
        Date.now(),
        filter.userId ?? null,
        filter.clientId ?? null,
        after?.createdAt ?? null,
        after?.id ?? null,
        limit + 1,
      ) as Array<{
      id: string;
      userId: string;
      clientId: string;
      createdAt: number;
      lastSeenAt: number;
      expiresAt: number;
    }>;
    const { rows: shown, nextCursor } = page(rows, limit);
    return {
      sessions: shown.map((s) => ({
        ...s,
        createdAt: iso(s.createdAt),
        lastSeenAt: iso(s.lastSeenAt),
        expiresAt: iso(s.expiresAt),
      })),
      nextCursor,
    };
  }

  pending(state: "invited" | "requested" | undefined, limit: number, after?: After) {
    const rows = this.sqlite
      .query(
        `SELECT m.resource_id || '/' || m.user_id AS id, m.resource_id AS resourceId, r.name AS resourceName, m.user_id AS userId,
           m.role, m.state, m.invited_by AS invitedBy, m.created_at AS createdAt
         FROM members m JOIN resources r ON r.id = m.resource_id
         WHERE m.state <> 'active' AND (?1 IS NULL OR m.state = ?1)
           AND (?2 IS NULL OR (m.created_at, m.resource_id || '/' || m.user_id) < (?2, ?3))
         ORDER BY m.created_at DESC, id DESC LIMIT ?4`,
      )
      .all(state ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1) as Array<{
      id: string;
      resourceId: string;
      resourceName: string;
      userId: string;
      role: string;
      state: string;
      invitedBy: string | null;
      createdAt: number;
    }>;
    const { rows: shown, nextCursor } = page(rows, limit);
    return { pending: shown.map(({ id: _id, ...p }) => ({ ...p, createdAt: iso(p.createdAt) })), nextCursor };
  }

  resources(filter: { type?: string; query?: string }, limit: number, after?: After) {
    const pattern = filter.query
      ? `%${filter.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      : null;
    const rows = this.sqlite
      .query(
        `SELECT id, app_id AS appId, type, name, visibility, discoverable, member_count AS memberCount, created_at AS createdAt
         FROM resources WHERE (?1 IS NULL OR type = ?1) AND (?2 IS NULL OR name_fold LIKE ?2 ESCAPE '\\')
         AND (?3 IS NULL OR (created_at, id) < (?3, ?4)) ORDER BY created_at DESC, id DESC LIMIT ?5`,
      )
      .all(filter.type ?? null, pattern, after?.createdAt ?? null, after?.id ?? null, limit + 1) as Array<{
      id: string;
      appId: string;
      type: string;
      name: string;
      visibility: string;
      discoverable: number;
      memberCount: number;
      createdAt: number;
    }>;
    const { rows: shown, nextCursor } = page(rows, limit);
    return {
      resources: shown.map((r) => ({
        ...r,
        discoverable: Boolean(r.discoverable),
        createdAt: iso(r.createdAt),
      })),
      nextCursor,
    };
  }

  roster(resourceId: string) {
    const rows = this.sqlite
      .query(
        "SELECT user_id AS userId, role, state, updated_at AS since FROM members WHERE resource_id = ? ORDER BY created_at, user_id",
      )
      .all(resourceId) as Array<{ userId: string; role: string; state: string; since: number }>;
    return rows.map((m) => ({ ...m, since: iso(m.since) }));
  }

  user(userId: string) {
    const memberships = this.sqlite
      .query(
        `SELECT m.resource_id AS resourceId, r.name AS resourceName, r.type, r.app_id AS appId, m.role, m.state
         FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.user_id = ? ORDER BY m.created_at`,
      )
      .all(userId);
    return { memberships };
  }

  /** Event rows after `afterId`, oldest first. */
  eventsAfter(afterId: number, limit = 500) {
    const rows = this.sqlite
      .query(
        "SELECT id, type, actor, resource_id AS resourceId, user_id AS userId, data, at FROM events WHERE id > ? ORDER BY id LIMIT ?",
      )
      .all(afterId, limit) as Array<{
      id: number;
      type: string;
      actor: string | null;
      resourceId: string | null;
      userId: string | null;
      data: string | null;
      at: number;
    }>;
    return rows.map((e) => ({ ...e, data: e.data === null ? null : JSON.parse(e.data), at: iso(e.at) }));
  }

  lastEventId(): number {
    return (this.sqlite.query("SELECT coalesce(max(id), 0) AS n FROM events").get() as { n: number }).n;
  }
}
