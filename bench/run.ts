/**
 * `bun run bench`: load on loopback with wrk (pinned to core 0) against servers pinned to core 1, each
 * scenario next to a bare Bun.serve answering the same JSON in the same run, rounds interleaved so
 * machine drift hits every row alike. Prints requests/s, p50 and p99 at 32 connections and the ratio.
 * The gateway runs on a database seeded with 100,000 resources and 1,000,000 memberships.
 *
 *   BENCH_ROUNDS (2)  BENCH_SECONDS (3)  BENCH_CONNECTIONS (32)  BENCH_ONLY (substring of scenario names)
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevIdp } from "../src/devidp/index.ts";
import { keyringFrom } from "../src/server/auth/keyring.ts";
import { CookieSealer } from "../src/server/auth/seal.ts";
import { encodeCursor } from "../src/server/resources/views.ts";
import { signIn } from "../tests/helpers/stack.ts";
import { seedResources } from "./seed-resources.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY;
const SERVER_CPU = "1";
const LOAD_CPU = "0";
const root = join(import.meta.dir, "..");
const APP = "bench";
const USER = "bench-user";

await ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "sg-bench-"));
const freePort = () => {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
};

// 1. The seeded database, plus the bench user as a member of the 50-member resource.
const dbPath = join(dir, "gateway.db");
const seeded = await seedResources({ path: dbPath, appId: APP });
console.log(`seeded 100,000 resources and 1,000,000 memberships in ${seeded.seconds.toFixed(1)} s`);
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
const redirectUri = `${gatewayUrl}/callback`;
const adminApiKey = "bench-admin-key";
const idp = await startDevIdp({
  clients: [{ clientId: "bench-web", redirectUris: [redirectUri] }],
  consentUrl: `${gatewayUrl}/auth/consent`,
  adminApiKey,
  quiet: true,
});
const appsFile = join(dir, "apps.json");
const types = { album: { visibility: "discoverable" }, team: { visibility: "members" } };
writeFileSync(
  appsFile,
  JSON.stringify({
    apps: [{ id: APP, clients: [{ clientId: "bench-web", redirectUris: [redirectUri] }], types }],
  }),
);
const sessionSecret = "bench-session-secret-0123456789abcdef";

async function startServer(command: string[], env: Record<string, string>, url: string) {
  const pinned = Bun.which("taskset") ? ["taskset", "-c", SERVER_CPU, ...command] : command;
  const proc = Bun.spawn(pinned, {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 400; i++) {
    try {
      await fetch(`${url}/healthz`);
      return { url, stop: () => proc.kill() };
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
const gateway = await startServer(
  ["bun", "src/server/main.ts", "serve"],
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

// 3. A real sign-in gives the cookie; unsealing it (we know the secret) gives the bearer token.
const stackLike = { url: gatewayUrl, idp, redirectUri } as unknown as Parameters<typeof signIn>[0];
const { browser } = await signIn(stackLike, USER, undefined, "bench-web");
const cookie = browser.cookieHeader(gatewayUrl);
const opened = await new CookieSealer(await keyringFrom([sessionSecret], "bench")).unseal(
  cookie.slice(cookie.indexOf("=") + 1),
);
if (!opened) throw new Error("could not unseal the bench session cookie");
const bearer = { authorization: `Bearer ${opened.at}` };
const getPaths = join(dir, "get-paths.txt");
writeFileSync(getPaths, seeded.resourceIds.map((id) => `/v1/resources/${id}`).join("\n"));
const joinTargets = join(dir, "join-targets.txt");
writeFileSync(joinTargets, seeded.joinTargets.join("\n"));

interface Scenario {
  name: string;
  url: string;
  headers?: Record<string, string>;
  script?: string;
  args?: string[];
  /** Overrides BENCH_CONNECTIONS (1 = the latency of one request at a time). */
  connections?: number;
  expect: string;
}
const browse = `${gatewayUrl}/v1/resources/browse?type=album&limit=20`;
const scenarios: Scenario[] = [
  { name: "bare Bun.serve, same JSON (baseline)", url: `${bare.url}/`, expect: USER },
  {
    name: "GET /auth/session, session cookie",
    url: `${gatewayUrl}/auth/session`,
    headers: { cookie },
    expect: `"user_id":"${USER}"`,
  },
  {
    name: "GET /v1/me, bearer via 60 s cache",
    url: `${gatewayUrl}/v1/me`,
    headers: bearer,
    expect: '"via":"bearer"',
  },
  {
    name: "GET /v1/resources/:id (random of 10k), bearer",
    url: gatewayUrl,
    headers: bearer,
    script: "bench/lua/paths.lua",
    args: [getPaths],
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
    name: "join/leave write cycle (POST), bearer",
    url: gatewayUrl,
    headers: bearer,
    script: "bench/lua/join-leave.lua",
    args: [joinTargets],
    expect: "",
  },
].filter((s, i) => i === 0 || !ONLY || s.name.includes(ONLY));

for (const scenario of scenarios) {
  if (scenario.script) continue;
  const text = await (await fetch(scenario.url, { headers: scenario.headers })).text();
  if (!text.includes(scenario.expect))
    throw new Error(`${scenario.name}: unexpected answer ${text.slice(0, 300)}`);
}

const results = new Map<string, WrkResult[]>();
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
    await runWrk({ ...options, seconds: 1 });
    const result = await runWrk({ ...options, seconds: SECONDS });
    if (result.non2xx > 0 || result.errors)
      console.warn(`  ${scenario.name}: ${result.non2xx} non-2xx ${result.errors}`);
    results.set(scenario.name, [...(results.get(scenario.name) ?? []), result]);
    console.log(`  round ${round}/${ROUNDS} ${scenario.name}: ${Math.round(result.rps)} req/s`);
  }
}
const busy = await fetch(`${gatewayUrl}/healthz`).then((r) => r.ok);
gateway.stop();
bare.stop();
await idp.stop();

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
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
    String(runs.reduce((n, r) => n + r.non2xx, 0)),
  ];
});
const header = ["scenario", "req/s", "p50 ms", "p99 ms", "ratio to bare", "non-2xx"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) =>
  `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
console.log(
  `\nwrk -t1 -c${CONNECTIONS} (unless named) -d${SECONDS}s, median of ${ROUNDS} interleaved rounds, servers on core ${SERVER_CPU}, wrk on core ${LOAD_CPU}\n`,
);
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
for (const row of rows) console.log(line(row));
if (!busy) console.warn("the gateway stopped answering during the run");
process.exit(0);
