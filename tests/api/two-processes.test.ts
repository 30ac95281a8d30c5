/**
 * Two gateways on one database file (a blue/green upgrade on one host): each has its own connection
 * and its own read caches. Joins and leaves alternate between them, with reads through both warming
 * their caches in between; decisions must read the database and caches must notice the other's
 * commits (within a millisecond), so `memberCount` always equals the active roster and no request fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RunningGateway } from "../../src/server/serve.ts";
import { sql } from "../helpers/db.ts";
import { CLIENT_ID, CSRF, type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
let other: RunningGateway;
beforeAll(async () => {
  stack = await startStack();
  other = await stack.another();
}, 60_000);
afterAll(async () => {
  await other.stop();
  await stack.stop();
}, 30_000);

async function cookieFor(user: string): Promise<string> {
  const { sealed } = await stack.running.gateway.sessions.start(
    {
      accessToken: `at-${user}`,
      refreshToken: `rt-${user}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    user,
    CLIENT_ID,
  );
  return `sg_session=${sealed}`;
}

const call = (base: string, cookie: string, method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { ...CSRF, cookie },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("two processes on one database file", () => {
  test("joins and leaves alternating between them keep memberCount equal to the active roster", async () => {
    const owner = await cookieFor("overlap-owner");
    const created = await call(stack.url, owner, "POST", "/v1/resources", { type: "album", name: "overlap" });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const users = await Promise.all(["o1", "o2", "o3", "o4"].map((u) => cookieFor(`overlap-${u}`)));
    const bases = [stack.url, other.publicUrl];
    const activeRoster = async () =>
      (
        (await sql(stack.running.gateway.storage).get(
          "SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'active'",
          id,
        )) as { n: number }
      ).n;
    for (let round = 0; round < 12; round++) {
      for (const [i, user] of users.entries()) {
        const a = bases[(round + i) % 2]!;
        const b = bases[(round + i + 1) % 2]!;
        // Both read first (their caches now hold this user's membership and the count).
        for (const base of bases)
          expect((await call(base, user, "GET", `/v1/resources/${id}`)).status).toBe(200);
        const join = await call(a, user, "POST", `/v1/resources/${id}/join`);
        expect([round, i, "join", join.status]).toEqual([round, i, "join", 200]);
        await Bun.sleep(2); // a process notices another's commit within a millisecond
        for (const base of bases) {
          const seen = (await (await call(base, user, "GET", `/v1/resources/${id}`)).json()) as {
            memberCount: number;
          };
          expect(seen.memberCount).toBe(await activeRoster());
        }
        const leave = await call(b, user, "POST", `/v1/resources/${id}/leave`);
        expect([round, i, "leave", leave.status]).toEqual([round, i, "leave", 200]);
      }
      const counted = (await (await call(bases[round % 2]!, owner, "GET", `/v1/resources/${id}`)).json()) as {
        memberCount: number;
      };
      expect(counted.memberCount).toBe(await activeRoster());
      expect(await activeRoster()).toBe(1);
    }
  }, 60_000);

  test("a session ended through one gateway is refused by the other from the next request", async () => {
    const cookie = await cookieFor("overlap-ended");
    expect((await call(other.publicUrl, cookie, "GET", "/v1/me")).status).toBe(200);
    const out = await call(stack.url, cookie, "POST", "/auth/logout", {});
    expect(out.status).toBe(200);
    await Bun.sleep(2); // the other process checks for changes at most once a millisecond
    expect((await call(other.publicUrl, cookie, "GET", "/v1/me")).status).toBe(401);
  });
});
