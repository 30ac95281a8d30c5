/** Pieces both benchmarks use: pinning, process memory, medians, signed-in users, the printed table. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DevIdp, startDevIdp } from "../src/devidp/index.ts";
import { keyringFrom } from "../src/server/auth/keyring.ts";
import { CookieSealer } from "../src/server/auth/seal.ts";
import { signIn } from "../tests/helpers/stack.ts";

/** The benchmarks' app and its web client. */
export const BENCH_APP = "bench";
export const BENCH_CLIENT = "bench-web";

/**
 * The development provider (in this process) for a gateway at `gatewayUrl`, and the apps file (in
 * `dir`) registering the bench app: discoverable albums, members-only teams.
 */
export async function benchProvider(dir: string, gatewayUrl: string, adminApiKey: string) {
  const redirectUri = `${gatewayUrl}/callback`;
  const idp = await startDevIdp({
    clients: [{ clientId: BENCH_CLIENT, redirectUris: [redirectUri] }],
    consentUrl: `${gatewayUrl}/auth/consent`,
    adminApiKey,
    quiet: true,
  });
  const appsFile = join(dir, "apps.json");
  const types = { album: { visibility: "discoverable" }, team: { visibility: "members" } };
  const clients = [{ clientId: BENCH_CLIENT, redirectUris: [redirectUri] }];
  writeFileSync(appsFile, JSON.stringify({ apps: [{ id: BENCH_APP, clients, types }] }));
  return { idp, redirectUri, appsFile };
}

export const pinned = (command: string[], cpu: string) =>
  Bun.which("taskset") ? ["taskset", "-c", cpu, ...command] : command;

/** A process's resident memory in MiB (Linux /proc), NaN once it is gone. */
export function rssMiB(pid: number): number {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? Number.NaN : Number(kib) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** CPU time a process has used so far (user + system), in ms (Linux /proc, 10 ms ticks); NaN once gone. */
export function cpuMs(pid: number): number {
  try {
    // The fields after the command name (which is in parentheses): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** CPU time several processes have used so far, in ms; the ones already gone count nothing. */
export function cpuMsOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (cpuMs(pid) || 0), 0);
}

/** A process and its direct children (Linux `pgrep -P`): a supervisor's workers, a server's backends. */
export function withChildren(pid: number): number[] {
  const children = Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .trim();
  return [pid, ...children.split("\n").filter(Boolean).map(Number)];
}

/** CPU time the whole machine has been busy so far, every core (Linux /proc/stat, steal included), in ms. */
export function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export interface Credentials {
  user: string;
  cookie: string;
  /** `Bearer <access token>` (the cookie unsealed: the bench knows the session secret). */
  bearer: string;
}

/** Signs `users` in through the gateway (the real authorization code flow), a few at a time. */
export async function signInMany(
  stack: { url: string; idp: DevIdp; redirectUri: string },
  clientId: string,
  sessionSecret: string,
  users: string[],
): Promise<Credentials[]> {
  const sealer = new CookieSealer(await keyringFrom([sessionSecret], "bench"));
  const stackLike = stack as unknown as Parameters<typeof signIn>[0];
  const one = async (user: string): Promise<Credentials> => {
    const { browser } = await signIn(stackLike, user, undefined, clientId);
    const cookie = browser.cookieHeader(stack.url);
    const opened = await sealer.unseal(cookie.slice(cookie.indexOf("=") + 1));
    if (!opened) throw new Error(`could not unseal ${user}'s session cookie`);
    return { user, cookie, bearer: `Bearer ${opened.at}` };
  };
  const out: Credentials[] = [];
  for (let i = 0; i < users.length; i += 8) out.push(...(await Promise.all(users.slice(i, i + 8).map(one))));
  return out;
}

/** A Markdown table: the first `left` columns left-aligned, the rest right-aligned. */
export function printTable(header: string[], rows: string[][], left = 1): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  console.log(line(header));
  console.log(
    `|${widths.map((w, i) => (i < left ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
  );
  for (const row of rows) console.log(line(row));
}
