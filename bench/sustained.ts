/**
 * `bun run bench:sustained`: does a PostgreSQL replica's cost per request stay the same the longer it
 * is loaded? One gateway on PostgreSQL (pinned to core 1) takes one unbroken wrk run of cookie
 * checks (`GET /auth/session`, 50 cookies rotating; wrk and PostgreSQL on core 0); every slice the
 * bench reads the gateway's CPU time (/proc) and its count of answered requests (/metrics), and prints
 * the CPU per request of each slice against the first slice. A bare Bun.serve answering the same
 * JSON for one slice, before, is the same-run floor. Flat: the line fitted through the slices rises or
 * falls by at most 15 % from the first slice to the last. The last column is the CPU the rest of the
 * machine used meanwhile: a shared machine's other work shows there, and makes a slice noisy (its CPU
 * per request rises with it).
 *
 * The cost must not grow with the requests served: postgres.js 3.4.9's pool kept a slot per query in
 * the array of its busy connections whenever every connection was busy, and searched that array on
 * every query, so CPU per request rose for as long as the load lasted (patches/postgres@3.4.9.patch).
 * CPU time per request, not throughput, is the figure: the machine may be shared.
 *
 *   BENCH_SUSTAIN_SECONDS (60)  BENCH_SLICE (10)  BENCH_CONNECTIONS (32)
 *   BENCH_ONLY: runs only when "PostgreSQL, sustained" contains it (as `bun run bench` passes it on)
 *   BENCH_PROFILE=DIR: the gateway writes a CPU profile (Markdown) into DIR when it stops
 */
import { join } from "node:path";
import { startPostgres } from "../tests/helpers/postgres.ts";
import { waitReady } from "../tests/helpers/ready.ts";
import { freePort } from "../tests/helpers/stack.ts";
import { tempDir } from "../tests/helpers/temp.ts";
import {
  BENCH_CLIENT,
  benchProvider,
  cpuMs,
  cpuMsOf,
  machineBusyMs,
  pinned,
  printTable,
  rssMiB,
  signInMany,
  withChildren,
} from "./kit.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

