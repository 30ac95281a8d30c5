/**
 * Gateway replicas as real processes (`bun src/server/main.ts serve`) on one database, for tests
 * across processes: each on ports of its own, killed with -9 and started again on the same ports.
 * `env` is the whole environment (a stack's, with GATEWAY_CONFIG pointing at a file); PORT and
 * ADMIN_PORT are each replica's. Put the shipped HAProxy in front with `startHaproxy` (haproxy.ts).
 *
 *   const replicas = await startReplicas(env, 3);
 *   await replicas[1].kill();      // kill -9
 *   await replicas[1].start();     // the same ports again, ready
 */

import { waitReady } from "./ready.ts";
import { freePort } from "./stack.ts";

export interface Replica {
  url: string;
  adminUrl: string;
  /** "127.0.0.1:PORT" of each listener, for a load balancer's server lines. */
  host: string;
  adminHost: string;
  port: number;
  child: ReturnType<typeof Bun.spawn>;
  /** Starts it (again) on its ports and waits until /readyz answers 200. */
  start(): Promise<void>;
  /** kill -9, and waits until the process is gone. */
  kill(): Promise<void>;
}

export async function startReplicas(env: Record<string, string>, count: number): Promise<Replica[]> {
  const replicas = Array.from({ length: count }, (): Replica => {
    const port = freePort();
    const adminPort = freePort();
    const replica: Replica = {
      url: `http://127.0.0.1:${port}`,
      adminUrl: `http://127.0.0.1:${adminPort}`,
      host: `127.0.0.1:${port}`,
      adminHost: `127.0.0.1:${adminPort}`,
      port,
      child: undefined as unknown as ReturnType<typeof Bun.spawn>,
      async start() {
        replica.child = Bun.spawn(["bun", "src/server/main.ts", "serve"], {
          env: { ...env, PORT: String(port), ADMIN_PORT: String(adminPort) },
          stdout: "ignore",
          stderr: "ignore",
        });
        await waitReady(replica.url);
      },
      async kill() {
        replica.child.kill(9);
        await replica.child.exited;
      },
    };
    return replica;
  });
  await Promise.all(replicas.map((replica) => replica.start()));
  return replicas;
}
