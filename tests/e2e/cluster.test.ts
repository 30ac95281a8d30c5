/**
 * Three replicas on PostgreSQL behind a real load balancer (HAProxy, round robin, health checked on
 * /readyz) in front of both listeners: the membership invariants under storms spread over the
 * replicas, one provider call for five tabs refreshing through the balancer, a revoke on one replica
 * refused by another at once, a provider's back-channel logout answered by one replica refused by the
 * other two at once (and the subject's cached bearer token refused by all three within a second), one budget for the app, the admin stream resumed on another replica,
 * and a replica killed with -9 under write load losing no acknowledged write.
 * Runs in the PostgreSQL pass of the suite (TEST_DATABASE=postgres).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT } from "jose";
import { Browser } from "../../src/devidp/browser.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppRegistry } from "../../src/server/apps/registry.ts";
import { BACKCHANNEL_LOGOUT_EVENT } from "../../src/server/auth/logout-token.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway, type Gateway } from "../../src/server/gateway.ts";
import { sql } from "../helpers/db.ts";
import { type Haproxy, startHaproxy } from "../helpers/haproxy.ts";
import { testEngine } from "../helpers/postgres.ts";
import { type Replica, startReplicas } from "../helpers/replicas.ts";
import {
  CLIENT_SECRET,
  CSRF,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
  tokensOf,
} from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer cluster-token" };

let stack: Stack;
let local: Gateway;
let lb: Haproxy;
let replicas: Replica[] = [];

const METERED: AppsFile["apps"][number] = {
  id: "metered",
  clients: [{ clientId: "metered-web", redirectUris: ["http://127.0.0.1:5997/cb"] }],
  budget: { requestsPerMinute: 30, userShare: 1 },
  types: { team: {} },
};

describe.if(testEngine === "postgres")("three replicas on PostgreSQL behind HAProxy", () => {
  beforeAll(async () => {
    stack = await startStack({ env: { ADMIN_TOKEN: "cluster-token" } });
    const apps: AppsFile = { apps: [...stack.apps.apps, METERED] };
    const appsFile = join(stack.dataDir, "cluster-apps.json");
    writeFileSync(appsFile, JSON.stringify(apps));
    // This process's own gateway on the same database: it signs users of the metered app in.
    local = await createGateway({
      config: loadConfig(stack.env),
      apps: new AppRegistry(apps),
      log: () => {},
    });
    const env = {
      ...(process.env as Record<string, string>),
      ...stack.env,
      GATEWAY_CONFIG: appsFile,
      TRUSTED_PROXIES: "127.0.0.1",
    };
    replicas = await startReplicas(env, 3);
    lb = await startHaproxy([
      { name: "public", servers: replicas.map((r) => r.host) },
      {
        name: "admin",
        servers: replicas.map((r) => r.adminHost),
        checkPorts: replicas.map((r) => r.port),
      },
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.kill()));
    await lb?.stop();
    await local?.close();
    await stack?.stop();
  }, 30_000);

  const cookieOf = async (user: string) => (await signIn(stack, user)).browser.cookieHeader(stack.url);
  const post = (base: string, cookie: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...CSRF, cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const db = () => sql(stack.running.gateway.storage);

  test("round robin over the three replicas, on both listeners", async () => {
    for (const name of ["public", "admin"]) {
      const seen: string[] = [];
      for (let i = 0; i < 9; i++) {
        const res = await fetch(`${lb.urls[name]}${name === "public" ? "/readyz" : "/admin/v1/overview"}`, {
          headers: ADMIN,
        });
        expect(res.status).toBe(200);
        seen.push(res.headers.get("x-replica")!);
      }
      expect(seen.sort()).toEqual(["r1", "r1", "r1", "r2", "r2", "r2", "r3", "r3", "r3"]);
    }
  });

  test("100 joins and 60 invites through the balancer: memberCount +100, exactly 50 pending", async () => {
    const owner = await cookieOf("cl-owner");
    const room = (await (
      await post(lb.urls.public!, owner, "/v1/resources", {
        type: "album",
        name: "cluster room",
      })
    ).json()) as { id: string };
    const joiners = await Promise.all(Array.from({ length: 100 }, (_, i) => cookieOf(`cl-joiner-${i}`)));
    const joins = await Promise.all(
      joiners.map((c) => post(lb.urls.public!, c, `/v1/resources/${room.id}/join`)),
    );
    expect(joins.filter((r) => r.status !== 200).length).toBe(0);
    expect(await db().count("SELECT member_count AS n FROM resources WHERE id = ?", room.id)).toBe(101);
    expect(
      await db().count(
        "SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'active'",
        room.id,
      ),
    ).toBe(101);

    const team = (await (
      await post(lb.urls.public!, owner, "/v1/resources", {
        type: "team",
        name: "cluster team",
      })
    ).json()) as { id: string };
    const invites = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        post(lb.urls.public!, owner, `/v1/resources/${team.id}/invite`, { userId: `cl-invitee-${i}` }),
      ),
    );
    expect(invites.filter((r) => r.status === 200).length).toBe(50);
    expect(invites.filter((r) => r.status === 429).length).toBe(10);
  }, 60_000);

  test("five tabs refreshing through the balancer: one provider call, every tab signed in", async () => {
    const cookie = await cookieOf("cl-tabs");
    const before = stack.idp.calls["token:refresh_token"] ?? 0;
    const tabs = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${lb.urls.public}/auth/refresh`, { method: "POST", headers: { ...CSRF, cookie } }),
      ),
    );
    expect(tabs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((stack.idp.calls["token:refresh_token"] ?? 0) - before).toBe(1);
    expect(new Set(tabs.map((r) => r.headers.get("x-replica"))).size).toBeGreaterThan(1);
  }, 30_000);

  test("an operator's revoke on replica 1 is refused by replica 2 on the very next request", async () => {
    const cookie = await cookieOf("cl-revoked");
    const [a, b] = [replicas[0]!, replicas[1]!];
    expect((await fetch(`${b.url}/v1/me`, { headers: { cookie } })).status).toBe(200);
    const live = (await (
      await fetch(`${a.adminUrl}/admin/v1/sessions?userId=cl-revoked`, { headers: ADMIN })
    ).json()) as {
      sessions: Array<{ id: string }>;
    };
    const revoke = await fetch(`${a.adminUrl}/admin/v1/sessions/${live.sessions[0]!.id}`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(revoke.status).toBe(200);
    expect((await fetch(`${b.url}/v1/me`, { headers: { cookie } })).status).toBe(401);
    expect(await fetch(`${b.url}/auth/session`, { headers: { cookie } }).then((r) => r.json())).toEqual({
      authenticated: false,
      reason: "revoked",
    });
  }, 30_000);

  test("a back-channel logout answered by replica 1 is refused by replicas 2 and 3 on the next request", async () => {
    const { browser } = await signIn(stack, "cl-provider-logout", new Browser(), SECRET_CLIENT_ID);
    const cookie = browser.cookieHeader(stack.url);
    const [a, b, c] = [replicas[0]!, replicas[1]!, replicas[2]!];
    for (const replica of [b, c])
      expect((await fetch(`${replica.url}/v1/me`, { headers: { cookie } })).status).toBe(200);
    const token = await logoutToken("cl-provider-logout");
    const logout = await sendLogout(a, token);
    expect(logout.status).toBe(200);
    for (const replica of [b, c]) {
      expect((await fetch(`${replica.url}/v1/me`, { headers: { cookie } })).status).toBe(401);
      expect(
        await fetch(`${replica.url}/auth/session`, { headers: { cookie } }).then((r) => r.json()),
      ).toEqual({ authenticated: false, reason: "provider_logout" });
    }
    // The same token replayed to another replica is refused there.
    const replay = await sendLogout(b, token);
    expect(replay.status).toBe(400);
  }, 30_000);

  test("a cached bearer token of a subject logged out at replica 1 is refused by every replica within 1 s", async () => {
    const user = "cl-bearer-logout";
    const { at } = await tokensOf(stack, user, SECRET_CLIENT_ID);
    const me = async (replica: Replica) =>
      (await fetch(`${replica.url}/v1/me`, { headers: { authorization: `Bearer ${at}` } })).status;
    for (const replica of replicas) expect(await me(replica)).toBe(200);
    const checks = stack.idp.calls.introspect ?? 0;
    for (const replica of replicas) expect(await me(replica)).toBe(200); // from each replica's cache
    expect(stack.idp.calls.introspect ?? 0).toBe(checks);

    expect((await sendLogout(replicas[0]!, await logoutToken(user))).status).toBe(200);
    const deadline = Date.now() + 1000;
    const answers = await Promise.all(
      replicas.map(async (replica) => {
        let status = await me(replica);
        while (status === 200 && Date.now() < deadline) {
          await Bun.sleep(25);
          status = await me(replica);
        }
        return status;
      }),
    );
    expect(answers).toEqual([401, 401, 401]);
    // Each replica asked the provider again (its grant is revoked), none answered from its cache.
    expect((stack.idp.calls.introspect ?? 0) - checks).toBe(3);
  }, 30_000);

  test("one budget for the app across the replicas: 30 of 90 calls through the balancer", async () => {
    const { sealed } = await local.sessions.start(
      { accessToken: "at", refreshToken: "rt", idToken: undefined, expiresIn: 3600, scope: "openid" },
      "cl-metered",
      "metered-web",
    );
    const cookie = `sg_session=${sealed}`;
    // Away from a minute boundary, so the 90 calls fall in one window.
    if (Date.now() % 60_000 > 55_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 50);
    const replies = await Promise.all(
      Array.from({ length: 90 }, () => fetch(`${lb.urls.public}/v1/resources`, { headers: { cookie } })),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(30);
    expect(statuses.filter((s) => s === 429).length).toBe(60);
  }, 90_000);

  test("the admin stream resumed on another replica with Last-Event-ID: nothing missed, nothing repeated", async () => {
    const owner = await cookieOf("cl-stream");
    const read = async (adminUrl: string, lastEventId: string | undefined, want: number) => {
      const controller = new AbortController();
      const headers: Record<string, string> = { ...ADMIN };
      if (lastEventId) headers["last-event-id"] = lastEventId;
      const res = await fetch(`${adminUrl}/admin/v1/events`, { headers, signal: controller.signal });
      const frames: Array<{ id: string; resourceId: string | null }> = [];
      let text = "";
      const decoder = new TextDecoder();
      const done = (async () => {
        try {
          for await (const chunk of res.body!) {
            text += decoder.decode(chunk, { stream: true });
            for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
              const frame = text.slice(0, end);
              text = text.slice(end + 2);
              const id = /^id: (.*)$/m.exec(frame)?.[1];
              const data = /^data: (.*)$/m.exec(frame)?.[1];
              if (id && data) frames.push({ id, resourceId: JSON.parse(data).resourceId });
            }
          }
        } catch {}
      })();
      return {
        frames,
        async until(count: number) {
          for (let i = 0; i < 300 && frames.length < count; i++) await Bun.sleep(20);
          await Bun.sleep(want > 0 ? 1200 : 0); // past a sweep: anything repeated would show
          controller.abort();
          await done;
          return frames;
        },
      };
    };
    const create = async (name: string) =>
      (
        (await (await post(lb.urls.public!, owner, "/v1/resources", { type: "team", name })).json()) as {
          id: string;
        }
      ).id;

    const first = await read(replicas[0]!.adminUrl, undefined, 1);
    await Bun.sleep(100);
    const a = await create("stream a");
    const [seen] = (await first.until(1)).filter((f) => f.resourceId === a);
    expect(seen).toBeDefined();
    const missed = [await create("stream b"), await create("stream c"), await create("stream d")];
    const resumed = await read(replicas[2]!.adminUrl, seen!.id, 3);
    const frames = await resumed.until(3);
    expect(frames.map((f) => f.resourceId).filter((id) => id !== null)).toEqual(missed);
  }, 30_000);

  test("kill -9 of a replica under write load: no acknowledged write lost, nothing half-applied, no 5xx after", async () => {
    const owner = await cookieOf("cl-kill");
    const acknowledged: string[] = [];
    let failed = 0;
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const res = await post(lb.urls.public!, owner, "/v1/resources", {
          type: "team",
          name: `kill ${w}-${i}`,
        }).catch(() => undefined);
        if (res?.status === 200) acknowledged.push(((await res.json()) as { id: string }).id);
        else failed++;
      }
    };
    const writers = Promise.all([0, 1, 2, 3].map(writer));
    await Bun.sleep(400);
    await replicas[1]!.kill();
    await Bun.sleep(800); // the balancer's checks (every 200 ms, 2 failures) take it out
    writing = false;
    await writers;
    expect(acknowledged.length).toBeGreaterThan(20);
    // Every acknowledged create is whole: the row, its owner's membership, member_count 1, its event.
    for (const id of acknowledged) {
      const row = await db().get("SELECT member_count FROM resources WHERE id = ?", id);
      expect([id, row]).toEqual([id, { member_count: 1 }]);
      expect(
        await db().count("SELECT count(*) AS n FROM members WHERE resource_id = ? AND role = 'owner'", id),
      ).toBe(1);
      expect(
        await db().count(
          "SELECT count(*) AS n FROM events WHERE resource_id = ? AND type = 'resource.created'",
          id,
        ),
      ).toBe(1);
    }
    // No create was applied twice (each name was sent once): the balancer re-sends no write.
    expect(
      await db().all(
        "SELECT name FROM resources WHERE owner_id = 'cl-kill' GROUP BY name HAVING count(*) > 1",
      ),
    ).toEqual([]);
    // No resource of this owner exists half-made (a row without its owner membership).
    expect(
      await db().count(
        `SELECT count(*) AS n FROM resources r WHERE r.owner_id = 'cl-kill'
         AND NOT EXISTS (SELECT 1 FROM members m WHERE m.resource_id = r.id AND m.role = 'owner')`,
      ),
    ).toBe(0);
    // The other two keep serving: nothing but 200 once the balancer has noticed.
    const after = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${lb.urls.public}/v1/resources`, { headers: { cookie: owner } }),
      ),
    );
    expect(after.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(failed).toBeLessThan(10);
  }, 60_000);
});

/** A logout token for `sub` as the provider signs it for the confidential client (its secret, HS256). */
async function logoutToken(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub, jti: crypto.randomUUID(), events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(stack.idp.issuer)
    .setAudience(SECRET_CLIENT_ID)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .sign(new TextEncoder().encode(CLIENT_SECRET));
}

const sendLogout = (replica: Replica, token: string) =>
  fetch(`${replica.url}/auth/backchannel-logout`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ logout_token: token }).toString(),
  });
