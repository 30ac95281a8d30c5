/**
 * `bun run bench`: load on loopback with wrk (pinned to core 0) against servers pinned to core 1, each
 * scenario next to a bare Bun.serve answering the same JSON in the same run, rounds interleaved so
 * machine drift hits every row alike. Prints requests/s, p50 and p99 at 32 connections and the ratio.
 * The gateway runs on a database seeded with 100,000 resources and 1,000,000 memberships.
 *
 *   BENCH_ROUNDS (3)  BENCH_SECONDS (2)  BENCH_CONNECTIONS (32)  BENCH_ONLY (substrings of scenario names, separated by "|")
 *   BENCH_PROFILE=DIR: the gateway writes a CPU profile (Markdown) into DIR when it stops
 */
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeCursor } from "../src/server/resources/views.ts";
import { freePort } from "../tests/helpers/stack.ts";
import { tempDir } from "../tests/helpers/temp.ts";
import {
  BENCH_APP,
  BENCH_CLIENT,
  benchProvider,
  cpuMs,
  median,
  pinned,
  printTable,
  rssMiB,
  signInMany,
} from "./kit.ts";
import { seedResources } from "./seed-resources.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY;
const SERVER_CPU = "1";
const LOAD_CPU = "0";
const root = join(import.meta.dir, "..");
const APP = BENCH_APP;
/** Signed-in users: USERS bearer tokens (and resources they are members of), the first SESSIONS cookies. */
const USERS = 200;
const SESSIONS = 50;
const PROFILE = process.env.BENCH_PROFILE;

await ensureWrk();
// Removed when the run ends (the seeded database is about 200 MB).
const dir = tempDir("sg-bench-");

// 1. The seeded database, plus the bench user as a member of the 50-member resource.
const dbPath = join(dir, "gateway.db");
const seeded = await seedResources({ path: dbPath, appId: APP });
console.log(`seeded 100,000 resources and 1,000,000 memberships in ${seeded.seconds.toFixed(1)} s`);
const pairs = [...new Map(seeded.sampleMemberships.map((m) => [m.userId, m.resourceId])).entries()].slice(
  0,
  USERS,
);
const USER = pairs[0]![0];
const raw = new Database(dbPath);
raw.run(
  "INSERT INTO members (resource_id, user_id, app_id, role, state, created_at, updated_at) VALUES (?, ?, ?, 'writer', 'active', 0, 0)",
  [seeded.bigResourceId, USER, APP],
);
raw.run("UPDATE resources SET member_count = member_count + 1 WHERE id = ?", [seeded.bigResourceId]);
const cursorAt = (where: string, offset: number) => {
  const row = raw
    .query(
      `SELECT created_at AS createdAt, id FROM resources WHERE app_id = ? AND discoverable = 1 ${where} ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`,
    )
    .get(APP, offset - 1) as { createdAt: number; id: string };
  return encodeURIComponent(encodeCursor(row));
};
const deepCursor = cursorAt("", 10_000);
const deepQueryCursor = cursorAt("AND name LIKE '%alpha%'", 10_000);
raw.close();

// 2. The identity provider (in this process, idle during runs: validations are cached) and the servers.
const gatewayPort = freePort();
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const adminApiKey = "bench-admin-key";
const { idp, redirectUri, appsFile } = await benchProvider(dir, gatewayUrl, adminApiKey);
const sessionSecret = "bench-session-secret-0123456789abcdef";

