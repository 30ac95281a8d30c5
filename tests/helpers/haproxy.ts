/**
 * A real load balancer for tests: Debian's HAProxy in front of gateway replicas, round robin, health
 * checked on `/readyz`, a failed connection retried on another replica. The configuration is the
 * shape of deploy/haproxy/haproxy.cfg, with the ports of this test.
 *
 *   const lb = await startHaproxy([{ name: "public", servers: [...] }, { name: "admin", servers: [...], checkPorts: [...] }]);
 *   lb.urls.public   // http://127.0.0.1:PORT
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, tempDir } from "./stack.ts";

export interface Frontend {
  name: string;
  /** "127.0.0.1:PORT" of each replica. */
  servers: string[];
  /** Health-check each server on this port instead (the admin listener is checked on the public one). */
  checkPorts?: number[];
}

export interface Haproxy {
  urls: Record<string, string>;
  stop(): Promise<void>;
}

function config(frontends: Array<Frontend & { port: number }>): string {
  const lines = [
    "global",
    "  maxconn 4096",
    "defaults",
    "  mode http",
    "  timeout connect 1s",
    "  timeout client 30s",
    "  timeout server 30s",
    // Server-Sent Events are ordinary responses here (no upgrade, so no tunnel timeout): the
    // gateway's 15 s heartbeat keeps a quiet stream inside the 30 s client and server timeouts.
    "  retries 2",
    "  option redispatch 1",
    "  retry-on conn-failure empty-response response-timeout",
  ];
  for (const frontend of frontends) {
    lines.push(
      `frontend ${frontend.name}`,
      `  bind 127.0.0.1:${frontend.port}`,
      `  default_backend ${frontend.name}_replicas`,
      `backend ${frontend.name}_replicas`,
      "  balance roundrobin",
      // HTTP/1.1 with a Host header: HAProxy's default check is HTTP/1.0 without one.
      "  option httpchk",
      "  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost",
      "  http-check expect status 200",
      "  default-server check inter 200ms fall 2 rise 1",
      "  http-response set-header X-Replica %[srv_name]",
      ...frontend.servers.map((server, i) => {
        const check = frontend.checkPorts?.[i];
        return `  server r${i + 1} ${server}${check ? ` port ${check}` : ""}`;
      }),
    );
  }
  return `${lines.join("\n")}\n`;
}

export async function startHaproxy(frontends: Frontend[]): Promise<Haproxy> {
  const dir = tempDir("sg-haproxy-");
  const withPorts = frontends.map((frontend) => ({ ...frontend, port: freePort() }));
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config(withPorts));
  const proc = Bun.spawn(["haproxy", "-db", "-f", file], { stdout: "ignore", stderr: "pipe" });
  const urls = Object.fromEntries(withPorts.map((f) => [f.name, `http://127.0.0.1:${f.port}`]));
  for (const url of Object.values(urls)) {
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null)
        throw new Error(`haproxy exited (${proc.exitCode}): ${await new Response(proc.stderr).text()}`);
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
