/**
 * `bun bench/ab.ts <session|me|read|roster|browse|join> <variant> [<variant> …]`: compares gateway variants at the
 * same moment, for deciding whether a change helps. A variant is a tree to run (`@../main-before`, the
 * default `.`) and environment settings (`ACCESS_LOG=false`), space-separated; `""` is this tree as it
 * is. Each variant runs as its own process on its own copy of one small seeded database, all of them
 * and a bare Bun.serve pinned to core 1 together, each loaded by its own wrk on core 0 at the same time:
 * the host's drift, which moves sequential runs on this VM by ±15%, then hits every variant alike.
 * Sharing the core inflates every cost (each process loses its caches to the others), so read the
 * columns against each other, not against `bun run bench`. `browse` reads page 1 of the albums
 * (bearer); `join` has 200 users alternate bodiless joins and leaves of one public resource
 * (bench/lua/join-leave-users.lua), so each round writes. "CPU ratio" is bare's CPU per request
 * over the variant's.
 *
 *   AB_ROUNDS (5)  AB_SECONDS (3)
 */
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
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
  signInMany,
} from "./kit.ts";
import { seedResources } from "./seed-resources.ts";
import { runWrk } from "./wrk.ts";

const [scenario, ...variants] = process.argv.slice(2);
const SCENARIOS = ["session", "me", "read", "roster", "browse", "join"];
if (!SCENARIOS.includes(scenario ?? "") || variants.length === 0) {
  console.error(
    `usage: bun bench/ab.ts <${SCENARIOS.join("|")}> <variant> […]   (variant: "[@DIR] [NAME=VALUE …]")`,
  );
  process.exit(2);
}
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const SECONDS = Number(process.env.AB_SECONDS ?? 3);
const root = join(import.meta.dir, "..");
const dir = tempDir("sg-ab-");
const APP = BENCH_APP;
const secret = "bench-session-secret-0123456789abcdef";

const dbPath = join(dir, "gateway.db");
const seeded = await seedResources({
  path: dbPath,
  appId: APP,
  resources: 5000,
  memberships: 50_000,
  users: 5000,
});
const pairs = [...new Map(seeded.sampleMemberships.map((m) => [m.userId, m.resourceId])).entries()].slice(
  0,
  200,
);
const signerUrl = `http://127.0.0.1:${freePort()}`;
const { idp, redirectUri, appsFile } = await benchProvider(dir, signerUrl, "ab-admin-key");

interface Server {
  name: string;
  url: string;
  pid: number;
  proc: Bun.Subprocess;
}
const servers: Server[] = [];
process.on("exit", () => {
  for (const s of servers) s.proc.kill();
});
async function start(name: string, command: string[], env: Record<string, string>, url: string) {
  const proc = Bun.spawn(pinned(command, "1"), {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "ignore",
  });
  const server = { name, url, pid: proc.pid, proc };
  servers.push(server);
  for (let i = 0; i < 400; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        () => true,
        () => false,
      )
    )
      return server;
    await Bun.sleep(50);
  }
  throw new Error(`${name} did not start`);
}
const words = (variant: string) => variant.split(" ").filter(Boolean);
const gatewayEnv = (variant: string, url: string, database: string) => ({
  PORT: new URL(url).port,
  ADMIN_PORT: String(freePort()),
  DATABASE_PATH: database,
  GATEWAY_CONFIG: appsFile,
  OIDC_ISSUER: idp.issuer,
  IDP_ADMIN_API_KEY: "ab-admin-key",
  COOKIE_SECURE: "false",
  SESSION_SECRET: secret,
  ...Object.fromEntries(
    words(variant)
      .filter((w) => w.includes("="))
      .map((w) => w.split("=", 2) as [string, string]),
  ),
});
const mainOf = (variant: string) =>
  join(
    words(variant)
      .find((w) => w.startsWith("@"))
      ?.slice(1) ?? ".",
    "src/server/main.ts",
  );

