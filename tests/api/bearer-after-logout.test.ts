/**
 * Bearer tokens after a subject's logout (issue 30, item 2), over real sockets, against the development
 * provider: the gateway's own process and a `gateway serve` child on the same database both hold a
 * subject's access token in their bearer caches; a back-channel logout the provider sends (its admin
 * delete of the login session) or an operator's revoke-all revokes the grant at the provider, and within
 * a second both processes check the token with the provider again and refuse it (401). A token of a new
 * sign-in after that is accepted and cached as usual, and another subject's cached token is not checked
 * again. An account deletion drops the checks too once the provider has revoked the grant: both processes
 * ask the provider again (which refuses the token) and still answer 403 `account_deleted`. A record
 * whose notification was lost is still read within 1 s (PostgreSQL: the 500 ms poll), and a logout that
 * cannot be recorded still answers and drops the checks of the process that served it. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { failWrites, sql } from "../helpers/db.ts";
import { type Replica, startReplicas } from "../helpers/replicas.ts";
import { CLIENT_ID, introspect, type Stack, startStack, tokensOf } from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token" };

let stack: Stack;
let child: Replica;
const db = () => sql(stack.running.gateway.storage);

beforeAll(async () => {
  stack = await startStack();
  const appsFile = join(stack.dataDir, "apps.json");
  writeFileSync(appsFile, JSON.stringify(stack.apps));
  const started = await startReplicas(
    { ...(process.env as Record<string, string>), ...stack.env, GATEWAY_CONFIG: appsFile },
    1,
  );
  child = started[0]!;
}, 60_000);

afterAll(async () => {
  await child?.kill();
  await stack?.stop();
}, 30_000);

const bases = () => [stack.url, child.url];
const introspections = () => stack.idp.calls.introspect ?? 0;

async function me(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { userId?: string; code?: string };
  return res.status === 200 ? `200 ${body.userId}` : `${res.status} ${body.code}`;
}

/** Each process's answer once it has changed from `before`, or its last answer after 1 s. */
async function answersWithin1s(token: string, before: string): Promise<string[]> {
  const deadline = Date.now() + 1000;
  return Promise.all(
    bases().map(async (base) => {
      let answer = await me(base, token);
      while (answer === before && Date.now() < deadline) {
        await Bun.sleep(25);
        answer = await me(base, token);
      }
      return answer;
    }),
  );
}

/** Signs `user` in and has both processes cache its access token (one provider check each). */
async function cachedBearer(user: string) {
  const { at, browser } = await tokensOf(stack, user, CLIENT_ID);
  for (const base of bases()) expect(await me(base, at)).toBe(`200 ${user}`);
  const checks = introspections();
  for (const base of bases()) expect(await me(base, at)).toBe(`200 ${user}`);
  expect(introspections()).toBe(checks); // answered from both caches
  const row = await db().get<{ id: string; provider_sid: string | null }>(
    "SELECT id, provider_sid FROM sessions WHERE user_id = ? AND ended_at IS NULL ORDER BY created_at DESC",
    user,
  );
  return { at, browser, sessionId: row!.id, sid: row!.provider_sid };
}

/** After the logout: refused by both processes within 1 s, each after asking the provider again. */
async function expectRefusedEverywhere(user: string, at: string) {
  const checks = introspections();
  expect(await answersWithin1s(at, `200 ${user}`)).toEqual(["401 unauthenticated", "401 unauthenticated"]);
  expect(introspections() - checks).toBeGreaterThanOrEqual(2);
  expect((await introspect(stack, at)).active).toBe(false);
}

/** A new sign-in of the subject works on both processes, and is cached there again. */
async function expectNewSignInAccepted(user: string) {
  const { at } = await tokensOf(stack, user, CLIENT_ID);
  for (const base of bases()) expect(await me(base, at)).toBe(`200 ${user}`);
  const checks = introspections();
  for (const base of bases()) expect(await me(base, at)).toBe(`200 ${user}`);
  expect(introspections()).toBe(checks);
}

