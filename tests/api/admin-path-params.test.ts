/**
 * Every admin path parameter is validated: a malformed percent-encoding (which arrives as no value at
 * all), an empty value or a control character is 400 invalid_request or 404, never "no filter". The
 * routes are enumerated from the admin app itself, so a new `:param` route is covered too.
 */
import { afterAll, expect, test } from "bun:test";
import { buildAdminApp } from "../../src/server/app.ts";
import { sql } from "../helpers/db.ts";
import { inProcess, sessionFor } from "../helpers/in-process.ts";

const gw = await inProcess({ ADMIN_TOKEN: "admin-token" });
afterAll(() => gw.gateway.close());
const auth = { authorization: "Bearer admin-token", "content-type": "application/json" };
await sessionFor(gw, "alice");
await sessionFor(gw, "bob");

const snapshot = async () =>
  Promise.all(
    ["sessions", "resources", "members", "events"].map((table) =>
      sql(gw.gateway.storage).count(`SELECT count(*) AS n FROM ${table}`),
    ),
  );

test("GET /admin/v1/users/%E0%A4%A (malformed encoding) is 400, not every user's sessions", async () => {
  const res = await gw.admin("/admin/v1/users/%E0%A4%A", { headers: auth });
  expect(res.status).toBe(400);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "error"]);
  expect(body.code).toBe("invalid_request");
  // A well-formed id still gets that user's sessions only.
  const alice = (await (await gw.admin("/admin/v1/users/alice", { headers: auth })).json()) as {
    sessions: Array<{ userId: string }>;
  };
  expect(alice.sessions.map((s) => s.userId)).toEqual(["alice"]);
});

const routes = buildAdminApp(gw.gateway)
  .routes.filter((route) => route.path.includes("/:"))
  .map((route) => ({ method: route.method, path: route.path }));

test("the admin routes with a path parameter are all enumerated", () => {
  expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
    "DELETE /admin/v1/pending/:resourceId/:userId",
    "DELETE /admin/v1/sessions/:id",
    "DELETE /admin/v1/users/:id",
    "DELETE /admin/v1/users/:id/sessions",
    "GET /admin/v1/resources/:id",
    "GET /admin/v1/resources/:id/members",
    "GET /admin/v1/users/:id",
    "GET /admin/v1/users/:id/export",
    "POST /admin/v1/apps/:id/deploy",
    "POST /admin/v1/resources/:id/remove",
    "POST /admin/v1/resources/:id/setRole",
  ]);
});

const BAD = [
  ["a malformed percent-encoding", "%E0%A4%A"],
  ["a lone %", "%"],
  ["an encoded invalid UTF-8 byte", "%FF"],
  ["an empty value", ""],
  ["a NUL", "%00"],
  ["a newline", "a%0Ab"],
  ["a C1 control", "a%C2%85b"],
] as Array<[string, string]>;

for (const { method, path } of routes) {
  for (const [label, bad] of BAD) {
    test(`${method} ${path} with ${label} is 400 invalid_request or 404, and changes nothing`, async () => {
      const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      for (const name of names) {
        const url = path.replace(/:(\w+)/g, (_, other) => (other === name ? bad : "x"));
        if (url === "/admin/v1/resources/") continue; // the list of resources itself, not an empty id
        const before = await snapshot();
        const res = await gw.admin(url, {
          method,
          headers: auth,
          body:
            method === "POST" ? JSON.stringify({ clients: [], userId: "alice", role: "reader" }) : undefined,
        });
        const text = await res.text();
        expect([400, 404]).toContain(res.status);
        const body = JSON.parse(text);
        expect(Object.keys(body).sort()).toEqual(["code", "error"]);
        expect(body.code).toBe(res.status === 400 ? "invalid_request" : "not_found");
        expect(await snapshot()).toEqual(before);
      }
    });
  }
}
