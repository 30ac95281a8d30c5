/**
 * Deleting a user in the middle of 50 concurrent joins and invites by and for that user: whatever
 * commits first, nothing is left that names the user (no membership, invite, owned resource or offer),
 * every member count equals its active rows, and every call either succeeded before the deletion or
 * was refused after it. Relies on the user's lock and the deleted-user check every membership change
 * makes inside its transaction (pseudonym.ts `guard`): without it, calls whose caller was resolved
 * before the deletion committed leave memberships and invites of a deleted user.
 *
 * The same holds for sign-ins (a session row), resource creations and welcome grants racing the
 * deletion (issue 27, item 1): each takes the user's lock and refuses a deleted user in its own
 * transaction, so none leaves a live session, an owned resource or a credit under the deleted id.
 */
import { afterAll, expect, test } from "bun:test";
import { grantWelcomeCredit } from "../../src/server/credits/ledger.ts";
import { Refusal } from "../../src/server/domain/refusal.ts";
import { statusOf } from "../../src/server/http/errors.ts";
import { type Json, makeKit } from "../helpers/resources-kit.ts";

const ADMIN_TOKEN = "race-admin-token";
const k = await makeKit(undefined, { ADMIN_TOKEN });
afterAll(() => k.gw.gateway.close());

const D = "race-d";

