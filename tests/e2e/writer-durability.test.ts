/**
 * `kill -9` in the middle of a write storm: the gateway runs as its own process (`main.ts serve`), 32
 * users each send one write after another (joins and leaves of shared resources, new resources), so the
 * writer commits them in batches (group commit), and the process is killed without warning while writes
 * are in flight. A new process on the same database must then hold every write that was answered 2xx
 * (an answer goes out only after its batch's COMMIT), and nothing half-applied: every resource's
 * member_count equals its active roster, every created resource has its owner and its audit event, and
 * each user's membership is what its last answered write made it (or what its one unanswered write in
 * flight at the kill would have made it).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppRegistry } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway, type Gateway } from "../../src/server/gateway.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { waitReady } from "../helpers/ready.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const CLIENT = "durable-web";
const APPS: AppsFile = {
  apps: [
    {
      id: "durable",
      clients: [{ clientId: CLIENT, redirectUris: ["http://127.0.0.1:5999/callback"] }],
      types: { room: { visibility: "discoverable" } },
    },
  ],
};
const USERS = 32;
const SHARED = 8;

const dir = tempDir();
const port = freePort();
const url = `http://127.0.0.1:${port}`;
const env = {
  ...(process.env as Record<string, string>),
  ...(await databaseEnv(dir, "gateway.db")),
  GATEWAY_CONFIG: join(dir, "apps.json"),
  COOKIE_SECURE: "false",
  PORT: String(port),
  ADMIN_PORT: String(freePort()),
};
let child: ReturnType<typeof Bun.spawn> | undefined;
/** This process's own connection: it signs users in (sessions are rows) and reads the state afterwards. */
let local: Gateway;

async function serve(): Promise<void> {
  child = Bun.spawn(["bun", "src/server/main.ts", "serve"], { env, stdout: "ignore", stderr: "inherit" });
  await waitReady(url, "/healthz");
}

beforeAll(async () => {
  writeFileSync(env.GATEWAY_CONFIG, JSON.stringify(APPS));
  local = await createGateway({ config: loadConfig(env), apps: new AppRegistry(APPS), log: () => {} });
  await serve();
}, 30_000);
afterAll(async () => {
  child?.kill(9);
  await local?.close();
}, 30_000);

