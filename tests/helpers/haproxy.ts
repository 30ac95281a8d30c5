/**
 * A real load balancer for tests: Debian's HAProxy running the shipped configuration,
 * deploy/haproxy/haproxy.cfg, line for line (retries, timeouts, health checks, X-Forwarded-For, its
 * JSON errors), with only the listening ports and each backend's `server` lines replaced by this
 * test's. A frontend not asked for is still bound (to a free port) with no server.
 *
 *   const lb = await startHaproxy([{ name: "public", servers: [...] }, { name: "admin", servers: [...], checkPorts: [...] }]);
 *   lb.urls.public   // http://127.0.0.1:PORT
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, tempDir } from "./stack.ts";

export const SHIPPED_CONFIG = join(import.meta.dir, "../../deploy/haproxy/haproxy.cfg");

export interface Frontend {
  name: "public" | "admin";
  /** "127.0.0.1:PORT" of each replica, named r1, r2, … in order. */
  servers: string[];
  /** Health-check each server on this port instead (the admin listener is checked on the public one). */
  checkPorts?: number[];
}

export interface Haproxy {
  urls: Record<string, string>;
  stop(): Promise<void>;
}

/** The shipped file with each backend's servers replaced by `frontends`' (backend `gateway_<name>`). */
function config(frontends: Frontend[]): string {
  const out: string[] = [];
  let backend: string | undefined;
  for (const line of readFileSync(SHIPPED_CONFIG, "utf8").split("\n")) {
    const section = /^(\w+)\s*(\S+)?/.exec(line);
    if (section) backend = section[1] === "backend" ? section[2] : undefined;
    if (!/^\s+server\s/.test(line)) {
      out.push(line);
      continue;
    }
    const frontend = frontends.find((f) => `gateway_${f.name}` === backend);
    if (frontend === undefined) continue;
    backend = undefined; // one block of servers per backend
    frontend.servers.forEach((server, i) => {
      const check = frontend.checkPorts?.[i];
      out.push(`  server r${i + 1} ${server}${check ? ` port ${check}` : ""}`);
    });
  }
  return out.join("\n");
}

export async function startHaproxy(frontends: Frontend[]): Promise<Haproxy> {
  const dir = tempDir("sg-haproxy-");
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config(frontends));
  const log = join(dir, "haproxy.log");
  const ports = { public: freePort(), admin: freePort() };
  // Its warnings (a replica down) go to a file: a pipe nobody reads would fill up and stall it.
  const proc = Bun.spawn(["haproxy", "-db", "-f", file], {
    env: { ...process.env, LB_PUBLIC_PORT: String(ports.public), LB_ADMIN_PORT: String(ports.admin) },
    stdout: "ignore",
    stderr: Bun.file(log),
  });
  const urls = Object.fromEntries(frontends.map((f) => [f.name, `http://127.0.0.1:${ports[f.name]}`]));
  for (const url of Object.values(urls)) {
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null)
        throw new Error(`haproxy exited (${proc.exitCode}): ${readFileSync(log, "utf8")}`);
      const up = await fetch(`${url}/readyz`).then(
        (r) => r.status < 500,
        () => false,
      );
      if (up) break;
      if (i > 200) throw new Error(`haproxy did not answer on ${url}`);
      await Bun.sleep(25);
    }
  }
  return {
    urls,
    async stop() {
      proc.kill();
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