describe("a cached bearer token after its subject's logout", () => {
  test("a back-channel logout from the provider: refused on both processes within 1 s", async () => {
    const user = "bearer-bcl";
    const { at, sid } = await cachedBearer(user);
    const bystander = await cachedBearer("bearer-bcl-other");
    expect(sid).toBeString();
    const deleted = await fetch(
      `${stack.idp.adminUrl}/admin/oauth2/auth/sessions/login?sid=${encodeURIComponent(sid!)}`,
      { method: "DELETE", headers: { authorization: "Bearer test-idp-admin-key" } },
    );
    expect(deleted.status).toBe(204);
    expect(await db().count("SELECT count(*) FROM subject_logouts WHERE user_id = ?", user)).toBe(1);
    await expectRefusedEverywhere(user, at);
    // Another subject's cached token is still answered from both caches.
    const checks = introspections();
    for (const base of bases()) expect(await me(base, bystander.at)).toBe("200 bearer-bcl-other");
    expect(introspections()).toBe(checks);
    await expectNewSignInAccepted(user);
  }, 30_000);

  test("an operator's revoke-all: refused on both processes within 1 s", async () => {
    const user = "bearer-revoke-all";
    const { at } = await cachedBearer(user);
    const revoked = await fetch(`${stack.adminUrl}/admin/v1/users/${user}/sessions`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ ok: true, revoked: 1 });
    expect(await db().count("SELECT count(*) FROM subject_logouts WHERE user_id = ?", user)).toBe(1);
    await expectRefusedEverywhere(user, at);
    await expectNewSignInAccepted(user);
  }, 30_000);

  test("an account deletion: both processes check with the provider again within 1 s, and still say account_deleted", async () => {
    const user = "bearer-deleted";
    const { at } = await cachedBearer(user);
    const checks = introspections();
    const deleted = await fetch(`${stack.adminUrl}/admin/v1/users/${user}`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(deleted.status).toBe(200);
    // Refused at once, from the caches (the provider is told after the answer)...
    for (const base of bases()) expect(await me(base, at)).toBe("403 account_deleted");
    // ...and within 1 s of its revocation, each process has asked the provider again.
    await stack.running.gateway.accounts.idle();
    const deadline = Date.now() + 1000;
    const answers: string[] = [];
    while (Date.now() < deadline && introspections() - checks < 2) {
      answers.push(...(await Promise.all(bases().map((base) => me(base, at)))));
      await Bun.sleep(25);
    }
    expect(introspections() - checks).toBe(2);
    for (const base of bases()) expect(await me(base, at)).toBe("403 account_deleted");
    expect(new Set(answers)).toEqual(new Set(["403 account_deleted"]));
    expect((await introspect(stack, at)).active).toBe(false);
    expect(await db().count("SELECT count(*) FROM subject_logouts WHERE user_id = ?", user)).toBe(1);
  }, 30_000);

  test("a logout whose notification was lost reaches the other process within 1 s", async () => {
    // A row written with no notification (as after a lost one): the other process reads it on its own,
    // from SQLite's change counter, or from PostgreSQL's 500 ms poll.
    const user = "bearer-lost-notify";
    const { at } = await cachedBearer(user);
    const checks = introspections();
    await db().run(
      "INSERT INTO subject_logouts (id, user_id, at) VALUES (?, ?, ?)",
      crypto.randomUUID(),
      user,
      Date.now(),
    );
    const deadline = Date.now() + 1000;
    while (introspections() === checks && Date.now() < deadline) {
      expect(await me(child.url, at)).toBe(`200 ${user}`); // the provider still accepts it
      await Bun.sleep(25);
    }
    expect(introspections() - checks).toBe(1);
  }, 30_000);

  test("a logout that cannot be recorded still ends everything and drops the checks of the process that served it", async () => {
    const user = "bearer-unrecorded";
    const { at } = await cachedBearer(user);
    const undo = await failWrites(
      stack.running.gateway.storage,
      "refuse_subject_logouts",
      "INSERT",
      "subject_logouts",
      "1 = 1",
    );
    try {
      const revoked = await fetch(`${stack.adminUrl}/admin/v1/users/${user}/sessions`, {
        method: "DELETE",
        headers: ADMIN,
      });
      expect(revoked.status).toBe(200);
      expect(await revoked.json()).toEqual({ ok: true, revoked: 1 });
    } finally {
      await undo();
    }
    expect(await db().count("SELECT count(*) FROM subject_logouts WHERE user_id = ?", user)).toBe(0);
    expect(await me(stack.url, at)).toBe("401 unauthenticated");
    expect(stack.logs.some((line) => line.includes("a logout was not recorded"))).toBe(true);
  }, 30_000);

  test("a revoke-all of a user with no live session writes nothing and drops nothing", async () => {
    const before = await db().count("SELECT count(*) FROM subject_logouts");
    const revoked = await fetch(`${stack.adminUrl}/admin/v1/users/nobody-here/sessions`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(await revoked.json()).toEqual({ ok: true, revoked: 0 });
    expect(await db().count("SELECT count(*) FROM subject_logouts")).toBe(before);
  });
});