const SECONDS = Number(process.env.BENCH_SUSTAIN_SECONDS ?? 60);
const SLICE = Number(process.env.BENCH_SLICE ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROFILE = process.env.BENCH_PROFILE;
/** How far the line fitted through the slices may rise or fall from the first slice to the last. */
const FLAT = 0.15;
const WARM_UP_SECONDS = 5;
const SESSIONS = 50;
const SERVER_CPU = "1";
const LOAD_CPU = "0";
const root = join(import.meta.dir, "..");
const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
const SESSION_SECRET = "bench-session-secret-0123456789abcdef";

const NAME = "PostgreSQL, sustained";
if (process.env.BENCH_ONLY && !NAME.includes(process.env.BENCH_ONLY)) process.exit(0);
if (!(SECONDS >= SLICE && SLICE > 0)) throw new Error("BENCH_SUSTAIN_SECONDS must be at least BENCH_SLICE");
await ensureWrk();
const dir = tempDir("sg-sustained-");
const pg = await startPostgres();
// This cluster's server (found by its port) and its processes run beside wrk, the backends it starts
// later too (they inherit it): core 1 is the gateway's alone.
const postmaster = Number(
  Bun.spawnSync(["pgrep", "-f", `postgres -D .* -p ${pg.port} `])
    .stdout.toString()
    .trim()
    .split("\n")[0],
);
if (!postmaster) throw new Error(`no PostgreSQL server found on port ${pg.port}`);
if (Bun.which("taskset"))
  for (const pid of withChildren(postmaster))
    Bun.spawnSync(["taskset", "-a", "-p", "-c", LOAD_CPU, String(pid)], { stdout: "ignore" });
const gatewayPort = freePort();
const adminPort = freePort();
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const { idp, redirectUri, appsFile } = await benchProvider(dir, gatewayUrl, "bench-admin-key");

function spawnServer(command: string[], env: Record<string, string>) {
  // `taskset` execs the command: the pid is the server's.
  return Bun.spawn(pinned(command, SERVER_CPU), {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
}
const barePort = freePort();
const bare = spawnServer(["bun", "bench/servers/bare.ts"], { PORT: String(barePort) });
const gateway = spawnServer(
  ["bun", ...(PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${PROFILE}`] : []), "src/server/main.ts", "serve"],
  {
    PORT: String(gatewayPort),
    ADMIN_PORT: String(adminPort),
    ADMIN_TOKEN,
    DATABASE_URL: await pg.createDatabase("sustained"),
    GATEWAY_CONFIG: appsFile,
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_API_KEY: "bench-admin-key",
    COOKIE_SECURE: "false",
    SESSION_SECRET,
  },
);
// However the run ends, no server outlives it.
process.on("exit", () => {
  gateway.kill();
  bare.kill();
  pg.stop();
});
await waitReady(`http://127.0.0.1:${barePort}`, "/");
await waitReady(gatewayUrl);

const users = Array.from({ length: SESSIONS }, (_, i) => `sustained-${i}`);
const signedIn = await signInMany({ url: gatewayUrl, idp, redirectUri }, BENCH_CLIENT, SESSION_SECRET, users);
const sessionRequests = join(dir, "sessions.txt");
await Bun.write(sessionRequests, signedIn.map((c) => `GET\t/auth/session\tcookie\t${c.cookie}`).join("\n"));
const check = await fetch(`${gatewayUrl}/auth/session`, { headers: { cookie: signedIn[0]!.cookie } });
if (!(await check.text()).includes('"authenticated":true'))
  throw new Error("the cookie check is not signed in");

/** Requests the gateway has answered so far, by status class ("2xx" and the rest). */
async function answered(): Promise<{ ok: number; other: number }> {
  const res = await fetch(`http://127.0.0.1:${adminPort}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const counts = { ok: 0, other: 0 };
  for (const [, status, n] of (await res.text()).matchAll(
    /^gateway_requests_total\{method="GET",route="\/auth\/session",status="(\d+)"\} (\d+)$/gm,
  ))
    counts[status!.startsWith("2") ? "ok" : "other"] += Number(n);
  return counts;
}

/**
 * How much the least-squares line through equally spaced values rises from the first to the last, as
 * a share of its value at the first: a cost that grows with the load lasting shows here, while one
 * noisy slice (the machine's other work) moves it far less than it moves its own ratio.
 */
function fittedChange(ys: number[]): number {
  const n = ys.length;
  const meanX = (n - 1) / 2;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of ys.entries()) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  const slope = variance > 0 ? covariance / variance : 0;
  const first = meanY - slope * meanX;
  return (slope * (n - 1)) / first;
}

interface Slice {
  name: string;
  rps: number;
  cpuUs: number;
  other: number;
  rss: number;
  /** CPU seconds the rest of the machine used meanwhile (not the gateway, wrk or this PostgreSQL). */
  othersS: number;
}

// 1. The floor: a bare Bun.serve, one slice.
const bareBefore = cpuMs(bare.pid);
const floor = await runWrk({
  url: `http://127.0.0.1:${barePort}/`,
  seconds: SLICE,
  connections: CONNECTIONS,
  cpu: LOAD_CPU,
});
const floorCpuUs = ((cpuMs(bare.pid) - bareBefore) * 1000) / floor.requests;
bare.kill();

// 2. The gateway under one unbroken load, read every slice.
let wrkPid = 0;
const load = runWrk({
  url: gatewayUrl,
  seconds: WARM_UP_SECONDS + SECONDS + 1,
  connections: CONNECTIONS,
  script: "bench/lua/requests.lua",
  args: [sessionRequests],
  cpu: LOAD_CPU,
  started: (pid) => {
    wrkPid = pid;
  },
});
await Bun.sleep(WARM_UP_SECONDS * 1000);
const postgresPids = withChildren(postmaster);
const sample = async () => ({
  at: performance.now(),
  gateway: cpuMs(gateway.pid),
  ours: cpuMs(gateway.pid) + cpuMs(wrkPid) + cpuMsOf(postgresPids),
  machine: machineBusyMs(),
  count: await answered(),
});
const slices: Slice[] = [];
let last = await sample();
for (let t = SLICE; t <= SECONDS; t += SLICE) {
  await Bun.sleep(SLICE * 1000);
  const now = await sample();
  const requests = now.count.ok + now.count.other - last.count.ok - last.count.other;
  slices.push({
    name: `${t - SLICE}–${t} s`,
    rps: requests / ((now.at - last.at) / 1000),
    cpuUs: ((now.gateway - last.gateway) * 1000) / requests,
    other: now.count.other - last.count.other,
    rss: rssMiB(gateway.pid),
    othersS: Math.max(0, now.machine - last.machine - (now.ours - last.ours)) / 1000,
  });
  console.log(`  ${slices.at(-1)!.name}: ${Math.round(slices.at(-1)!.rps)} req/s`);
  last = now;
}
const total = await load;
gateway.kill();
await gateway.exited;
await idp.stop();

const ratios = slices.map((s) => s.cpuUs / slices[0]!.cpuUs);
const trend = fittedChange(slices.map((s) => s.cpuUs));
const flat = Math.abs(trend) <= FLAT;
const row = (
  name: string,
  rps: number,
  us: number,
  ratio: string,
  other: number,
  rss: string,
  others: string,
) => [name, Math.round(rps).toLocaleString("en-US"), us.toFixed(1), ratio, String(other), rss, others];
const cells = [
  row("bare Bun.serve, same JSON (baseline)", floor.rps, floorCpuUs, "-", floor.non2xx, "-", "-"),
  ...slices.map((s) =>
    row(
      `gateway on PostgreSQL, ${s.name}`,
      s.rps,
      s.cpuUs,
      (s.cpuUs / slices[0]!.cpuUs).toFixed(2),
      s.other,
      s.rss.toFixed(0),
      s.othersS.toFixed(1),
    ),
  ),
];
console.log(
  `\nGET /auth/session, ${SESSIONS} cookies rotating: wrk -t1 -c${CONNECTIONS}, one ${SECONDS} s run after ${WARM_UP_SECONDS} s of warm-up, read every ${SLICE} s; servers on core ${SERVER_CPU}, wrk and PostgreSQL on core ${LOAD_CPU}; CPU = the server process (user + system)\n`,
);
printTable(["slice", "req/s", "CPU µs/req", "to first slice", "non-2xx", "RSS MiB", "others' CPU s"], cells);
const percent = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(0)} %`;
console.log(
  `\nCPU per request ${flat ? "flat" : "NOT flat"}: the line through the slices goes ${percent(trend)} from the first to the last (limit ±${FLAT * 100} %); slices at ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} of the first. wrk: ${total.requests} requests, p99 ${total.p99.toFixed(2)} ms, ${total.non2xx} non-2xx ${total.errors}`,
);
process.exit(0);
