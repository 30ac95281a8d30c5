/**
 * Issue 27, item 1: a deleted account stays deleted, on every process at once. Two gateway processes on
 * one database (this test's in-process gateway A and a `gateway serve` child B), the development
 * provider behind both. The user signs in and is used through both (A's and B's bearer caches and
 * session caches warm), then B's admin API deletes the account: from the next request, on A and on B,
 * the cookie, the cached bearer token and a write answer 403 `account_deleted`; signing in again as the
 * same subject is refused at /auth/token with the same code, and its consent neither joins `_app` nor
 * credits anything. A new subject from the provider (how a deleted person returns) signs in as usual.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "../helpers/db.ts";
import { waitReady } from "../helpers/ready.ts";
import { CSRF, freePort, type Stack, signIn, startStack } from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token" };
const U = "gone-user";

let stack: Stack;
let child: ReturnType<typeof Bun.spawn>;
let b = "";
let bAdmin = "";

beforeAll(async () => {
  stack = await startStack();
  const appsFile = join(stack.dataDir, "apps.json");
  writeFileSync(appsFile, JSON.stringify(stack.apps));
  const port = freePort();
  const adminPort = freePort();
  b = `http://127.0.0.1:${port}`;
  bAdmin = `http://127.0.0.1:${adminPort}`;
  child = Bun.spawn(["bun", "src/server/main.ts", "serve"], {
    env: {
      ...(process.env as Record<string, string>),
      ...stack.env,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      GATEWAY_CONFIG: appsFile,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  await waitReady(b);
}, 60_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await child?.exited;
  await stack?.stop();
}, 30_000);

const db = () => sql(stack.running.gateway.storage);

async function answer(res: Response): Promise<string> {
  const text = await res.text();
  return res.status === 200 ? "200" : `${res.status} ${(JSON.parse(text) as { code: string }).code}`;
}
const me = async (base: string, headers: Record<string, string>) =>
  answer(await fetch(`${base}/v1/me`, { headers }));
const create = async (base: string, headers: Record<string, string>, name: string) =>
  answer(
    await fetch(`${base}/v1/resources`, {
      method: "POST",
      headers: { ...CSRF, ...headers },
      body: JSON.stringify({ type: "team", name }),
    }),
  );

describe("a deleted account, across two processes on one database", () => {
  test("cookie, cached bearer token and writes are refused at once on both processes", async () => {
    const first = await signIn(stack, U);
    expect(first.token.status).toBe(200);
    const cookie = { cookie: first.browser.cookieHeader(stack.url) };
    const found = await stack.running.gateway.sessions.resolve(cookie.cookie);
    const bearer = { authorization: `Bearer ${found!.cookie.at}` };
    const a = stack.url;
    // Both processes have now seen the cookie and the token (their caches hold them), and written for U.
    for (const base of [a, b]) {
      expect(await me(base, cookie)).toBe("200");
      expect(await me(base, bearer)).toBe("200");
      expect(await create(base, bearer, `before on ${base === a ? "A" : "B"}`)).toBe("200");
    }
    expect(await db().count("SELECT count(*) FROM credits WHERE user_id = ?", U)).toBe(1);

    const deleted = await fetch(`${bAdmin}/admin/v1/users/${U}`, { method: "DELETE", headers: ADMIN });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ userId: U, deletedNow: true });

    // From the next request, on the process that deleted and on the other one.
    for (const base of [a, b]) {
      expect([base, await me(base, bearer)]).toEqual([base, "403 account_deleted"]);
      expect([base, await me(base, cookie)]).toEqual([base, "403 account_deleted"]);
      expect([base, await create(base, bearer, "after")]).toEqual([base, "403 account_deleted"]);
    }
    expect(await db().count("SELECT count(*) FROM resources WHERE owner_id = ?", U)).toBe(0);
    expect(await db().count("SELECT count(*) FROM members WHERE user_id = ?", U)).toBe(0);
  }, 60_000);

  test("the same subject signing in again is refused at /auth/token; its consent joins nothing, credits nothing", async () => {
    // Its consent is remembered at the provider, so it is auto-accepted (the side effects run there).
    const eventsBefore = await db().count("SELECT count(*) FROM events WHERE user_id = ? OR actor = ?", U, U);
    expect(eventsBefore).toBe(0);
    const again = await signIn(stack, U);
    expect(again.token.status).toBe(403);
    expect(again.body).toMatchObject({ code: "account_deleted" });
    expect(again.browser.cookieHeader(stack.url)).not.toMatch(/sg_session/);
    // Nothing was given or recorded under the id: no session, no `_app` membership, no second credit.
    expect(await db().count("SELECT count(*) FROM sessions WHERE user_id = ? AND ended_at IS NULL", U)).toBe(
      0,
    );
    expect(await db().count("SELECT count(*) FROM members WHERE user_id = ?", U)).toBe(0);
    expect(await db().count("SELECT count(*) FROM credits WHERE user_id = ?", U)).toBe(0);
    expect(
      await db().count("SELECT count(*) FROM credits WHERE kind = 'welcome' AND user_id LIKE 'deleted:%'"),
    ).toBe(1);
    expect(await db().count("SELECT count(*) FROM events WHERE user_id = ? OR actor = ?", U, U)).toBe(0);
  }, 60_000);

  test("a deletion committed after sign-in's first check: the session's own transaction refuses it, and the new grant is revoked", async () => {
    const { gateway } = stack.running;
    const asked = gateway.deleted.isDeleted;
    const revoke = gateway.sessions.revokeToken;
    const revoked: string[] = [];
    gateway.deleted.isDeleted = () => false; // as if the deletion committed just after this check
    gateway.sessions.revokeToken = async (clientId, token, why) => {
      revoked.push(why);
      return revoke.call(gateway.sessions, clientId, token, why);
    };
    try {
      const again = await signIn(stack, U);
      expect(again.token.status).toBe(403);
      expect(again.body).toMatchObject({ code: "account_deleted" });
      expect(revoked).toEqual(["(deleted account)"]);
    } finally {
      gateway.deleted.isDeleted = asked;
      gateway.sessions.revokeToken = revoke;
    }
    expect(await db().count("SELECT count(*) FROM sessions WHERE user_id = ? AND ended_at IS NULL", U)).toBe(
      0,
    );
  }, 60_000);

  test("a new subject from the provider (the way a deleted person returns) signs in and is welcomed", async () => {
    const fresh = await signIn(stack, `${U}-returned`);
    expect(fresh.token.status).toBe(200);
    expect(fresh.body).toMatchObject({ authenticated: true, user_id: `${U}-returned` });
    const cookie = { cookie: fresh.browser.cookieHeader(stack.url) };
    expect(await me(b, cookie)).toBe("200");
    expect(await create(b, cookie, "a fresh start")).toBe("200");
    expect(await db().count("SELECT count(*) FROM credits WHERE user_id = ?", `${U}-returned`)).toBe(1);
    expect(
      await db().count(
        "SELECT count(*) FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.user_id = ? AND r.type = '_app'",
        `${U}-returned`,
      ),
    ).toBe(1);
  }, 60_000);
});
