/**
 * Shared kit for the /v1/resources API tests: an in-process gateway, per-user session headers (real
 * sealed cookies), JSON calls, and direct SQLite reads of `resources`, `members` and `events` so each
 * test can assert the stored state after a call (and that refusals changed nothing).
 */

import { expect } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { sql } from "./db.ts";
import { type InProcess, inProcess, sessionFor } from "./in-process.ts";

/** An apps file exercising ceilings, default roles, reserved types, statics, two apps and a budget-free app. */
export const TEST_APPS: AppsFile = {
  apps: [
    {
      id: "main",
      clients: [{ clientId: "web", redirectUris: ["http://localhost/cb"] }],
      types: {
        team: { visibility: "members" },
        project: { visibility: "members", defaultRole: "reader" },
        board: { visibility: "unlisted" },
        album: { visibility: "discoverable", defaultRole: "reader" },
        capped: { visibility: "members", grantCeiling: "writer" },
        club: { visibility: "unlisted", defaultRole: "reader", grantCeiling: "writer" },
        feed: { reserved: true },
      },
      statics: [
        { type: "feed", slug: "global", name: "Global feed", visibility: "discoverable" },
        { type: "feed", slug: "staff", name: "Staff room" },
      ],
    },
    {
      id: "other",
      clients: [{ clientId: "other-web", redirectUris: ["http://localhost/other-cb"] }],
      types: { team: {}, album: { visibility: "discoverable" } },
    },
  ],
};

export const VIEW_KEYS = ["discoverable", "id", "name", "type", "visibility"];
export const VIEW_KEYS_WITH_COUNT = [...VIEW_KEYS, "memberCount"].sort();
export const BROWSE_KEYS = ["createdAt", "id", "memberCount", "name", "type"];
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type Json = any;

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
  text: string;
}

export interface EventRow {
  type: string;
  actor: string | null;
  resource_id: string | null;
  user_id: string | null;
  data: string | null;
}

export interface MemberDbRow {
  resource_id: string;
  user_id: string;
  app_id: string;
  role: string;
  state: string;
  invited_by: string | null;
}

/** Asserts a refusal: status, `{error, code}` exactly, a human message, and nothing internal leaked. */
export function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  expect(Object.keys(reply.body).sort()).toEqual(["code", "error"]);
  expect(typeof reply.body.error).toBe("string");
  expect(reply.body.error.length).toBeGreaterThan(0);
  expect(reply.text).not.toMatch(/SQLITE|stack|at \/|TypeError|ReferenceError/);
}

/** Asserts that a view exposes only the documented fields (never owner, app, seq or slug). */
export function expectView(view: Json, withCount: boolean): void {
  expect(Object.keys(view).sort()).toEqual(withCount ? VIEW_KEYS_WITH_COUNT : VIEW_KEYS);
  const text = JSON.stringify(view);
  expect(text).not.toMatch(/owner|appId|app_id|"seq"|slug|app:/i);
}

export class Kit {
  private readonly heads = new Map<string, Record<string, string>>();

  constructor(readonly gw: InProcess) {}

  /** The database, through the engine the gateway runs on. */
  get db() {
    return sql(this.gw.gateway.storage);
  }

  /** Session headers (cookie + CSRF + JSON) for a user, made once per user and client. */
  async h(user: string, clientId = "web"): Promise<Record<string, string>> {
    const key = `${user}\u0000${clientId}`;
    let headers = this.heads.get(key);
    if (!headers) {
      headers = await sessionFor(this.gw, user, clientId);
      this.heads.set(key, headers);
    }
    return headers;
  }

  /** Makes the sessions up front (session rows write events; do it before a snapshot). */
  async users(...users: string[]): Promise<void> {
    for (const user of users) await this.h(user);
  }