async function startServer(command: string[], env: Record<string, string>, url: string) {
  const proc = Bun.spawn(pinned(command, SERVER_CPU), {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 400; i++) {
    try {
      await fetch(`${url}/healthz`);
      // `taskset` execs the command: its pid is the server's.
      return { url, pid: proc.pid, stop: () => proc.kill(), exited: proc.exited };
    } catch {
      await Bun.sleep(50);
    }
  }
  proc.kill();
  throw new Error(`server did not start: ${command.join(" ")}`);
}

const barePort = freePort();
const bare = await startServer(
  ["bun", "bench/servers/bare.ts"],
  { PORT: String(barePort) },
  `http://127.0.0.1:${barePort}`,
);
const floorPort = freePort();
const floor = await startServer(
  ["bun", "bench/servers/floor.ts"],
  { PORT: String(floorPort) },
  `http://127.0.0.1:${floorPort}`,
);
const gateway = await startServer(
  ["bun", ...(PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${PROFILE}`] : []), "src/server/main.ts", "serve"],
  {
    PORT: String(gatewayPort),
    ADMIN_PORT: String(freePort()),
    DATABASE_PATH: dbPath,
    GATEWAY_CONFIG: appsFile,
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_API_KEY: adminApiKey,
    COOKIE_SECURE: "false",
    SESSION_SECRET: sessionSecret,
  },
  gatewayUrl,
);

// However the run ends, no server outlives it.
process.on("exit", () => {
  gateway.stop();
  floor.stop();
  bare.stop();
});

// 3. Real sign-ins (the authorization code flow through the gateway) of 200 seeded users, each an active
// member of one resource: 50 of their cookies rotate on /auth/session, their 200 bearer tokens on
// /v1/me and on the read of their resource; the 200 join and leave one public resource.
const signedIn = await signInMany(
  { url: gatewayUrl, idp, redirectUri },
  BENCH_CLIENT,
  sessionSecret,
  pairs.map(([user]) => user),
);
console.log(`signed in ${signedIn.length} users`);
const requestsFile = (name: string, lines: Array<[string, string, string, string]>) => {
  const path = join(dir, `${name}.txt`);
  writeFileSync(path, lines.map((l) => l.join("\t")).join("\n"));
  return path;
};
const sessionRequests = requestsFile(
  "sessions",
  signedIn.slice(0, SESSIONS).map((c) => ["GET", "/auth/session", "cookie", c.cookie]),
);
const meRequests = requestsFile(
  "me",
  signedIn.map((c) => ["GET", "/v1/me", "authorization", c.bearer]),
);
const readRequests = requestsFile(
  "reads",
  signedIn.map((c, i) => ["GET", `/v1/resources/${pairs[i]![1]}`, "authorization", c.bearer]),
);
const joinResource = seeded.joinTargets[0]!;
const joinUsers = join(dir, "join-users.txt");
writeFileSync(joinUsers, signedIn.map((c) => `/v1/resources/${joinResource}\t${c.bearer}`).join("\n"));
// The roster and browse rows' caller: USER, a member of the 51-member resource.
const bearer = { authorization: signedIn[0]!.bearer };

interface Scenario {
  name: string;
  url: string;
  headers?: Record<string, string>;
  script?: string;
  args?: string[];
  /** Overrides BENCH_CONNECTIONS (1 = the latency of one request at a time). */
  connections?: number;
  expect: string;
  /** The server measured, when not the gateway. */
  server?: typeof bare;
}
const browse = `${gatewayUrl}/v1/resources/browse?type=album&limit=20`;
const scenarios: Scenario[] = [
  {
    name: "bare Bun.serve, same JSON (baseline)",
    url: `${bare.url}/`,
    expect: '"authenticated":true',
    server: bare,
  },
  {
    // The gateway's request wrapper and answer headers around the same JSON, under /v1/me's requests.
    name: "plumbing floor: same JSON, every answer's work",
    url: floor.url,
    script: "bench/lua/requests.lua",
    args: [meRequests],
    expect: '"authenticated":true',
    server: floor,
  },
  {
    name: "GET /auth/session, 50 cookies rotating",
    url: gatewayUrl,
    script: "bench/lua/requests.lua",
    args: [sessionRequests],
    expect: '"authenticated":true',
  },
  {
    name: "GET /v1/me, 200 bearer tokens rotating",
    url: gatewayUrl,
    script: "bench/lua/requests.lua",
    args: [meRequests],
    expect: '"via":"bearer"',
  },
  {
    name: "GET /v1/resources/:id, 200 token/resource pairs",
    url: gatewayUrl,
    script: "bench/lua/requests.lua",
    args: [readRequests],
    expect: "memberCount",
  },
  {
    name: "GET /v1/resources/:id/members (51), bearer",
    url: `${gatewayUrl}/v1/resources/${seeded.bigResourceId}/members`,
    headers: bearer,
    expect: '"state":"active"',
  },
  { name: "browse page 1", url: browse, headers: bearer, expect: "nextCursor" },
  {
    name: "browse 10,000 rows deep",
    url: `${browse}&cursor=${deepCursor}`,
    headers: bearer,
    expect: "nextCursor",
  },
  {
    name: "browse page 1, query common (25%)",
    url: `${browse}&query=alpha`,
    headers: bearer,
    expect: "alpha",
  },
  {
    name: "browse 10,000 matches deep, query common",
    url: `${browse}&query=alpha&cursor=${deepQueryCursor}`,
    headers: bearer,
    expect: "alpha",
  },
  {
    name: "browse page 1, query rare (20 in 100k)",
    url: `${browse}&query=quokka`,
    headers: bearer,
    expect: "quokka",
  },
  {
    name: "browse page 1, query rare, 1 connection",
    url: `${browse}&query=quokka`,
    headers: bearer,
    connections: 1,
    expect: "quokka",
  },
  {
    name: "join/leave, 200 users on one resource",
    url: gatewayUrl,
    script: "bench/lua/join-leave-users.lua",
    args: [joinUsers],
    expect: "",
  },
].filter((s, i) => i === 0 || !ONLY || ONLY.split("|").some((part) => s.name.includes(part)));

/** What a scenario's first request is (its URL and headers), to check the answer before measuring. */
function firstRequest(scenario: Scenario): { url: string; headers?: Record<string, string> } | undefined {
  if (scenario.script !== "bench/lua/requests.lua") return scenario.script ? undefined : scenario;
  const [, path, name, value] = readFileSync(scenario.args![0]!, "utf8").split("\n")[0]!.split("\t");
  return { url: `${scenario.url}${path}`, headers: { [name!]: value! } };
}
for (const scenario of scenarios) {
  const first = firstRequest(scenario);
  if (!first) continue;
  const text = await (await fetch(first.url, { headers: first.headers })).text();
  if (!text.includes(scenario.expect))
    throw new Error(`${scenario.name}: unexpected answer ${text.slice(0, 300)}`);
}

const results = new Map<string, WrkResult[]>();
const rss = new Map<string, number>();
/** The server's CPU time per request in µs, each round (steal and the load generator do not count). */
const cpu = new Map<string, number[]>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const scenario of scenarios) {
    const options = {
      url: scenario.url,
      connections: scenario.connections ?? CONNECTIONS,
      headers: scenario.headers,
      script: scenario.script,
      args: scenario.args,
      cpu: LOAD_CPU,
    };
    // A warm-up in the first round only: the JIT and the caches stay warm across rounds.
    if (round === 1) await runWrk({ ...options, seconds: 1 });
    const { pid } = scenario.server ?? gateway;
    const cpuBefore = cpuMs(pid);
    const result = await runWrk({ ...options, seconds: SECONDS });
    cpu.set(scenario.name, [
      ...(cpu.get(scenario.name) ?? []),
      ((cpuMs(pid) - cpuBefore) * 1000) / result.requests,
    ]);
    if (result.non2xx > 0 || result.errors)
      console.warn(`  ${scenario.name}: ${result.non2xx} non-2xx ${result.errors}`);
    results.set(scenario.name, [...(results.get(scenario.name) ?? []), result]);
    rss.set(scenario.name, Math.max(rss.get(scenario.name) ?? 0, rssMiB(pid)));
    console.log(`  round ${round}/${ROUNDS} ${scenario.name}: ${Math.round(result.rps)} req/s`);
  }
}
const busy = await fetch(`${gatewayUrl}/healthz`).then((r) => r.ok);
gateway.stop();
floor.stop();
bare.stop();
await gateway.exited;
await idp.stop();

// The join/leave rows must leave the member count exact.
const check = new Database(dbPath, { readonly: true });
const counted = check
  .query(
    "SELECT r.member_count AS stored, (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.state = 'active') AS active FROM resources r WHERE r.id = ?",
  )
  .get(joinResource) as { stored: number; active: number };
check.close();

const baseline = median(results.get(scenarios[0]!.name)!.map((r) => r.rps));
const rows = scenarios.map((scenario) => {
  const runs = results.get(scenario.name)!;
  const rps = median(runs.map((r) => r.rps));
  return [
    scenario.name,
    Math.round(rps).toLocaleString("en-US"),
    median(runs.map((r) => r.p50)).toFixed(2),
    median(runs.map((r) => r.p99)).toFixed(2),
    (rps / baseline).toFixed(2),
    median(cpu.get(scenario.name)!).toFixed(1),
    String(runs.reduce((n, r) => n + r.non2xx, 0)),
    rss.get(scenario.name)!.toFixed(0),
  ];
});
console.log(
  `\nwrk -t1 -c${CONNECTIONS} (unless named) -d${SECONDS}s, median of ${ROUNDS} interleaved rounds, servers on core ${SERVER_CPU}, wrk on core ${LOAD_CPU}; RSS = the server's, most after a run\n`,
);
printTable(
  ["scenario", "req/s", "p50 ms", "p99 ms", "ratio to bare", "CPU µs/req", "non-2xx", "RSS MiB"],
  rows,
);
console.log(
  `\njoin/leave resource: member_count ${counted.stored}, active members ${counted.active} (${counted.stored === counted.active ? "exact" : "WRONG"})`,
);
if (!busy) console.warn("the gateway stopped answering during the run");
process.exit(0);