// Sign in through a gateway of this tree, then give each variant a copy of the database it left.
const signer = await start(
  "signer",
  ["bun", "src/server/main.ts", "serve"],
  gatewayEnv("", signerUrl, dbPath),
  signerUrl,
);
const signed = await signInMany(
  { url: signerUrl, idp, redirectUri },
  BENCH_CLIENT,
  secret,
  pairs.map(([u]) => u),
);
signer.proc.kill();
await signer.proc.exited;
servers.pop();
const db = new Database(dbPath);
db.run(
  "INSERT INTO members (resource_id, user_id, app_id, role, state, created_at, updated_at) VALUES (?, ?, ?, 'writer', 'active', 0, 0)",
  [seeded.bigResourceId, pairs[0]![0], APP],
);
const barePort = freePort();
await start(
  "bare",
  ["bun", "bench/servers/bare.ts"],
  { PORT: String(barePort) },
  `http://127.0.0.1:${barePort}`,
);
for (const [i, variant] of variants.entries()) {
  const copy = join(dir, `variant-${i}.db`);
  db.run(`VACUUM INTO '${copy}'`);
  const url = `http://127.0.0.1:${freePort()}`;
  await start(
    variant || "(this tree)",
    ["bun", mainOf(variant), "serve"],
    gatewayEnv(variant, url, copy),
    url,
  );
}
db.close();

const lines =
  scenario === "session"
    ? signed.slice(0, 50).map((c) => ["GET", "/auth/session", "cookie", c.cookie])
    : scenario === "me"
      ? signed.map((c) => ["GET", "/v1/me", "authorization", c.bearer])
      : scenario === "read"
        ? signed.map((c, i) => ["GET", `/v1/resources/${pairs[i]![1]}`, "authorization", c.bearer])
        : scenario === "browse"
          ? [["GET", "/v1/resources/browse?type=album&limit=20", "authorization", signed[0]!.bearer]]
          : [["GET", `/v1/resources/${seeded.bigResourceId}/members`, "authorization", signed[0]!.bearer]];
const requests = join(dir, "requests.txt");
writeFileSync(requests, lines.map((l) => l.join("\t")).join("\n"));
const joinUsers = join(dir, "join-users.txt");
const joinResource = seeded.joinTargets[0]!;
writeFileSync(joinUsers, signed.map((c) => `/v1/resources/${joinResource}\t${c.bearer}`).join("\n"));
const load = (s: Server) =>
  s.name === "bare"
    ? { url: `${s.url}/` }
    : scenario === "join"
      ? { url: s.url, script: "bench/lua/join-leave-users.lua", args: [joinUsers] }
      : { url: s.url, script: "bench/lua/requests.lua", args: [requests] };

for (const s of servers) await runWrk({ ...load(s), connections: 32, seconds: 1, cpu: "0" });
const rps = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  const before = servers.map((s) => cpuMs(s.pid));
  const runs = await Promise.all(
    servers.map((s) => runWrk({ ...load(s), connections: 32, seconds: SECONDS, cpu: "0" })),
  );
  servers.forEach((s, i) => {
    const run = runs[i]!;
    if (run.non2xx) console.warn(`${s.name}: ${run.non2xx} non-2xx ${run.errors}`);
    rps.set(s.name, [...(rps.get(s.name) ?? []), run.rps]);
    cpu.set(s.name, [...(cpu.get(s.name) ?? []), ((cpuMs(s.pid) - before[i]!) * 1000) / run.requests]);
  });
}
await idp.stop();

const bareRps = median(rps.get("bare")!);
const bareCpu = median(cpu.get("bare")!);
console.log(`\n${scenario}: ${ROUNDS} rounds of ${SECONDS} s, every server at once on core 1, medians\n`);
printTable(
  ["variant", "req/s", "ratio", "CPU µs/req", "CPU ratio"],
  servers.map((s) => {
    const r = median(rps.get(s.name)!);
    const c = median(cpu.get(s.name)!);
    return [
      s.name,
      Math.round(r).toLocaleString("en-US"),
      (r / bareRps).toFixed(2),
      c.toFixed(1),
      (bareCpu / c).toFixed(2),
    ];
  }),
);
process.exit(0);
