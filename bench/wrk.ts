/** Runs wrk (pinned to one core) and parses requests/s and latency percentiles from its --latency output. */
export interface WrkResult {
  rps: number;
  /** Requests completed. */
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: string;
}

function ms(text: string | undefined): number {
  if (!text) return Number.NaN;
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

export async function ensureWrk(): Promise<void> {
  if (Bun.which("wrk")) return;
  console.log("wrk not found: installing Debian's wrk (apt-get install -y wrk)…");
  const install = Bun.spawnSync(["apt-get", "install", "-y", "wrk"], { stdout: "ignore", stderr: "inherit" });
  if (install.exitCode !== 0 || !Bun.which("wrk")) throw new Error("bench needs wrk: apt-get install -y wrk");
}

export interface WrkOptions {
  url: string;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  script?: string;
  /** Arguments for the Lua script (after `--`). */
  args?: string[];
  cpu?: string;
  /** Told wrk's process id once it runs (to read its CPU time). */
  started?: (pid: number) => void;
}

export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = ["wrk", "-t1", `-c${options.connections}`, `-d${options.seconds}s`, "--latency"];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  if (options.script) args.push("-s", options.script);
  args.push(options.url);
  if (options.args?.length) args.push("--", ...options.args);
  const command = options.cpu && Bun.which("taskset") ? ["taskset", "-c", options.cpu, ...args] : args;
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  options.started?.(proc.pid);
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const p50 = ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1]);
  const p99 = ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const statuses = [...out.matchAll(/^status (\d+): (\d+)$/gm)].map((m) => `${m[1]}×${m[2]}`).join(" ");
  const errors = [/Socket errors:.*$/m.exec(out)?.[0] ?? "", statuses].filter(Boolean).join(" ");
  return { rps, requests, p50, p99, non2xx, errors };
}
