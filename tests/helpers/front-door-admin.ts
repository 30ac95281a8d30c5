/**
 * The front-door scenario, part three: the wire (requests written by hand: Host headers of 1–3
 * characters, an IPv6 literal, an empty or missing one, absolute-form targets, `//` paths, a header
 * block or a body over the limits), an app's budget running out, and the admin listener's routes with
 * their refusals (no or a wrong token, bad parameters, unknown ids), the event stream and the metrics.
 */

import { ADMIN, type Door } from "./front-door.ts";
import { bound } from "./front-door-auth.ts";
import { awayFromMinuteEdge } from "./resources-kit.ts";
import { CSRF, OTHER_CLIENT_ID, OTHER_ORIGIN, type Stack } from "./stack.ts";

const UNKNOWN = "0190aaaa-0000-7000-8000-000000000000";

export async function wire(door: Door, album: string) {
  const { raw } = bound(door);
  const port = new URL(door.stack.url).port;
  const bearer = door.users.bob!.bearer.authorization;
  for (const host of ["x", "ab:1", "abc", "[::1]", `127.0.0.1:${port}`, ""]) {
    await raw(`Host "${host}": health`, `GET /healthz HTTP/1.1\r\nhost: ${host}`);
    await raw(`Host "${host}": me`, `GET /v1/me HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${bearer}`);
    // Regression: with a short Host, `/x/v1/resources/<id>/join` was carried out as a join.
    await raw(
      `Host "${host}": a join under another prefix`,
      `POST /x/v1/resources/${album}/join HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${bearer}\r\ncontent-length: 0`,
    );
  }
  await raw("no Host, HTTP/1.0", "GET /healthz HTTP/1.0");
  await raw("no Host, HTTP/1.1", "GET /healthz HTTP/1.1");
  await raw("absolute-form", `GET http://127.0.0.1:${port}/healthz HTTP/1.1\r\nhost: 127.0.0.1:${port}`);
  await raw(
    "absolute-form, another host",
    `GET http://elsewhere.example/v1/me HTTP/1.1\r\nhost: x\r\nauthorization: ${bearer}`,
  );
  await raw("a double slash", `GET //v1/me HTTP/1.1\r\nhost: x\r\nauthorization: ${bearer}`);
  await raw("a double slash, health", "GET //healthz HTTP/1.1\r\nhost: x");
  await raw("a double slash, absolute-looking", "GET //ab/healthz HTTP/1.1\r\nhost: x");
  await raw("a dot segment", "GET /v1/../healthz HTTP/1.1\r\nhost: x");
  await raw("headers over 12 KiB", `GET /healthz HTTP/1.1\r\nhost: x\r\nx-filler: ${"a".repeat(13_000)}`);
  await raw(
    "a declared body over 64 KiB",
    `POST /v1/resources HTTP/1.1\r\nhost: x\r\nauthorization: ${bearer}\r\ncontent-type: application/json\r\ncontent-length: 70000`,
  );
}

/** Deploys the other app with a budget of two calls a minute, and spends it. */
export async function budget(door: Door) {
  const { call } = bound(door);
  await call("deploy the other app with a budget", "POST", "/admin/v1/apps/other/deploy", {
    admin: true,
    headers: { ...ADMIN, "content-type": "application/json" },
    body: otherApp(door.stack, { requestsPerMinute: 2, userShare: 1 }),
  });
  const erin = await door.signIn("erin", OTHER_CLIENT_ID);
  await awayFromMinuteEdge();
  const headers = { ...erin.bearer, origin: OTHER_ORIGIN };
  for (const n of [1, 2, 3, 4]) await call(`budget, call ${n}`, "GET", "/v1/resources", { headers });
  await call("budget, a write over it", "POST", "/v1/resources", {
    headers: { ...headers, ...CSRF },
    body: { type: "team", name: "x" },
  });
  await call("budget, me is not counted", "GET", "/v1/me", { headers });
}

function otherApp(stack: Stack, budget?: { requestsPerMinute: number; userShare: number }) {
  const app = stack.apps.apps.find((a) => a.id === "other")!;
  return { ...app, ...(budget ? { budget } : {}) };
}

