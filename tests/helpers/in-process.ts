import { buildAdminApp, buildPublicApp } from "../../src/server/app.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { AppRegistry, DEFAULT_APPS } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway, type Gateway } from "../../src/server/gateway.ts";
import { databaseEnv } from "./db.ts";
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
  const config = loadConfig({
    ...(await databaseEnv(tempDir(), "gateway.db")),
    COOKIE_SECURE: "false",
    ...env,
  });
  const logs: string[] = [];
  const gateway = await createGateway({
    config,
    apps: new AppRegistry(apps, { acceptAnyClient: apps === DEFAULT_APPS }),
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

/**
 * Signs `userId` in without a provider: a real session row and a real sealed cookie (what POST
 * /auth/token makes after a code exchange), so requests take the real cookie → principal path.
 */
export async function sessionFor(
  gw: Pick<InProcess, "gateway">,
  userId: string,
  clientId = "web",
): Promise<Record<string, string>> {
  const { sealed } = await gw.gateway.sessions.start(
    {
      accessToken: `at-${userId}-${crypto.randomUUID()}`,
      refreshToken: `rt-${crypto.randomUUID()}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    userId,
    clientId,
  );
  return {
    cookie: `${gw.gateway.sessions.cookieName}=${sealed}`,
    "x-service-csrf": "1",
    "content-type": "application/json",
  };
}
