/**
 * The OpenAPI documents (`GET /openapi.json` on each listener) describe what the apps really serve:
 * every route Elysia has is an operation with its request schemas, a success answer and its `{error,
 * code}` errors; and real answers, success and refusals across resources, auth and admin, each
 * validate against the document's schema for their route and status. A new route, status or field
 * that the document does not describe fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildAdminApp, buildPublicApp } from "../../src/server/app.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { inProcess } from "../helpers/in-process.ts";
import {
  DocumentChecker,
  documentProblems,
  type Listener,
  type OpenApiDocument,
  type Recorded,
  Recorder,
} from "../helpers/openapi-check.ts";
import { awayFromMinuteEdge, Kit, TEST_APPS } from "../helpers/resources-kit.ts";

const TOKEN = "openapi-admin-token";
const ADMIN = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
/** TEST_APPS and an app with a budget of two calls a minute (for a real 429). */
const APPS: AppsFile = {
  apps: [
    ...TEST_APPS.apps,
    {
      id: "tight",
      clients: [{ clientId: "tight-web", redirectUris: ["http://localhost/tight"] }],
      budget: { requestsPerMinute: 2, userShare: 1 },
      types: { team: {} },
    },
  ],
};

let kit: Kit;
const recorder = new Recorder();
const docs = {} as Record<Listener, OpenApiDocument>;
const checkers = {} as Record<Listener, DocumentChecker>;

beforeAll(async () => {
  const gw = await inProcess({ ADMIN_TOKEN: TOKEN }, APPS);
  gw.handle = recorder.wrap("public", gw.handle);
  gw.admin = recorder.wrap("admin", gw.admin);
  kit = new Kit(gw);
  docs.public = await (await gw.handle("/openapi.json")).json();
  docs.admin = await (await gw.admin("/openapi.json", { headers: ADMIN })).json();
  checkers.public = new DocumentChecker(docs.public);
  checkers.admin = new DocumentChecker(docs.admin);
});
afterAll(() => kit.gw.gateway.close());

const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN) =>
  kit.gw.admin(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });

describe("every route is in its listener's document", () => {
  for (const listener of ["public", "admin"] as const) {
    test(`${listener}: the routes Elysia serves, with their request schemas, a success and their errors`, async () => {
      const app = (listener === "public" ? buildPublicApp : buildAdminApp)(kit.gw.gateway);
      const doc = await (
        await app.handle(new Request("http://localhost/openapi.json", { headers: ADMIN }))
      ).json();
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
      expect(documentProblems(doc)).toEqual([]);
      const served = new Set<string>();
      const problems: string[] = [];
      for (const route of app.routes) {
        const template = route.path.replace(/:([^/]+)/g, "{$1}");
        const method = route.method.toLowerCase();
        served.add(`${method} ${template}`);
        const op = doc.paths[template]?.[method];
        const where = `${route.method} ${route.path}`;
        if (!op) {
          problems.push(`${where}: not in the document`);
          continue;
        }
        const statuses = Object.keys(op.responses);
        if (!statuses.some((s) => /^[23]\d\d$/.test(s))) problems.push(`${where}: no success answer`);
        for (const status of ["413", "431", "500"])
          if (!statuses.includes(status)) problems.push(`${where}: ${status} not documented`);
        // Every JSON refusal is the shared `{error, code}`, or extends it (/readyz adds its checks); the
        // consent page also answers pages.
        for (const status of statuses.filter((s) => /^[45]/.test(s))) {
          const content = op.responses[status].content ?? {};
          const schema = content["application/json"]?.schema;
          const errorShaped =
            schema?.$ref === "#/components/schemas/Error" ||
            (schema?.properties?.error?.type === "string" && schema?.properties?.code !== undefined);
          if (schema ? !errorShaped : !content["text/html"])
            problems.push(`${where}: ${status} is not an Error`);
        }
        const hooks = route.hooks as { body?: unknown; query?: { properties: object }; response?: unknown };
        // Documented only: a response schema would make Elysia check and strip every answer.
        if (hooks.response !== undefined) problems.push(`${where}: has an Elysia response schema`);
        if (hooks.body && !op.requestBody?.content?.["application/json"]?.schema)
          problems.push(`${where}: its body schema is missing`);
        for (const name of Object.keys(hooks.query?.properties ?? {}))
          if (!op.parameters?.some((p: { in: string; name: string }) => p.in === "query" && p.name === name))
            problems.push(`${where}: query parameter ${name} is missing`);
        for (const match of route.path.matchAll(/:([^/]+)/g))
          if (
            !op.parameters?.some((p: { in: string; name: string }) => p.in === "path" && p.name === match[1])
          )
            problems.push(`${where}: path parameter ${match[1]} is missing`);
      }
      const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item as object).map((method) => `${method} ${path}`),
      );
      for (const operation of documented)
        if (!served.has(operation)) problems.push(`${operation}: documented but not served`);
      const ids = documented.map((key) => {
        const [method, path] = key.split(" ");
        return doc.paths[path!][method!].operationId;
      });
      expect(new Set(ids).size).toBe(ids.length);
      expect(problems).toEqual([]);
      expect(documented.length).toBe(app.routes.length);
    });
  }

  test("the admin document needs the admin token, like every admin call", async () => {
    const res = await admin("GET", "/openapi.json", undefined, {});
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "unauthenticated" });
  });
});

