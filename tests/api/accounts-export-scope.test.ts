/**
 * Issue 27, item 2: `GET /v1/me/export` shows the caller's app only, as every /v1 route does (a token
 * of app B never exports app A's memberships, links, sessions or events); a pending request on a
 * members-only resource shows its id and type, not its name; other users' ids inside event data are
 * left out. And a long history is read a page at a time through the events indexes, the event loop
 * turning between pages: seeded with thousands of events, no statement returns more than a page, the
 * plans use `events_user` and `events_actor` (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL),
 * and the whole history still arrives, in order, over a real socket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildPublicApp } from "../../src/server/app.ts";
import type { Param } from "../../src/server/db/sql.ts";
import { appendEvent } from "../../src/server/events/log.ts";
import { type Json, makeKit } from "../helpers/resources-kit.ts";

const ADMIN_TOKEN = "export-scope-admin";
const k = await makeKit(undefined, { ADMIN_TOKEN });
const { gateway } = k.gw;
afterAll(() => gateway.close());

const U = "xs-user";
const O = "xs-owner";
const Y = "xs-passed-over";
const ids: Record<string, string> = {};

const link = (resourceId: string, table: string, rowId: string, userId: string) =>
  k.gw.admin("/admin/v1/data/links", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ resourceId, table, rowId, userId, data: { by: userId } }),
  });

/** The export as the caller of `clientId` gets it: the parsed document and its text. */
async function exportOf(clientId: string): Promise<{ doc: Json; text: string }> {
  const reply = await k.raw("/v1/me/export", { headers: await k.h(U, clientId) });
  expect(reply.status).toBe(200);
  return { doc: reply.body, text: reply.text };
}

beforeAll(async () => {
  await k.users(U, O, Y);
  await k.h(U, "other-web");
  // App main ("web"): a team U belongs to, a board U linked a row into, a members-only team U asked to
  // join, and a team whose owner offered it to Y, then to U instead; U has left it since.
  ids.team = (await k.create(O, "team", "Main team")).id;
  await k.addMember(O, ids.team, U, "writer");
  ids.board = (await k.create(O, "board", "Main board")).id;
  expect((await link(ids.board, "posts", "main-post", U)).status).toBe(200);
  ids.secret = (await k.create(O, "team", "Secret plans")).id;
  expect((await k.post(U, `/v1/resources/${ids.secret}/request`)).status).toBe(200);
  ids.passed = (await k.create(O, "team", "Passed on")).id;
  await k.addMember(O, ids.passed, Y, "admin");
  await k.addMember(O, ids.passed, U, "admin");
  expect((await k.post(O, `/v1/resources/${ids.passed}/transferOwnership`, { userId: Y })).status).toBe(200);
  expect((await k.post(O, `/v1/resources/${ids.passed}/transferOwnership`, { userId: U })).status).toBe(200);
  expect((await k.post(U, `/v1/resources/${ids.passed}/leave`)).status).toBe(200);
  // App other ("other-web"): U's own team there.
  ids.otherTeam = (await k.create(U, "team", "Other team", undefined, "other-web")).id;
}, 60_000);