async function headers(user: string): Promise<Record<string, string>> {
  const { sealed } = await local.sessions.start(
    {
      accessToken: `at-${user}`,
      refreshToken: `rt-${user}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    user,
    CLIENT,
  );
  return { cookie: `sg_session=${sealed}`, "x-service-csrf": "1", "content-type": "application/json" };
}

type Op = { kind: "join" | "leave"; resource: string } | { kind: "create"; name: string };
interface Sent {
  user: string;
  op: Op;
  /** The created resource's id, for a create answered 2xx. */
  id?: string;
  answered: boolean;
}

test("kill -9 during a write storm: every answered write survives, and no batch is half-applied", async () => {
  const owner = await headers("durable-owner");
  const shared: string[] = [];
  for (let i = 0; i < SHARED; i++) {
    const created = await fetch(`${url}/v1/resources`, {
      method: "POST",
      headers: owner,
      body: JSON.stringify({ type: "room", name: `shared ${i}` }),
    });
    expect(created.status).toBe(200);
    shared.push(((await created.json()) as { id: string }).id);
  }
  const users = Array.from({ length: USERS }, (_, i) => `durable-${i}`);
  const userHeaders = await Promise.all(users.map(headers));

  const sent: Sent[] = [];
  const refused: string[] = [];
  let killed = false;
  let answered = 0;
  let inFlight = 0;
  // Each user sends one write at a time: what it sent last is all that can be unanswered at the kill.
  const storm = users.map(async (user, u) => {
    const member = new Set<string>();
    for (let n = 0; !killed; n++) {
      const resource = shared[(u + n * 3) % SHARED]!;
      const op: Op =
        n % 5 === 4
          ? { kind: "create", name: `${user} room ${n}` }
          : { kind: member.has(resource) ? "leave" : "join", resource };
      const entry: Sent = { user, op, answered: false };
      sent.push(entry);
      inFlight++;
      try {
        const response = await fetch(
          op.kind === "create" ? `${url}/v1/resources` : `${url}/v1/resources/${op.resource}/${op.kind}`,
          {
            method: "POST",
            headers: userHeaders[u],
            body: op.kind === "create" ? JSON.stringify({ type: "room", name: op.name }) : undefined,
          },
        );
        const body = (await response.json()) as { id?: string };
        if (response.status !== 200) {
          refused.push(`${user} ${op.kind}: ${response.status} ${JSON.stringify(body)}`);
          return;
        }
        entry.answered = true;
        answered++;
        if (op.kind === "create") entry.id = body.id;
        else if (op.kind === "join") member.add(op.resource);
        else member.delete(op.resource);
      } catch {
        return; // the process is gone: this write was never answered
      } finally {
        inFlight--;
      }
    }
  });
  for (let i = 0; i < 1000 && answered < 600 && refused.length === 0; i++) await Bun.sleep(5);
  const inFlightAtKill = inFlight;
  killed = true;
  child!.kill(9);
  await Promise.all(storm);
  await child!.exited;
  expect(refused).toEqual([]);
  expect(answered).toBeGreaterThanOrEqual(600);
  expect(inFlightAtKill).toBeGreaterThan(0);

  await serve(); // a new process on the same database
  const db = sql(local.storage);

  // Every answered create: the resource, its owner's membership and its audit event.
  const creates = sent.filter((s) => s.op.kind === "create" && s.answered);
  expect(creates.length).toBeGreaterThan(0);
  for (const { id, user } of creates) {
    const row = await db.get<{ ownerId: string }>(
      "SELECT owner_id AS ownerId FROM resources WHERE id = ?",
      id!,
    );
    expect([id, row?.ownerId]).toEqual([id, user]);
    expect(
      await db.count(
        "SELECT count(*) AS n FROM members WHERE resource_id = ? AND user_id = ? AND role = 'owner' AND state = 'active'",
        id!,
        user,
      ),
    ).toBe(1);
    expect(
      await db.count(
        "SELECT count(*) AS n FROM events WHERE type = 'resource.created' AND resource_id = ?",
        id!,
      ),
    ).toBe(1);
  }

  // Memberships in the shared resources: what the last answered write made them, or the write in flight.
  const rows = await db.all<{ resourceId: string; userId: string; state: string }>(
    "SELECT resource_id AS resourceId, user_id AS userId, state FROM members WHERE resource_id IN (?, ?, ?, ?, ?, ?, ?, ?)",
    ...shared,
  );
  const present = new Set(rows.filter((r) => r.state === "active").map((r) => `${r.resourceId} ${r.userId}`));
  for (const user of users) {
    for (const resource of shared) {
      const writes = sent.filter(
        (s) => s.user === user && s.op.kind !== "create" && s.op.resource === resource,
      );
      const lastAnswered = writes.findLast((s) => s.answered);
      const allowed = new Set<boolean>([lastAnswered?.op.kind === "join"]);
      const last = writes.at(-1);
      if (last && !last.answered) allowed.add(last.op.kind === "join");
      expect([user, resource, allowed.has(present.has(`${resource} ${user}`))]).toEqual([
        user,
        resource,
        true,
      ]);
    }
  }

  // Nothing half-applied: every resource's count is its active roster, every resource has one owner.
  const counts = await db.all<{ id: string; memberCount: number; active: number; owners: number }>(
    `SELECT r.id AS id, r.member_count AS memberCount,
       (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.state = 'active') AS active,
       (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.role = 'owner') AS owners
     FROM resources r WHERE r.app_id = 'durable' AND r.type = 'room'`,
  );
  expect(counts.length).toBeGreaterThanOrEqual(SHARED + creates.length);
  for (const row of counts) {
    expect([row.id, Number(row.memberCount), Number(row.owners)]).toEqual([row.id, Number(row.active), 1]);
  }

  // The new process answers from the same state.
  const seen = await fetch(`${url}/v1/resources/${shared[0]}`, { headers: owner });
  expect(seen.status).toBe(200);
  const active = counts.find((c) => c.id === shared[0])!.active;
  expect(((await seen.json()) as { memberCount: number }).memberCount).toBe(Number(active));
}, 60_000);
