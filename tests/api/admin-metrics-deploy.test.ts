/**
 * `GET /metrics` (Prometheus text: requests by route pattern and status, the latency histogram,
 * token cache, sessions) and `POST /admin/v1/apps/:id/deploy` against a real
 * stack with the development provider.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  CSRF,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token", "content-type": "application/json" };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let stack: Stack;
const cookies: Record<string, string> = {};
let accessToken = "";

function app(extra: Record<string, unknown> = {}) {
  return {
    id: "test",
    clients: [
      { clientId: CLIENT_ID, redirectUris: [stack.redirectUri], origins: ["http://127.0.0.1:5999"] },
      { clientId: SECRET_CLIENT_ID, redirectUris: [stack.redirectUri], clientSecret: CLIENT_SECRET },
    ],
    types: { team: {}, feed: { reserved: true } },
    ...extra,
  };
}
async function deploy(path: string, body: unknown) {
  const res = await fetch(`${stack.adminUrl}/admin/v1/apps/${path}/deploy`, {
    method: "POST",
    headers: ADMIN,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function admin<T = Record<string, unknown>>(path: string) {
  const res = await fetch(`${stack.adminUrl}${path}`, { headers: ADMIN });
  return (await res.json()) as T;
}
async function as(user: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${stack.url}${path}`, { ...init, headers: { cookie: cookies[user]!, ...CSRF } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Parses Prometheus text into `name{labels}` → value, plus the raw text. */
async function scrape(): Promise<{ text: string; values: Map<string, number>; contentType: string | null }> {
  const res = await fetch(`${stack.adminUrl}/metrics`, { headers: ADMIN });
  expect(res.status).toBe(200);
  const text = await res.text();
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    values.set(match[1]!, Number(match[2]));
  }
  return { text, values, contentType: res.headers.get("content-type") };
}
const requests = (method: string, route: string, status: number) =>
  `gateway_requests_total{method="${method}",route="${route}",status="${status}"}`;
const sumOf = (values: Map<string, number>, prefix: string) =>
  [...values].filter(([k]) => k.startsWith(prefix)).reduce((n, [, v]) => n + v, 0);

beforeAll(async () => {
  stack = await startStack();
  expect((await deploy("test", app())).status).toBe(200);
  for (const user of ["olivia", "bob"]) {
    const { browser, token } = await signIn(stack, user, new Browser());
    expect(token.status).toBe(200);
    cookies[user] = browser.cookieHeader(stack.url);
  }
  const resolved = await stack.running.gateway.sessions.resolve(cookies.olivia!);
  accessToken = resolved!.cookie.at;
}, 60_000);
afterAll(async () => {
  await stack.stop();
}, 30_000);

