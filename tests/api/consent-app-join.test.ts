/**
 * Consent joins the app's `_app` resource: the
 * whole OAuth browser flow against the development provider, then the membership rows themselves.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import { CLIENT_ID, SECRET_CLIENT_ID, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

const db = () => sql(stack.running.gateway.storage);
const appResource = async () =>
  (await db().all(
    "SELECT id, member_count AS memberCount, owner_id AS ownerId FROM resources WHERE app_id = 'test' AND type = '_app'",
  )) as Array<{ id: string; memberCount: number; ownerId: string }>;
const membershipsOf = async (userId: string) =>
  (await db().all(
    `SELECT m.role, m.state FROM members m JOIN resources r ON r.id = m.resource_id
       WHERE r.app_id = 'test' AND r.type = '_app' AND m.user_id = ?`,
    userId,
  )) as Array<{ role: string; state: string }>;
const consentJoins = async (userId: string) =>
  await db().count("SELECT count(*) AS n FROM events WHERE type = 'member.joined' AND user_id = ?", userId);
const activeCount = async (resourceId: string) =>
  await db().count(
    "SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'active'",
    resourceId,
  );

async function deploy(app: unknown) {
  const res = await fetch(`${stack.adminUrl}/admin/v1/apps/test/deploy`, {
    method: "POST",
    headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
    body: JSON.stringify(app),
  });
  expect(res.status).toBe(200);
}

describe("consent joins the app's _app resource", () => {
  test("after a real sign-in the user is an active writer of _app; a second sign-in does not duplicate it", async () => {
    const [app] = await appResource();
    expect(app).toMatchObject({ ownerId: "app:test", memberCount: 0 });
    const first = await signIn(stack, "someone");
    expect(first.token.status).toBe(200);
    expect(await membershipsOf("someone")).toEqual([{ role: "writer", state: "active" }]);
    expect((await appResource())[0]!.memberCount).toBe(1);
    expect(await consentJoins("someone")).toBe(1);

    // The session sees the _app resource in its own list (it is members-only and reserved).
    const list = await first.browser.fetch(`${stack.url}/v1/resources?type=_app`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({
      resources: [{ id: app!.id, type: "_app", name: "test", visibility: "members", discoverable: false }],
    });

    const second = await signIn(stack, "someone", new Browser());
    expect(second.token.status).toBe(200);
    expect(await membershipsOf("someone")).toEqual([{ role: "writer", state: "active" }]);
    expect(await appResource()).toHaveLength(1);
    expect((await appResource())[0]!.memberCount).toBe(1);
    expect(await consentJoins("someone")).toBe(1);
  });

  test("every client of the app joins the same _app resource; member_count matches the active rows", async () => {
    await signIn(stack, "server-side", new Browser(), SECRET_CLIENT_ID);
    await signIn(stack, "web-side", new Browser(), CLIENT_ID);
    expect(await membershipsOf("server-side")).toEqual([{ role: "writer", state: "active" }]);
    expect(await membershipsOf("web-side")).toEqual([{ role: "writer", state: "active" }]);
    const [app] = await appResource();
    expect(app!.memberCount).toBe(await activeCount(app!.id));
  });

  test("concurrent sign-ins of one user still make one membership", async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () => signIn(stack, "twice-at-once", new Browser())),
    );
    for (const r of results) expect(r.token.status).toBe(200);
    expect(await membershipsOf("twice-at-once")).toEqual([{ role: "writer", state: "active" }]);
    expect(await consentJoins("twice-at-once")).toBe(1);
    const [app] = await appResource();
    expect(app!.memberCount).toBe(await activeCount(app!.id));
  });

  test("a self-made request for a higher role is not granted by consent: it joins at the defaultRole", async () => {
    // A member leaves _app, asks to come back as admin (no admin ever accepts), then signs in again.
    const { browser } = await signIn(stack, "climber");
    const { resources } = (await (await browser.fetch(`${stack.url}/v1/resources?type=_app`)).json()) as {
      resources: Array<{ id: string }>;
    };
    const id = resources[0]!.id;
    const post = (path: string, body?: unknown) =>
      browser.fetch(`${stack.url}/v1/resources/${id}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-csrf": "1" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await post("leave")).status).toBe(200);
    expect((await post("request", { role: "admin" })).status).toBe(200);
    expect(await membershipsOf("climber")).toEqual([{ role: "admin", state: "requested" }]);
    await signIn(stack, "climber", new Browser());
    // consent joins "at its defaultRole"; roles above it need an admin's accept.
    expect(await membershipsOf("climber")).toEqual([{ role: "writer", state: "active" }]);
    const [app] = await appResource();
    expect(app!.memberCount).toBe(await activeCount(app!.id));
  });

  test("types._app.defaultRole (deployed) sets the role consent joins at; existing members keep theirs", async () => {
    const clients = stack.running.gateway.apps.app("test")!.clients;
    await deploy({ id: "test", clients, types: { _app: { defaultRole: "reader" } } });
    await signIn(stack, "late-reader");
    expect(await membershipsOf("late-reader")).toEqual([{ role: "reader", state: "active" }]);
    await signIn(stack, "someone", new Browser());
    expect(await membershipsOf("someone")).toEqual([{ role: "writer", state: "active" }]);
    // Reconciling did not recreate or empty the _app resource.
    const all = await appResource();
    expect(all).toHaveLength(1);
    expect(all[0]!.memberCount).toBe(await activeCount(all[0]!.id));
    await deploy({ id: "test", clients });
  });
});
