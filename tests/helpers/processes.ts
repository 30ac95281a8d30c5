/**
 * Races for real: `count` processes of `gateway serve` (the built entry, as an operator runs it) on one
 * fresh database of the engine the suite runs on, serving `apps` from an apps file, each on its own
 * public port; and this process's own gateway on the same database, to sign users in (`sessionFor`)
 * and read the stored state. `stop` kills the processes with SIGKILL and closes the local gateway.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppRegistry } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway, type Gateway } from "../../src/server/gateway.ts";
import { databaseEnv } from "./db.ts";
import { waitReady } from "./ready.ts";
import { freePort, tempDir } from "./stack.ts";

export interface Processes {
  /** Each process's public base URL. */
  urls: string[];
  local: Gateway;
  stop(): Promise<void>;
}

export async function startProcesses(apps: AppsFile, count: number): Promise<Processes> {
  const dir = tempDir();
  const env = {
    ...(process.env as Record<string, string>),
    ...(await databaseEnv(dir, "gateway.db")),
    GATEWAY_CONFIG: join(dir, "apps.json"),
    COOKIE_SECURE: "false",
  };
  writeFileSync(env.GATEWAY_CONFIG, JSON.stringify(apps));
  const local = await createGateway({ config: loadConfig(env), apps: new AppRegistry(apps), log: () => {} });
  const urls: string[] = [];
  const children: Array<ReturnType<typeof Bun.spawn>> = [];
  for (let i = 0; i < count; i++) {
    const port = freePort();
    children.push(
      Bun.spawn(["bun", "src/server/main.ts", "serve"], {
        env: { ...env, PORT: String(port), ADMIN_PORT: String(freePort()) },
        stdout: "ignore",
        stderr: "inherit",
      }),
    );
    urls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(urls.map((url) => waitReady(url, "/healthz")));
  return {
    urls,
    local,
    async stop() {
      for (const child of children) child.kill(9);
      await local.close();
    },
  };
}