describe("GET /metrics", () => {
  test("counts the requests made, by method, route pattern (:id, never a raw id) and status", async () => {
    const before = await scrape();
    expect(before.contentType).toStartWith("text/plain");
    expect(before.contentType).toContain("version=0.0.4");

    const created = await as("olivia", "/v1/resources", {
      method: "POST",
      body: JSON.stringify({ type: "team", name: "Metered" }),
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    for (let i = 0; i < 3; i++) expect((await as("olivia", `/v1/resources/${id}`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await as("olivia", `/v1/resources/${id}/members`)).status).toBe(200);
    expect((await as("olivia", `/v1/resources/${Bun.randomUUIDv7()}`)).status).toBe(404);
    expect(
      (
        await as("olivia", `/v1/resources/${id}/invite`, {
          method: "POST",
          body: JSON.stringify({ userId: "bob" }),
        })
      ).status,
    ).toBe(200);
    expect((await fetch(`${stack.url}/v1/resources/${id}`)).status).toBe(401);
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
    const made = 1 + 3 + 2 + 1 + 1 + 1 + 1;

    const after = await scrape();
    const delta = (key: string) => (after.values.get(key) ?? 0) - (before.values.get(key) ?? 0);
    expect(delta(requests("POST", "/v1/resources", 200))).toBe(1);
    expect(delta(requests("GET", "/v1/resources/:id", 200))).toBe(3);
    expect(delta(requests("GET", "/v1/resources/:id", 404))).toBe(1);
    expect(delta(requests("GET", "/v1/resources/:id", 401))).toBe(1);
    expect(delta(requests("GET", "/v1/resources/:id/members", 200))).toBe(2);
    expect(delta(requests("POST", "/v1/resources/:id/invite", 200))).toBe(1);
    expect(delta(requests("GET", "/healthz", 200))).toBe(1);
    expect(after.text).not.toContain(id);
    expect(after.text).not.toMatch(UUID);
    // Every sample's labels are well-formed.
    for (const key of after.values.keys()) {
      if (key.startsWith("gateway_requests_total"))
        expect(key).toMatch(/^gateway_requests_total\{method="[A-Z]+",route="[^"]+",status="\d{3}"\}$/);
    }

    // The histogram: cumulative buckets ending in +Inf = _count = every request counted.
    expect(after.text).toContain("# TYPE gateway_requests_total counter");
    expect(after.text).toContain("# TYPE gateway_request_duration_seconds histogram");
    const buckets = [...after.values].filter(([k]) =>
      k.startsWith("gateway_request_duration_seconds_bucket"),
    );
    expect(buckets.length).toBeGreaterThan(5);
    const les = buckets.map(([k]) => /le="([^"]+)"/.exec(k)![1]!);
    expect(les[les.length - 1]).toBe("+Inf");
    const bounds = les.slice(0, -1).map(Number);
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
    const counts = buckets.map(([, v]) => v);
    for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThanOrEqual(counts[i - 1]!);
    const count = after.values.get("gateway_request_duration_seconds_count")!;
    expect(counts[counts.length - 1]).toBe(count);
    expect(count).toBe(sumOf(after.values, "gateway_requests_total{"));
    // The admin listener is instrumented too: the first scrape itself is counted in the second.
    expect(count - before.values.get("gateway_request_duration_seconds_count")!).toBe(made + 1);
    expect(after.values.get("gateway_request_duration_seconds_sum")!).toBeGreaterThan(0);
  });

  test("token cache hits and misses, sessions active and the write queue depth", async () => {
    const before = await scrape();
    for (const name of [
      "gateway_token_cache_hits_total",
      "gateway_token_cache_misses_total",
      "gateway_sessions_active",
      "gateway_write_queue_depth",
    ]) {
      expect(before.values.has(name)).toBe(true);
    }
    expect(before.text).toContain("# TYPE gateway_token_cache_hits_total counter");
    expect(before.text).toContain("# TYPE gateway_sessions_active gauge");
    expect(before.values.get("gateway_sessions_active")).toBe(2);

    for (let i = 0; i < 3; i++) {
      const me = await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(me.status).toBe(200);
    }
    const after = await scrape();
    const misses =
      after.values.get("gateway_token_cache_misses_total")! -
      before.values.get("gateway_token_cache_misses_total")!;
    const hits =
      after.values.get("gateway_token_cache_hits_total")! -
      before.values.get("gateway_token_cache_hits_total")!;
    expect(misses + hits).toBe(3);
    expect(hits).toBeGreaterThanOrEqual(2);
    const overview = await admin<{
      tokenCache: { hits: number; misses: number };
      sessions: { active: number };
    }>("/admin/v1/overview");
    expect(overview.tokenCache).toEqual({
      hits: after.values.get("gateway_token_cache_hits_total")!,
      misses: after.values.get("gateway_token_cache_misses_total")!,
    });

    const { browser } = await signIn(stack, "carol", new Browser());
    const carol = await stack.running.gateway.sessions.resolve(browser.cookieHeader(stack.url));
    expect((await scrape()).values.get("gateway_sessions_active")).toBe(3);
    const revoked = await fetch(`${stack.adminUrl}/admin/v1/sessions/${carol!.row.id}`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(revoked.status).toBe(200);
    const last = await scrape();
    expect(last.values.get("gateway_sessions_active")).toBe(2);
    expect(last.values.get("gateway_sessions_active")).toBe(
      (await admin<{ sessions: { active: number } }>("/admin/v1/overview")).sessions.active,
    );
  });

  test("unmatched paths do not mint a label per path (bounded cardinality, no raw ids)", async () => {
    const before = await scrape();
    const ids = Array.from({ length: 5 }, () => Bun.randomUUIDv7());
    for (const id of ids) expect((await fetch(`${stack.url}/v1/things/${id}`)).status).toBe(404);
    const after = await scrape();
    for (const id of ids) expect(after.text).not.toContain(id);
    const labels = (m: Map<string, number>) =>
      [...m.keys()].filter((k) => k.startsWith("gateway_requests_total{"));
    expect(labels(after.values).length - labels(before.values).length).toBeLessThanOrEqual(1);
  });
});

describe("POST /admin/v1/apps/:id/deploy", () => {
  const feed = { type: "feed", slug: "global", name: "Global feed", visibility: "discoverable" };
  const staticFeed = () => as("olivia", "/v1/resources/static?type=feed&slug=global");
  const lastEvent = async () => stack.running.gateway.queries.lastEventId();

  test("a changed static is reconciled; the same JSON again returns the same deployment and changes nothing", async () => {
    expect((await staticFeed()).status).toBe(404);
    const body = app({ statics: [feed] });
    const first = await deploy("test", body);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(["deployment", "ok"]);
    expect(first.body.ok).toBe(true);
    const deployment = first.body.deployment as { id: number; appId: string; createdAt: string };
    expect(Object.keys(deployment).sort()).toEqual(["appId", "createdAt", "id"]);
    expect(deployment).toEqual({
      id: expect.any(Number),
      appId: "test",
      createdAt: expect.stringMatching(ISO),
    });

    const shown = await staticFeed();
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      type: "feed",
      name: "Global feed",
      visibility: "public",
      discoverable: true,
    });
    const staticId = shown.body.id as string;
    const listed = await admin<{ resources: Array<{ id: string; appId: string }> }>(
      "/admin/v1/resources?type=feed",
    );
    expect(listed.resources.map((r) => [r.id, r.appId])).toEqual([[staticId, "test"]]);

    // Members are never deleted by a deploy.
    expect((await as("bob", `/v1/resources/${staticId}/join`, { method: "POST" })).status).toBe(200);
    const events = await lastEvent();
    const resources = (await admin<{ resources: number }>("/admin/v1/overview")).resources;

    const again = await deploy("test", body);
    expect(again).toEqual(first);
    expect(await lastEvent()).toBe(events);
    expect((await admin<{ resources: number }>("/admin/v1/overview")).resources).toBe(resources);
    expect(shown.body.memberCount).toBe(0);
    expect((await staticFeed()).body).toEqual({ ...shown.body, memberCount: 1 }); // bob, nothing else

    // A rename: a new deployment, the same resource renamed, its member kept.
    const renamed = await deploy("test", app({ statics: [{ ...feed, name: "Everyone" }] }));
    expect(renamed.status).toBe(200);
    const next = renamed.body.deployment as { id: number };
    expect(next.id).toBeGreaterThan(deployment.id);
    const now = await staticFeed();
    expect(now.body).toMatchObject({ id: staticId, name: "Everyone" });
    const roster = await admin<{ members: Array<{ userId: string; state: string }> }>(
      `/admin/v1/resources/${staticId}/members`,
    );
    expect(roster.members.map((m) => [m.userId, m.state])).toEqual([["bob", "active"]]);
    const types = (await sql(stack.running.gateway.storage).all(
      "SELECT type FROM events WHERE id > ? ORDER BY id",
      events,
    )) as Array<{ type: string }>;
    expect(types.map((t) => t.type)).toEqual(["app.deployed", "resource.updated"]);
  });

  test("a body whose id differs from the path is 400 and deploys nothing; so is an invalid body", async () => {
    const events = await lastEvent();
    const mismatch = await deploy("test", { ...app(), id: "elsewhere" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ code: "invalid_request", error: expect.any(String) });
    const other = await deploy("elsewhere", app());
    expect(other.status).toBe(400);
    expect(other.body.code).toBe("invalid_request");
    const badVisibility = await deploy("test", app({ statics: [{ ...feed, visibility: "secret" }] }));
    expect(badVisibility.status).toBe(400);
    expect((await deploy("test", "{nope")).body.code).toBe("invalid_json");
    expect(await lastEvent()).toBe(events);
    const apps = await admin<{ resources: Array<{ appId: string }> }>("/admin/v1/resources?type=_app");
    expect(apps.resources.map((r) => r.appId)).toEqual(["test"]);
    // The app still works as deployed before.
    expect(
      (
        await as("olivia", "/v1/resources", {
          method: "POST",
          body: JSON.stringify({ type: "team", name: "Still" }),
        })
      ).status,
    ).toBe(200);
  });
});