describe("real answers validate against the documents", () => {
  test("resources, auth and admin: successes and refusals", async () => {
    await kit.users("alice", "bob", "carol");
    // Resources: create, read, list, browse, statics, membership changes.
    const team = await kit.create("alice", "team", "Team");
    const album = await kit.create("alice", "album", "Album", "discoverable");
    await kit.post("alice", "/v1/resources", { type: "nope", name: "x" });
    await kit.post("alice", "/v1/resources", { type: "feed", name: "x" });
    await kit.post("alice", "/v1/resources", { type: "team" });
    await kit.call("alice", "POST", "/v1/resources", undefined, { rawBody: "{not json" });
    await kit.call("alice", "POST", "/v1/resources", undefined, {
      rawBody: "type=team",
      headers: { "content-type": "text/plain" },
    });
    await kit.call("alice", "GET", "/v1/resources", undefined, {
      headers: { "x-padding": "x".repeat(13_000) },
    });
    await kit.call("alice", "POST", "/v1/resources", undefined, {
      rawBody: JSON.stringify({ name: "x".repeat(70_000) }),
    });
    await kit.get("alice", `/v1/resources/${team.id}`);
    await kit.get("alice", "/v1/resources/no-such-id");
    await kit.get("alice", "/v1/resources");
    await kit.get("alice", "/v1/resources?state=invited");
    await kit.get("alice", "/v1/resources?state=nope");
    await kit.get("alice", "/v1/resources/browse?limit=1");
    await kit.get("alice", "/v1/resources/browse?limit=abc");
    await kit.get("alice", "/v1/resources/static?type=feed&slug=global");
    await kit.get("alice", "/v1/resources/static?type=feed&slug=nowhere");
    await kit.post("alice", `/v1/resources/${team.id}/invite`, { userId: "bob", role: "writer" });
    await kit.post("alice", `/v1/resources/${team.id}/invite`, { userId: "bob" });
    await kit.post("bob", `/v1/resources/${team.id}/accept`);
    await kit.post("carol", `/v1/resources/${team.id}/request`);
    await kit.get("carol", "/v1/resources?state=requested");
    await kit.post("alice", `/v1/resources/${team.id}/reject`, { userId: "carol" });
    await kit.post("carol", `/v1/resources/${team.id}/request`, { role: "reader" });
    await kit.post("alice", `/v1/resources/${team.id}/accept`, { userId: "carol" });
    await kit.post("alice", `/v1/resources/${team.id}/setRole`, { userId: "carol", role: "writer" });
    await kit.post("bob", `/v1/resources/${team.id}/setRole`, { userId: "carol", role: "admin" });
    await kit.get("bob", `/v1/resources/${team.id}/members`);
    // Ownership: an offer declined, cancelled, refused and accepted (on a team of its own).
    const handover = await kit.create("alice", "team", "Handover");
    await kit.addMember("alice", handover.id, "bob");
    const own = (user: string, action: string, body?: unknown) =>
      kit.post(user, `/v1/resources/${handover.id}/${action}`, body);
    await own("alice", "transferOwnership", { userId: "bob" });
    await own("bob", "declineOwnership");
    await own("bob", "declineOwnership");
    await own("alice", "transferOwnership", { userId: "bob" });
    await own("alice", "cancelOwnership");
    await own("alice", "cancelOwnership");
    await own("alice", "transferOwnership", { userId: "nobody" });
    await own("alice", "transferOwnership", { userId: 5 });
    await own("bob", "transferOwnership", { userId: "alice" });
    await own("bob", "acceptOwnership");
    await own("alice", "transferOwnership", { userId: "bob" });
    await own("bob", "acceptOwnership");
    await own("alice", "acceptOwnership");
    await kit.post("alice", `/v1/resources/${team.id}/remove`, { userId: "carol" });
    await kit.post("bob", `/v1/resources/${team.id}/leave`);
    await kit.post("alice", `/v1/resources/${team.id}/leave`);
    await kit.post("bob", `/v1/resources/${album.id}/join`);
    await kit.post("bob", `/v1/resources/${album.id}/join`);
    await kit.get("bob", `/v1/resources/${await kit.appResourceId()}/members`);
    await kit.del("bob", `/v1/resources/${album.id}`);
    await kit.del("alice", `/v1/resources/${album.id}`);
    await kit.call("alice", "POST", `/v1/resources/${team.id}/join`, undefined, {
      headers: { "x-service-csrf": "" },
    });
    await kit.raw("/v1/resources");
    await kit.raw("/v1/me", { headers: { authorization: "Bearer not-known" } });
    await kit.get("alice", "/v1/me");
    await kit.get("alice", "/v1/me/export");
    await kit.raw("/v1/me/export");
    await kit.h("dave", "tight-web");
    await awayFromMinuteEdge();
    for (let i = 0; i < 3; i++) await kit.get("dave", "/v1/resources", "tight-web");
    // Auth without a provider configured, the consent page, health and the pages.
    for (const path of [
      "/healthz",
      "/readyz",
      "/",
      "/landing.js",
      "/auth/session",
      "/auth/consent",
      "/openapi.json",
    ])
      await kit.raw(path);
    await kit.get("alice", "/auth/session");
    await kit.raw("/auth/authorize?response_type=code");
    await kit.raw("/auth/consent?consent_challenge=abc");
    await kit.raw("/auth/consent-request?challenge=abc");
    await kit.raw("/auth/kratos/flow?type=nope&id=1");
    await kit.raw("/auth/kratos/flow?type=login&id=1");
    await kit.post("alice", "/auth/token", {
      code: "c",
      code_verifier: "v",
      redirect_uri: "http://localhost/cb",
      client_id: "web",
    });
    await kit.post("alice", "/auth/refresh");
    await kit.post("alice", "/auth/consent/accept", { challenge: "abc", subject: "alice", grant_scope: [] });
    await kit.post("alice", "/auth/consent/reject", {});
    await kit.raw("/auth/logout", { method: "POST" });
    await kit.post("alice", "/auth/logout");
    // Admin: reads, an operator's changes, the data seam, deploys, the stream's headers, metrics.
    const other = await kit.create("carol", "team", "Carol's");
    await kit.post("carol", `/v1/resources/${other.id}/invite`, { userId: "erin" });
    for (const path of [
      "/admin/v1/overview",
      "/admin/v1/sessions?limit=2",
      "/admin/v1/sessions?limit=x",
      "/admin/v1/users/bob",
      "/admin/v1/users/bob/export",
      "/admin/v1/users/b%00b/export",
      "/admin/v1/pending",
      "/admin/v1/pending?state=nope",
      "/admin/v1/resources?type=team",
      `/admin/v1/resources/${other.id}/members`,
      "/admin/v1/resources/no-such-id/members",
      "/metrics",
      `/admin/v1/data/links?resourceId=${other.id}`,
      "/admin/v1/data/links?resourceId=no-such-id",
      `/admin/v1/resources/${other.id}`,
      "/admin/v1/resources/no-such-id",
      "/admin/v1/audit?limit=3",
      "/admin/v1/audit?userId=bob&type=member.invited",
      "/admin/v1/audit?cursor=nonsense",
    ])
      await admin("GET", path);
    const stream = await admin("GET", "/admin/v1/events");
    await stream.body?.cancel();
    await admin("DELETE", `/admin/v1/pending/${other.id}/erin`);
    await admin("DELETE", `/admin/v1/pending/${other.id}/erin`);
    const sessionId = ((await (await admin("GET", "/admin/v1/sessions?userId=bob")).json()) as Json)
      .sessions[0].id;
    await admin("DELETE", `/admin/v1/sessions/${sessionId}`);
    await admin("DELETE", `/admin/v1/sessions/${sessionId}`);
    await admin("POST", "/admin/v1/data/authorize-write", { resourceId: other.id, userId: "carol" });
    await admin("POST", "/admin/v1/data/authorize-write", { resourceId: other.id, userId: "mallory" });
    await admin("POST", "/admin/v1/data/authorize-write", { resourceId: "no-such-id", userId: "carol" });
    const link = { resourceId: other.id, table: "notes", rowId: "n1", data: { text: "hi" } };
    await admin("POST", "/admin/v1/data/links", { ...link, userId: "carol" });
    await kit.addMember("carol", other.id, "frank");
    await admin("POST", "/admin/v1/data/links", { ...link, userId: "frank" });
    await admin("GET", `/admin/v1/data/links?resourceId=${other.id}`);
    const extra = { id: "extra", clients: [{ clientId: "extra-web", redirectUris: ["http://localhost/x"] }] };
    await admin("POST", "/admin/v1/apps/extra/deploy", extra);
    await admin("POST", "/admin/v1/apps/elsewhere/deploy", extra);
    // The operator's roster actions and revoke-all.
    await admin("POST", `/admin/v1/resources/${other.id}/setRole`, { userId: "frank", role: "reader" });
    await admin("POST", `/admin/v1/resources/${other.id}/setRole`, { userId: "frank", role: "owner" });
    await admin("POST", `/admin/v1/resources/${other.id}/setRole`, { userId: "carol", role: "reader" });
    await admin("POST", "/admin/v1/resources/no-such-id/setRole", { userId: "frank", role: "reader" });
    await admin("POST", `/admin/v1/resources/${other.id}/remove`, { userId: "frank" });
    await admin("POST", `/admin/v1/resources/${other.id}/remove`, { userId: 5 });
    await admin("DELETE", "/admin/v1/users/alice/sessions");
    await admin("GET", "/admin/v1/overview", undefined, { authorization: "Bearer wrong" });

    const recorded = await recorder.all();
    expect(problemsOf(recorded)).toEqual([]);
    // The drive reached what it meant to: these statuses were all answered and checked.
    const statuses = new Set(recorded.map((r) => `${r.listener} ${r.status}`));
    for (const status of [200, 400, 401, 403, 404, 409, 413, 415, 429, 431, 503])
      expect(statuses).toContain(`public ${status}`);
    for (const status of [200, 400, 401, 403, 404, 409]) expect(statuses).toContain(`admin ${status}`);
  });

  test("the admin API disabled: 503 admin_disabled, documented on every admin route", async () => {
    const disabled = await inProcess({}, APPS);
    try {
      const local = new Recorder();
      const res = local.keep(
        "admin",
        "GET",
        "/admin/v1/overview",
        await disabled.admin("/admin/v1/overview"),
      );
      expect(res.status).toBe(503);
      expect(checkers.admin.problems(await local.all())).toEqual([]);
    } finally {
      disabled.gateway.close();
    }
  });

  test("the check fails for an answer the document does not describe", async () => {
    const recorded = await recorder.all();
    const tampered = structuredClone(docs.public);
    // The operation answers the named component: the check reads it through the $ref.
    expect(
      tampered.paths["/v1/resources/{id}"].get.responses["200"].content["application/json"].schema,
    ).toEqual({
      $ref: "#/components/schemas/ResourceView",
    });
    delete tampered.components.schemas.ResourceView.properties.memberCount;
    tampered.paths["/v1/resources/{id}/invite"].post.responses["409"] = undefined;
    tampered.paths["/v1/resources/{id}/members"].get.responses["200"].content["application/json"].schema = {
      type: "object",
      required: ["members"],
      properties: { members: { type: "array", items: { type: "string" } } },
    };
    const problems = new DocumentChecker(tampered).problems(recorded.filter((r) => r.listener === "public"));
    expect(
      problems.some((p) => p.includes(`GET /v1/resources/`) && p.includes("additional properties")),
    ).toBe(true);
    expect(problems.some((p) => p.includes("/invite → 409: status not documented"))).toBe(true);
    expect(problems.some((p) => p.includes("/members → 200") && p.includes("must be string"))).toBe(true);
  });
});

type Json = any;

function problemsOf(recorded: Recorded[]): string[] {
  return recorded.flatMap((r) => checkers[r.listener].problem(r) ?? []);
}