describe("GET /v1/me/export is the caller's app's", () => {
  test("a token of app B exports nothing of app A: no membership, link, session, event or id of it", async () => {
    const { doc, text } = await exportOf("other-web");
    expect(doc.memberships.map((m: Json) => [m.resourceId, m.appId, m.state])).toEqual([
      [ids.otherTeam, "other", "active"],
    ]);
    expect(doc.resourcesOwned.map((r: Json) => r.id)).toEqual([ids.otherTeam]);
    expect(doc.links).toEqual([]);
    expect(doc.sessions.map((s: Json) => s.clientId)).toEqual(["other-web"]);
    for (const id of [ids.team, ids.board, ids.secret, ids.passed]) expect(text).not.toContain(id!);
    for (const name of ["Main team", "Main board", "main-post", O, Y]) expect(text).not.toContain(name);
    for (const e of doc.events) {
      expect(e.resourceId === null || e.resourceId === ids.otherTeam).toBe(true);
      if (e.data?.clientId !== undefined) expect(e.data.clientId).toBe("other-web");
    }
    expect(doc.events.some((e: Json) => e.type === "resource.created")).toBe(true);
  });

  test("app A's export: a members-only request shows id and type only; others' ids in event data are left out", async () => {
    const { doc, text } = await exportOf("web");
    expect(doc.memberships.find((m: Json) => m.resourceId === ids.secret)).toEqual({
      resourceId: ids.secret,
      appId: "main",
      type: "team",
      role: "writer",
      state: "requested",
      invitedBy: null,
      since: expect.any(String),
    });
    expect(text).not.toContain("Secret plans");
    expect(text).not.toContain(ids.otherTeam!);
    // The offer to U replaced the one to Y: the event is U's, Y's id is not.
    const offered = doc.events.find((e: Json) => e.type === "ownership.offered" && e.userId === U);
    expect(offered).toMatchObject({ actor: O, resourceId: ids.passed });
    expect(text).not.toContain(Y);
    // The operator's export still has everything, in every app.
    const operator = await k.gw.admin(`/admin/v1/users/${U}/export`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const full = await operator.text();
    for (const needle of [Y, ids.otherTeam!, ids.team!]) expect(full).toContain(needle);
  });
});

describe("a long history", () => {
  const MINE = 2_600;
  let statements: Array<{ text: string; params: readonly Param[]; rows: number }> = [];
  let server: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    // U's events (as subject, as actor, as both) among many more of other users, straight into the table.
    const rows: Param[][] = [];
    for (let i = 0; i < MINE * 3; i++) {
      const mine = i % 3 === 0;
      const actor = mine && i % 2 === 0 ? U : `xs-other-${i % 17}`;
      const subject = mine && (i % 4 !== 0 || actor !== U) ? U : `xs-other-${i % 13}`;
      rows.push(["seeded.event", actor, subject, Date.now()]);
    }
    for (let start = 0; start < rows.length; start += 250) {
      const chunk = rows.slice(start, start + 250);
      await gateway.storage.run(
        `INSERT INTO events (type, actor, resource_id, user_id, data, at) VALUES ${chunk
          .map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, NULL, $${i * 4 + 3}, NULL, $${i * 4 + 4})`)
          .join(", ")}`,
        chunk.flat(),
      );
    }
    const all = gateway.storage.all.bind(gateway.storage);
    gateway.storage.all = (async (text: string, params: readonly Param[] = []) => {
      const found = await all(text, params);
      statements.push({ text, params, rows: found.length });
      return found;
    }) as typeof gateway.storage.all;
    const app = buildPublicApp(gateway);
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.handle(request) });
  }, 60_000);
  afterAll(() => server?.stop(true));

  test("read a page at a time over a socket: every event once, in order, the loop turning between pages", async () => {
    // U's events, but for the two of app other (its session, its team).
    const mine = "(user_id = ? OR actor = ?)";
    const expected =
      (await k.db.count(`SELECT count(*) FROM events WHERE ${mine}`, U, U)) -
      (await k.db.count(
        `SELECT count(*) FROM events WHERE ${mine} AND (resource_id = ? OR data LIKE ?)`,
        U,
        U,
        ids.otherTeam!,
        '%"clientId":"other-web"%',
      ));
    expect(expected).toBeGreaterThan(MINE);
    statements = [];
    let turns = 0;
    let exporting = true;
    const tick = () => {
      turns++;
      if (exporting) setImmediate(tick);
    };
    setImmediate(tick);
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/me/export`, { headers: await k.h(U) });
    const doc = (await res.json()) as Json;
    exporting = false;
    expect(res.status).toBe(200);
    const got = doc.events.map((e: Json) => e.id);
    expect(got.length).toBe(expected);
    expect(new Set(got).size).toBe(expected);
    expect(got).toEqual([...got].sort((a: number, b: number) => a - b));
    const reads = statements.filter((s) => /\bFROM events\b/.test(s.text));
    expect(Math.max(...statements.map((s) => s.rows))).toBeLessThanOrEqual(500);
    expect(reads.length).toBeGreaterThanOrEqual(Math.ceil(expected / 500));
    expect(turns).toBeGreaterThanOrEqual(reads.length - 1);
  }, 60_000);

  test("each statement reading events is served by the events_user and events_actor indexes", async () => {
    const reads = statements.filter((s) => /\bFROM events\b/.test(s.text));
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads.slice(0, 2)) {
      const plan =
        gateway.storage.dialect === "sqlite"
          ? (await gateway.storage.all<Json>(`EXPLAIN QUERY PLAN ${read.text}`, read.params))
              .map((row) => row.detail)
              .join("\n")
          : await gateway.storage.transaction(async (tx) => {
              // Whatever the table's size: could an index serve it at all?
              await tx.run("SET LOCAL enable_seqscan = off");
              const lines = await tx.all<Json>(`EXPLAIN ${read.text}`, read.params);
              return lines.map((row) => row["QUERY PLAN"]).join("\n");
            });
      expect(plan).toContain("events_user");
      expect(plan).toContain("events_actor");
      expect(plan).not.toMatch(/SCAN events\b|Seq Scan on events/);
    }
  });
  test("every other statement reads the user's rows through an index, never a whole table or an app's resources (SQLite)", async () => {
    if (gateway.storage.dialect !== "sqlite") return; // the planner's choice on a small table differs there
    const reads = statements.filter((s) => !/\bFROM events\b/.test(s.text));
    expect(reads.length).toBeGreaterThanOrEqual(9);
    for (const read of reads) {
      const plan = (await gateway.storage.all<Json>(`EXPLAIN QUERY PLAN ${read.text}`, read.params))
        .map((row) => row.detail)
        .join(" | ");
      const first = plan.split(" | ")[0]!;
      expect(first, read.text).toMatch(
        /^SEARCH \w+ USING (COVERING )?INDEX \w+ \((user_id|contributor_id|from_user_id|app_id=\? AND invited_by)=\?\)/,
      );
      expect(plan, read.text).not.toMatch(/\bSCAN\b|resources_browse/);
    }
  });
});

// Last: the long history above counts every event of U in the database.
test("an event of a session the database no longer has (purged) is in no app's export, only the operator's", async () => {
  await gateway.storage.transaction(async (tx) => {
    appendEvent(tx, {
      type: "session.refreshed",
      actor: U,
      userId: U,
      data: { sessionId: "purged-session" },
    });
  });
  for (const clientId of ["web", "other-web"])
    expect((await exportOf(clientId)).text).not.toContain("purged-session");
  const operator = await k.gw.admin(`/admin/v1/users/${U}/export`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(await operator.text()).toContain("purged-session");
});
