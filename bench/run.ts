/**
 * `bun run bench`: load on loopback with wrk (pinned to core 0) against servers pinned to core 1, each
 * scenario next to a bare Bun.serve answering the same JSON in the same run, rounds interleaved so
 * machine drift hits every row alike. Prints requests/s and p99 at 32 connections and the ratio.
 *
 *   BENCH_ROUNDS (3)  BENCH_SECONDS (5)  BENCH_CONNECTIONS (32)
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevIdp } from "../src/devidp/index.ts";
import { CookieSealer, deriveCookieKey } from "../src/server/auth/seal.ts";
import { signIn } from "../tests/helpers/stack.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SERVER_CPU = "1";
const LOAD_CPU = "0";
const root = join(import.meta.dir, "..");

await ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "sg-bench-"));
const freePort = () => {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
};

// The identity provider lives in this process; it is idle during the runs (validations are cached).
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
writeFileSync(
  appsFile,
  JSON.stringify({
    apps: [{ id: "bench", clients: [{ clientId: "bench-web", redirectUris: [redirectUri] }] }],
  }),
);
const sessionSecret = "bench-session-secret-0123456789abcdef";

interface Server {
  url: string;
  stop(): void;
}

async function startServer(command: string[], env: Record<string, string>, url: string): Promise<Server> {
  const pinned = Bun.which("taskset") ? ["taskset", "-c", SERVER_CPU, ...command] : command;
  const proc = Bun.spawn(pinned, {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 200; i++) {
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
    DATABASE_PATH: join(dir, "gateway.db"),
    GATEWAY_CONFIG: appsFile,
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_API_KEY: adminApiKey,
    COOKIE_SECURE: "false",
    SESSION_SECRET: sessionSecret,
  },
  gatewayUrl,
);

// A real sign-in through the provider and the gateway gives the cookie; unsealing it gives the bearer token.
const stackLike = { url: gatewayUrl, idp, redirectUri } as unknown as Parameters<typeof signIn>[0];
const { browser } = await signIn(stackLike, "bench-user", undefined, "bench-web");
const cookie = browser.cookieHeader(gatewayUrl);
const sealed = cookie.slice(cookie.indexOf("=") + 1);
const opened = await new CookieSealer(await deriveCookieKey(sessionSecret)).unseal(sealed);
if (!opened) throw new Error("could not unseal the bench session cookie");
const bearer = opened.at;

interface Scenario {
  name: string;
  url: string;
  headers?: Record<string, string>;
  expect: string;
}
const scenarios: Scenario[] = [
  { name: "bare Bun.serve, same JSON (baseline)", url: `${bare.url}/`, expect: "bench-user" },
  {
    name: "GET /auth/session, session cookie",
    url: `${gatewayUrl}/auth/session`,
    headers: { cookie },
    expect: '"user_id":"bench-user"',
  },
  {
    name: "GET /v1/me, bearer via 60 s cache",
    url: `${gatewayUrl}/v1/me`,
    headers: { authorization: `Bearer ${bearer}` },
    expect: '"via":"bearer"',
  },
];

for (const scenario of scenarios) {
  const text = await (await fetch(scenario.url, { headers: scenario.headers })).text();
  if (!text.includes(scenario.expect)) throw new Error(`${scenario.name}: unexpected answer ${text}`);
}

const results = new Map<string, WrkResult[]>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const scenario of scenarios) {
    await runWrk({
      url: scenario.url,
      seconds: 1,
      connections: CONNECTIONS,
      headers: scenario.headers,
      cpu: LOAD_CPU,
    });
    const result = await runWrk({
      url: scenario.url,
      seconds: SECONDS,
      connections: CONNECTIONS,
      headers: scenario.headers,
      cpu: LOAD_CPU,
    });
    if (result.non2xx > 0 || result.errors)
      console.warn(`  ${scenario.name}: ${result.non2xx} non-2xx ${result.errors}`);
    results.set(scenario.name, [...(results.get(scenario.name) ?? []), result]);
    process.stdout.write(`  round ${round}/${ROUNDS} ${scenario.name}: ${Math.round(result.rps)} req/s\n`);
  }
}

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
    median(runs.map((r) => r.p99)).toFixed(2),
    (rps / baseline).toFixed(2),
  ];
});
const header = ["scenario", "req/s (median)", "p99 ms", "ratio to bare"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) =>
  `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
console.log(
  `\nwrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} interleaved rounds, server on core ${SERVER_CPU}, wrk on core ${LOAD_CPU}\n`,
);
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
for (const row of rows) console.log(line(row));
process.exit(0);