export async function adminRoutes(door: Door, album: string) {
  const { call } = bound(door);
  const admin = (label: string, method: string, path: string, body?: unknown) =>
    call(label, method, path, {
      admin: true,
      headers: body === undefined ? ADMIN : { ...ADMIN, "content-type": "application/json" },
      body,
    });
  await call("admin, no token", "GET", "/admin/v1/overview", { admin: true });
  await call("admin, a wrong token", "GET", "/admin/v1/overview", {
    admin: true,
    headers: { authorization: "Bearer nope" },
  });
  await call("admin, Basic", "GET", "/admin/v1/overview", {
    admin: true,
    headers: { authorization: "Basic YTpi" },
  });
  await call("admin, unknown route without a token", "GET", "/admin/v1/nope", { admin: true });
  await admin("admin, unknown route", "GET", "/admin/v1/nope");
  await admin("admin, a public route", "GET", "/v1/me");
  await call("admin OpenAPI document, no token", "GET", "/openapi.json", { admin: true });
  await admin("admin OpenAPI document", "GET", "/openapi.json");
  await admin("overview", "GET", "/admin/v1/overview");
  await admin("sessions of carol", "GET", "/admin/v1/sessions?userId=carol");
  const sessions = await admin("sessions, one a page", "GET", "/admin/v1/sessions?limit=1&clientId=test-web");
  const cursor = sessions.json<{ nextCursor: string }>().nextCursor;
  await admin("sessions, next page", "GET", `/admin/v1/sessions?limit=1&clientId=test-web&cursor=${cursor}`);
  await admin("sessions, bad limit", "GET", "/admin/v1/sessions?limit=abc");
  await admin("sessions, bad cursor", "GET", "/admin/v1/sessions?cursor=nope");
  const carol = (await admin("sessions of carol, again", "GET", "/admin/v1/sessions?userId=carol")).json<{
    sessions: Array<{ id: string }>;
  }>();
  await admin("revoke a session", "DELETE", `/admin/v1/sessions/${carol.sessions[0]!.id}`);
  await admin("revoke it again", "DELETE", `/admin/v1/sessions/${carol.sessions[0]!.id}`);
  await admin("revoke, unknown", "DELETE", `/admin/v1/sessions/${UNKNOWN}`);
  await admin("user", "GET", "/admin/v1/users/alice");
  await admin("user, unknown", "GET", "/admin/v1/users/nobody");
  await admin("user, an id too long", "GET", `/admin/v1/users/${"u".repeat(300)}`);
  await admin("user export", "GET", "/admin/v1/users/alice/export");
  await admin("revoke a user's sessions", "DELETE", "/admin/v1/users/bob/sessions");
  await admin("pending", "GET", "/admin/v1/pending");
  await admin("pending, bad state", "GET", "/admin/v1/pending?state=nope");
  await call("invite for the admin", "POST", `/v1/resources/${album}/invite`, {
    headers: { ...door.users.alice!.bearer, ...CSRF },
    body: { userId: "frank" },
  });
  await admin("pending, invited", "GET", "/admin/v1/pending?state=invited");
  await admin("cancel a pending invite", "DELETE", `/admin/v1/pending/${album}/frank`);
  await admin("cancel it again", "DELETE", `/admin/v1/pending/${album}/frank`);
  await admin("resources", "GET", "/admin/v1/resources?type=album");
  await admin("resources, bad limit", "GET", "/admin/v1/resources?limit=0");
  await admin("resource", "GET", `/admin/v1/resources/${album}`);
  await admin("resource, unknown", "GET", `/admin/v1/resources/${UNKNOWN}`);
  await admin("roster", "GET", `/admin/v1/resources/${album}/members`);
  await admin("roster, unknown", "GET", `/admin/v1/resources/${UNKNOWN}/members`);
  await admin("authorize a write", "POST", "/admin/v1/data/authorize-write", {
    resourceId: album,
    userId: "grace",
  });
  await admin("authorize a write, unknown", "POST", "/admin/v1/data/authorize-write", {
    resourceId: UNKNOWN,
    userId: "grace",
  });
  await admin("authorize a write, wrong types", "POST", "/admin/v1/data/authorize-write", { resourceId: 1 });
  await admin("link a row", "POST", "/admin/v1/data/links", {
    resourceId: album,
    table: "posts",
    rowId: "p1",
    userId: "grace",
  });
  await admin("link, a bad table", "POST", "/admin/v1/data/links", {
    resourceId: album,
    table: "a b",
    rowId: "p1",
    userId: "grace",
  });
  await admin("links", "GET", `/admin/v1/data/links?resourceId=${album}`);
  await admin("links, unknown", "GET", `/admin/v1/data/links?resourceId=${UNKNOWN}`);
  await admin("links, no resource", "GET", "/admin/v1/data/links");
  await admin("setRole by the operator", "POST", `/admin/v1/resources/${album}/setRole`, {
    userId: "grace",
    role: "admin",
  });
  await admin("setRole, a bad role", "POST", `/admin/v1/resources/${album}/setRole`, {
    userId: "grace",
    role: "king",
  });
  await admin("remove by the operator", "POST", `/admin/v1/resources/${album}/remove`, { userId: "grace" });
  await admin("remove, not a member", "POST", `/admin/v1/resources/${album}/remove`, { userId: "grace" });
  await admin("audit", "GET", `/admin/v1/audit?resourceId=${album}&limit=3`);
  await admin("audit, bad cursor", "GET", "/admin/v1/audit?cursor=x");
  await admin("deploy, unknown field", "POST", "/admin/v1/apps/other/deploy", {
    ...otherApp(door.stack),
    colour: "red",
  });
  await admin("deploy, another id", "POST", "/admin/v1/apps/other/deploy", {
    ...otherApp(door.stack),
    id: "test",
  });
  await admin("deploy, malformed JSON", "POST", "/admin/v1/apps/other/deploy", "{");
  await admin("deploy", "POST", "/admin/v1/apps/other/deploy", otherApp(door.stack));
  await admin("events, HEAD", "HEAD", "/admin/v1/events");
  await door.stream("events", {}, () =>
    admin("a write joins henry while streaming", "POST", "/admin/v1/data/authorize-write", {
      resourceId: album,
      userId: "henry",
    }),
  );
  await admin("delete a user", "DELETE", "/admin/v1/users/grace");
  await admin("delete the user again", "DELETE", "/admin/v1/users/grace");
  await admin("metrics", "GET", "/metrics");
  await call("metrics, no token", "GET", "/metrics", { admin: true });
}
