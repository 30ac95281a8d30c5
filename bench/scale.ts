/**
 * `bun run bench` (second part): the gateway as several processes. SQLite with 1 and 2 workers
 * (`serve --workers 2`, one port), PostgreSQL with 1 replica and with 3 replicas behind HAProxy; each
 * next to a bare Bun.serve with as many processes in the same place (alone, sharing one port, or
 * three behind the same HAProxy). Rows: cookie session, bearer read of a resource, join/leave writes.
 *
 * On this 2-core machine throughput cannot grow with processes; what the table shows is the cost:
 * the servers' CPU per request (user + system time of every gateway process, from /proc, divided by
 * the requests served). wrk and HAProxy run on core 0, the servers on core 1; PostgreSQL runs where
 * the kernel puts it and is not counted.
 *
 *   BENCH_SECONDS (3)  BENCH_CONNECTIONS (32)  BENCH_ONLY (substring of set-up names)
 *   BENCH_PROFILE=DIR: the gateway processes write a CPU profile (Markdown) into DIR when they stop
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDevIdp } from "../src/devidp/index.ts";
import { startHaproxy } from "../tests/helpers/haproxy.ts";
import { startPostgres } from "../tests/helpers/postgres.ts";
import { waitReady } from "../tests/helpers/ready.ts";
import { freePort, tempDir } from "../tests/helpers/stack.ts";
import { type Credentials, cpuMsOf, pinned, printTable, signInMany, withChildren } from "./kit.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TARGETS = 1000;
const root = join(import.meta.dir, "..");
const dir = tempDir("sg-scale-");
const REDIRECT = "http://127.0.0.1:5996/callback";
const SECRET = "bench-scale-secret-0123456789abcdef";
const PROFILE = process.env.BENCH_PROFILE;
const profileFlags = PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${PROFILE}`] : [];

await ensureWrk();
const idp = await startDevIdp({
  clients: [{ clientId: "bench-web", redirectUris: [REDIRECT] }],
  consentUrl: "http://127.0.0.1:1/auth/consent",
  adminApiKey: "bench-key",
  quiet: true,
});
const appsFile = join(dir, "apps.json");
writeFileSync(
  appsFile,
  JSON.stringify({
    apps: [
      {
        id: "bench",
        clients: [{ clientId: "bench-web", redirectUris: [REDIRECT] }],
        types: { album: { visibility: "discoverable" } },
      },
    ],
  }),
);
const pg = await startPostgres();

interface Setup {
  name: string;
  url: string;
  pids: () => number[];
  stop(): Promise<void>;
}

async function gatewaySetup(
  name: string,
  database: Record<string, string>,
  replicas: number,
  workers: number,
): Promise<Setup> {
  const env = {
    ...(process.env as Record<string, string>),
    ...database,
    GATEWAY_CONFIG: appsFile,
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_API_KEY: "bench-key",
    COOKIE_SECURE: "false",
    SESSION_SECRET: SECRET,
  };
  const procs: Array<ReturnType<typeof Bun.spawn>> = [];
  const urls: string[] = [];
  for (let i = 0; i < replicas; i++) {
    const port = freePort();
    const args = workers > 1 ? ["--workers", String(workers)] : [];
    procs.push(
      Bun.spawn(pinned(["bun", ...profileFlags, "src/server/main.ts", "serve", ...args], "1"), {
        cwd: root,
        env: { ...env, PORT: String(port), ADMIN_PORT: String(freePort()) },
        stdout: "ignore",
        stderr: "inherit",
      }),
    );
    urls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(urls.map((url) => waitReady(url)));
  const lb =
    replicas > 1
      ? await startHaproxy([{ name: "public", servers: urls.map((u) => new URL(u).host) }])
      : undefined;
  return {
    name,
    url: lb?.urls.public ?? urls[0]!,
    // `taskset` execs the command: its pid is the server's (or the --workers supervisor's).
    pids: () => procs.flatMap((p) => withChildren(p.pid)),
    async stop() {
      await lb?.stop();
      for (const p of procs) p.kill("SIGTERM");
      await Promise.all(procs.map((p) => p.exited));
    },
  };
}

async function bareSetup(name: string, processes: number, behindHaproxy: boolean): Promise<Setup> {
  const procs: Array<ReturnType<typeof Bun.spawn>> = [];
  const ports = behindHaproxy ? Array.from({ length: processes }, () => freePort()) : [freePort()];
  for (let i = 0; i < processes; i++) {
    const port = behindHaproxy ? ports[i]! : ports[0]!;
    procs.push(
      Bun.spawn(pinned(["bun", "bench/servers/bare.ts"], "1"), {
        cwd: root,
        env: { ...process.env, PORT: String(port), BARE_REUSE_PORT: behindHaproxy ? "0" : "1" },
        stdout: "ignore",
        stderr: "inherit",
      }),
    );
  }
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  for (const url of urls)
    for (
      let i = 0;
      i < 200 &&
      !(await fetch(url).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    )
      await Bun.sleep(25);
  // The bare server answers every path, /readyz included.
  const lb = behindHaproxy
    ? await startHaproxy([{ name: "public", servers: urls.map((u) => new URL(u).host) }])
    : undefined;
  return {
    name,
    url: lb?.urls.public ?? urls[0]!,
    pids: () => procs.map((p) => p.pid),
    async stop() {
      await lb?.stop();
      for (const p of procs) p.kill();
      await Promise.all(procs.map((p) => p.exited));
    },
  };
}

/** A cookie and a bearer token of a signed-in user, and `TARGETS` discoverable resources to join. */
async function prepare(url: string) {
  const [user, owner] = (await signInMany({ url, idp, redirectUri: REDIRECT }, "bench-web", SECRET, [
    "bench-user",
    "bench-owner",
  ])) as [Credentials, Credentials];
  const ids: string[] = [];
  for (let i = 0; i < TARGETS; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        fetch(`${url}/v1/resources`, {
          method: "POST",
          headers: { authorization: owner.bearer, "content-type": "application/json" },
          body: JSON.stringify({ type: "album", name: `target ${i + k}` }),
        }).then((r) => r.json() as Promise<{ id: string }>),
      ),
    );
    ids.push(...batch.map((r) => r.id));
  }
  const targets = join(dir, `targets-${Date.now()}.txt`);
  writeFileSync(targets, ids.join("\n"));
  const paths = join(dir, `paths-${Date.now()}.txt`);
  writeFileSync(paths, ids.map((id) => `/v1/resources/${id}`).join("\n"));
  return { user, targets, paths };
}