  async raw(path: string, init: RequestInit = {}): Promise<Reply> {
    const res = await this.gw.handle(path, init);
    const text = await res.text();
    let body: Json;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body, headers: res.headers, text };
  }

  async call(
    user: string,
    method: string,
    path: string,
    body?: unknown,
    options: { clientId?: string; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers = { ...(await this.h(user, options.clientId)), ...options.headers };
    const init: RequestInit = { method, headers };
    if (options.rawBody !== undefined) init.body = options.rawBody;
    else if (body !== undefined) init.body = JSON.stringify(body);
    return this.raw(path, init);
  }

  get(user: string, path: string, clientId?: string) {
    return this.call(user, "GET", path, undefined, { clientId });
  }

  post(user: string, path: string, body?: unknown, clientId?: string) {
    return this.call(user, "POST", path, body, { clientId });
  }

  del(user: string, path: string, clientId?: string) {
    return this.call(user, "DELETE", path, undefined, { clientId });
  }

  /** Creates a resource and returns its view (asserting 200). */
  async create(user: string, type: string, name: string, visibility?: string, clientId?: string) {
    const reply = await this.post(
      user,
      "/v1/resources",
      visibility ? { type, name, visibility } : { type, name },
      clientId,
    );
    expect({ status: reply.status, body: reply.body }).toMatchObject({ status: 200 });
    return reply.body as {
      id: string;
      type: string;
      name: string;
      visibility: string;
      discoverable: boolean;
    };
  }

  /** Invites `user` and has them accept: an active member at `role`. */
  async addMember(owner: string, id: string, user: string, role?: string): Promise<void> {
    const invite = await this.post(
      owner,
      `/v1/resources/${id}/invite`,
      role ? { userId: user, role } : { userId: user },
    );
    expect(invite.status).toBe(200);
    const accept = await this.post(user, `/v1/resources/${id}/accept`);
    expect(accept.status).toBe(200);
  }

  /** The roster as the owner (or any active member) sees it, sorted by user id. */
  async roster(viewer: string, id: string): Promise<Array<{ userId: string; role: string; state: string }>> {
    const reply = await this.get(viewer, `/v1/resources/${id}/members`);
    expect(reply.status).toBe(200);
    return [...reply.body.members].sort((a: Json, b: Json) => a.userId.localeCompare(b.userId));
  }

  async member(resourceId: string, userId: string): Promise<MemberDbRow | null> {
    return (
      (await this.db.get<MemberDbRow>(
        "SELECT resource_id, user_id, app_id, role, state, invited_by FROM members WHERE resource_id = ? AND user_id = ?",
        resourceId,
        userId,
      )) ?? null
    );
  }

  members(resourceId: string): Promise<MemberDbRow[]> {
    return this.db.all<MemberDbRow>(
      "SELECT resource_id, user_id, app_id, role, state, invited_by FROM members WHERE resource_id = ? ORDER BY user_id",
      resourceId,
    );
  }

  resource(id: string): Promise<Json> {
    return this.db.get("SELECT * FROM resources WHERE id = ?", id);
  }

  async memberCount(id: string): Promise<number | undefined> {
    return (await this.db.get("SELECT member_count AS n FROM resources WHERE id = ?", id))?.n;
  }

  /** Event rows about a resource, oldest first (type, actor, resource_id, user_id, data). */
  events(resourceId: string): Promise<EventRow[]> {
    return this.db.all<EventRow>(
      "SELECT type, actor, resource_id, user_id, data FROM events WHERE resource_id = ? ORDER BY id",
      resourceId,
    );
  }

  async lastEvent(resourceId: string): Promise<EventRow | undefined> {
    return (await this.events(resourceId)).at(-1);
  }

  eventCount(): Promise<number> {
    return this.db.count("SELECT count(*) AS n FROM events");
  }

  async appResourceId(appId = "main"): Promise<string> {
    return (await this.db.get("SELECT id FROM resources WHERE app_id = ? AND type = '_app'", appId))!.id;
  }

  async staticId(type: string, slug: string, appId = "main"): Promise<string> {
    return (await this.db.get(
      "SELECT id FROM resources WHERE app_id = ? AND type = ? AND slug = ?",
      appId,
      type,
      slug,
    ))!.id;
  }

  /** The resource's pending ownership offer (user_id, offered_by), or null. */
  async offer(resourceId: string): Promise<{ user_id: string; offered_by: string } | null> {
    return this.db.get("SELECT user_id, offered_by FROM ownership_offers WHERE resource_id = ?", resourceId);
  }

  /** Row counts and a checksum of `resources`, `members`, `ownership_offers` and `events`: equal before and after a refusal. */
  async snapshot(): Promise<{ counts: Record<string, number>; hash: string }> {
    const dump = {
      resources: await this.db.all("SELECT * FROM resources ORDER BY seq"),
      members: await this.db.all("SELECT * FROM members ORDER BY resource_id, user_id"),
      offers: await this.db.all("SELECT * FROM ownership_offers ORDER BY resource_id"),
      // Signing a test user in writes `session.*` events; those are not resource state.
      events: await this.db.all("SELECT * FROM events WHERE type NOT LIKE 'session.%' ORDER BY id"),
    };
    const counts = {
      resources: dump.resources.length,
      members: dump.members.length,
      offers: dump.offers.length,
      events: dump.events.length,
    };
    const hash = new Bun.CryptoHasher("sha256").update(JSON.stringify(dump)).digest("hex");
    return { counts, hash };
  }
}

export async function makeKit(apps: AppsFile = TEST_APPS, env: Record<string, string> = {}): Promise<Kit> {
  return new Kit(await inProcess(env, apps));
}

/** Waits (at most ~3 s) until we are not within 3 s of a minute boundary, so a fixed-window budget is stable. */
export async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 57_000) await Bun.sleep(60_000 - intoMinute + 50);
}