test("a deletion among 50 concurrent joins and invites by and for the user leaves no orphan", async () => {
  await k.users(D, "race-o");
  const own = (await k.create(D, "team", "D's team")).id;
  const boards: string[] = [];
  const teams: string[] = [];
  for (let i = 0; i < 25; i++) boards.push((await k.create("race-o", "board", `Board ${i}`)).id);
  for (let i = 0; i < 12; i++) teams.push((await k.create("race-o", "team", `Team ${i}`)).id);
  type Kind = "join" | "inviteBy" | "inviteFor";
  const ops: Array<{ kind: Kind; run: () => Promise<{ status: number; body: Json }> }> = [];
  for (let i = 0; i < 25; i++) {
    ops.push({ kind: "join", run: () => k.post(D, `/v1/resources/${boards[i]}/join`) });
    if (i < 13)
      ops.push({
        kind: "inviteBy",
        run: () => k.post(D, `/v1/resources/${own}/invite`, { userId: `race-invitee-${i}` }),
      });
    if (i < 12)
      ops.push({
        kind: "inviteFor",
        run: () => k.post("race-o", `/v1/resources/${teams[i]}/invite`, { userId: D }),
      });
  }
  expect(ops.length).toBe(50);
  // The first 10 are done before the deletion starts (so it finds some of each kind); the other 40 run
  // concurrently with it, half issued before it and half after.
  const first = await Promise.all(ops.slice(0, 10).map((op) => op.run()));
  const started = ops.slice(10, 30).map((op) => op.run());
  const deletion = k.gw.admin(`/admin/v1/users/${D}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  started.push(...ops.slice(30).map((op) => op.run()));
  const [deleted, ...rest] = await Promise.all([deletion, ...started]);
  const answers = [...first, ...rest];
  expect(deleted.status).toBe(200);
  const report = (await deleted.json()) as Json;
  expect(report.deletedNow).toBe(true);

  // Every call succeeded (before the deletion) or was refused (after it): never anything else.
  const outcomes = answers.map((a) => (a.status === 200 ? "ok" : `${a.status} ${a.body.code}`));
  for (const outcome of outcomes)
    expect(["ok", "403 account_deleted", "404 user_deleted"]).toContain(outcome);
  // The deletion really came in the middle: some calls were done before it, some refused after it.
  expect(outcomes.filter((o) => o === "ok").length).toBeGreaterThan(0);
  expect(outcomes.filter((o) => o !== "ok").length).toBeGreaterThan(0);

  // No orphan: nothing names the user; D's team (no other active member) is gone with its invites.
  const traces = await k.db.get(
    `SELECT (SELECT count(*) FROM members WHERE user_id = ?1 OR invited_by = ?1)
       + (SELECT count(*) FROM resources WHERE owner_kind = 'user' AND owner_id = ?1)
       + (SELECT count(*) FROM ownership_offers WHERE user_id = ?1 OR offered_by = ?1) AS n`,
    D,
  );
  expect(Number(traces!.n)).toBe(0);
  expect(await k.resource(own)).toBeNull();
  expect(await k.db.count("SELECT count(*) FROM members WHERE resource_id = ?", own)).toBe(0);
  // Counts exact everywhere: each board has its owner and nobody else.
  const counts = await k.db.all(
    `SELECT r.id, r.member_count AS n, (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.state = 'active') AS active
     FROM resources r`,
  );
  for (const row of counts)
    expect({ id: row.id, n: Number(row.n) }).toEqual({ id: row.id, n: Number(row.active) });
  for (const id of boards) expect(await k.memberCount(id)).toBe(1);
  // Every call that succeeded had committed before the deletion, which ended it: its own team, each
  // board joined and each invite received (the invites D sent went with D's team).
  const ok = (kind: Kind) => ops.filter((op, i) => op.kind === kind && outcomes[i] === "ok").length;
  expect({ memberships: report.membershipsEnded, invites: report.invitesCancelled }).toEqual({
    memberships: 1 + ok("join") + ok("inviteFor"),
    invites: 0,
  });
  expect(report.resources).toEqual({ transferred: [], deleted: [own] });
}, 60_000);

test("sign-ins, creations and welcome grants racing a deletion leave no session, resource or credit under the id", async () => {
  const S = "race-s";
  const { gateway } = k.gw;
  await k.users(S);
  expect(await grantWelcomeCredit(gateway.storage, gateway.deleted, S, 5_000_000)).toBe(true);
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => "ok",
      (error: { code?: string }) =>
        error instanceof Refusal ? `${statusOf(error)} ${error.code}` : `unexpected ${error.code}`,
    );
  const signIn = () =>
    outcome(
      gateway.sessions.start(
        { accessToken: `at-${crypto.randomUUID()}`, expiresIn: 3600, scope: "openid" } as never,
        S,
        "web",
      ),
    );
  const create = (i: number) =>
    k
      .post(S, "/v1/resources", { type: "team", name: `race ${i}` })
      .then((r) => (r.status === 200 ? "ok" : `${r.status} ${r.body.code}`));
  const grant = () =>
    outcome(
      grantWelcomeCredit(gateway.storage, gateway.deleted, S, 5_000_000).then((granted) => {
        if (granted) throw { code: "granted_again" };
      }),
    );
  const ops = () => [signIn(), create(Math.random()), grant()];
  // Calls keep starting while the deletion runs (each turn of the event loop), and a few after it:
  // those reach their transaction with the user deleted, whatever their caller checked before.
  let running = true;
  const deletion = k.gw
    .admin(`/admin/v1/users/${S}`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    .finally(() => {
      running = false;
    });
  const answers: Array<Promise<string>> = [];
  while (running) {
    answers.push(...ops());
    await Bun.sleep(0);
  }
  answers.push(...ops(), ...ops());
  const deleted = await deletion;
  expect(deleted.status).toBe(200);
  const outcomes = await Promise.all(answers);
  for (const answer of outcomes) expect(["ok", "403 account_deleted"]).toContain(answer);
  expect(outcomes.filter((a) => a !== "ok").length).toBeGreaterThan(0);
  expect(await k.db.count("SELECT count(*) FROM sessions WHERE user_id = ? AND ended_at IS NULL", S)).toBe(0);
  expect(await k.db.count("SELECT count(*) FROM resources WHERE owner_id = ?", S)).toBe(0);
  expect(await k.db.count("SELECT count(*) FROM credits WHERE user_id = ?", S)).toBe(0);
  expect(await k.db.count("SELECT count(*) FROM events WHERE user_id = ? OR actor = ?", S, S)).toBe(0);
}, 60_000);