interface Row {
  setup: string;
  scenario: string;
  rps: number;
  p99: number;
  cpuUs: number;
  non2xx: number;
}
const rows: Row[] = [];

async function measure(
  setup: Setup,
  scenario: string,
  options: Omit<Parameters<typeof runWrk>[0], "seconds" | "connections" | "cpu">,
) {
  const base = { ...options, connections: CONNECTIONS, cpu: "0" };
  await runWrk({ ...base, seconds: 1 });
  const pids = setup.pids();
  const before = cpuMsOf(pids);
  const result = await runWrk({ ...base, seconds: SECONDS });
  const ms = cpuMsOf(pids) - before;
  const requests = result.rps * SECONDS;
  rows.push({
    setup: setup.name,
    scenario,
    rps: result.rps,
    p99: result.p99,
    cpuUs: requests > 0 ? (ms * 1000) / requests : Number.NaN,
    non2xx: result.non2xx,
  });
  console.log(
    `  ${setup.name} / ${scenario}: ${Math.round(result.rps)} req/s, ${result.non2xx} non-2xx ${result.errors}`,
  );
}

async function gatewayRows(setup: Setup) {
  const { user, targets, paths } = await prepare(setup.url);
  await measure(setup, "GET /auth/session, cookie", {
    url: `${setup.url}/auth/session`,
    headers: { cookie: user.cookie },
  });
  await measure(setup, "GET /v1/resources/:id, bearer", {
    url: setup.url,
    headers: { authorization: user.bearer },
    script: "bench/lua/paths.lua",
    args: [paths],
  });
  await measure(setup, "join/leave writes, bearer", {
    url: setup.url,
    headers: { authorization: user.bearer },
    script: "bench/lua/join-leave.lua",
    args: [targets],
  });
}

const setupNames = [
  "bare, 1 process",
  "SQLite, 1 process",
  "bare, 2 processes, one port",
  "SQLite, --workers 2",
  "PostgreSQL, 1 replica",
  "bare, 3 behind HAProxy",
  "PostgreSQL, 3 replicas, HAProxy",
];
const plans: Array<() => Promise<Setup>> = [
  () => bareSetup("bare, 1 process", 1, false),
  () => gatewaySetup("SQLite, 1 process", { DATABASE_PATH: join(dir, "one.db") }, 1, 1),
  () => bareSetup("bare, 2 processes, one port", 2, false),
  () => gatewaySetup("SQLite, --workers 2", { DATABASE_PATH: join(dir, "two.db") }, 1, 2),
  async () => gatewaySetup("PostgreSQL, 1 replica", { DATABASE_URL: await pg.createDatabase("b1") }, 1, 1),
  () => bareSetup("bare, 3 behind HAProxy", 3, true),
  async () =>
    gatewaySetup("PostgreSQL, 3 replicas, HAProxy", { DATABASE_URL: await pg.createDatabase("b3") }, 3, 1),
];
const ONLY = process.env.BENCH_ONLY;
for (const [i, plan] of plans.entries()) {
  if (ONLY && !setupNames[i]!.includes(ONLY)) continue;
  const setup = await plan();
  try {
    if (setup.name.startsWith("bare")) await measure(setup, "same JSON (baseline)", { url: `${setup.url}/` });
    else await gatewayRows(setup);
  } finally {
    await setup.stop();
  }
}
await idp.stop();
pg.stop();

const header = ["set-up", "scenario", "req/s", "p99 ms", "server CPU µs/req", "non-2xx"];
const cells = rows.map((r) => [
  r.setup,
  r.scenario,
  Math.round(r.rps).toLocaleString("en-US"),
  r.p99.toFixed(2),
  Number.isFinite(r.cpuUs) ? r.cpuUs.toFixed(0) : "-",
  String(r.non2xx),
]);
console.log(
  `\nwrk -t1 -c${CONNECTIONS} -d${SECONDS}s; servers on core 1, wrk and HAProxy on core 0; CPU = the gateway (or bare) processes only\n`,
);
printTable(header, cells, 2);
process.exit(0);
