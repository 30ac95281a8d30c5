/** An in-process gateway (no listener): `handle(path, init)` goes through the real Elysia handler. */
import { join } from "node:path";
import { buildAdminApp, buildPublicApp } from "../../src/server/app.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppRegistry, DEFAULT_APPS } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway, type Gateway } from "../../src/server/gateway.ts";
import { tempDir } from "./stack.ts";

export interface InProcess {
  gateway: Gateway;
  logs: string[];
  handle(path: string, init?: RequestInit): Promise<Response>;
  admin(path: string, init?: RequestInit): Promise<Response>;
}

export async function inProcess(
  env: Record<string, string> = {},
  apps: AppsFile = DEFAULT_APPS,
): Promise<InProcess> {
  const config = loadConfig({ DATABASE_PATH: join(tempDir(), "gateway.db"), COOKIE_SECURE: "false", ...env });
  const logs: string[] = [];
  const gateway = await createGateway({
    config,
    apps: new AppRegistry(apps),
    log: (level, message, fields) => logs.push(JSON.stringify({ level, message, ...fields })),
  });
  const publicApp = buildPublicApp(gateway);
  const adminApp = buildAdminApp(gateway);
  return {
    gateway,
    logs,
    handle: (path, init) => publicApp.handle(new Request(`http://localhost${path}`, init)),
    admin: (path, init) => adminApp.handle(new Request(`http://localhost${path}`, init)),
  };
}
