/**
 * At start-up, apps deployed through the admin API are put back in force from their recorded
 * configuration. A configuration recorded by an older version, before today's rules, must not bypass
 * them: one the apps file would refuse (a static of the built-in type `_app`, which makes the app's
 * resource public; a `javascript:` redirect URI) is not restored, and the operator is told to deploy
 * it again. Recorded here with `deployApp` directly, as an older version did without the checks.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { deployApp } from "../../src/server/apps/deploy.ts";
import type { AppDef, AppsFile } from "../../src/server/apps/model.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { tempDir } from "../helpers/stack.ts";

const FILE: AppsFile = {
  apps: [{ id: "first", clients: [{ clientId: "first-web", redirectUris: ["http://127.0.0.1:5201/cb"] }] }],
};
const ADMIN = { authorization: "Bearer restore-token", "content-type": "application/json" };

let running: RunningGateway | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(database: Record<string, string>, logs: string[] = []) {
  running = await startGateway({
    config: loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...database,
      COOKIE_SECURE: "false",
      ADMIN_TOKEN: "restore-token",
    }),
    apps: FILE,
    log: (level, message, fields) => logs.push(JSON.stringify({ level, message, ...fields })),
  });
  return running;
}

/** Records `app` as an older version's admin deploy did: reconciled and recorded, never validated. */
async function recordUnchecked(gw: RunningGateway, app: AppDef) {
  const { gateway } = gw;
  await deployApp(gateway.storage, gateway.membership.store, gateway.apps, app, gateway.sealer);
}

const appResource = async (gw: RunningGateway, appId: string) =>
  await sql(gw.gateway.storage).get(
    "SELECT visibility, discoverable FROM resources WHERE app_id = ? AND type = '_app'",
    appId,
  );
const counts = async (gw: RunningGateway) =>
  await sql(gw.gateway.storage).get(
    "SELECT (SELECT count(*) FROM deployments) AS deployments, (SELECT count(*) FROM resources) AS resources",
  );

describe("a recorded deployment today's rules refuse", () => {
  test.each([
    [
      "a static of type _app",
      {
        id: "legacy",
        clients: [{ clientId: "legacy-web", redirectUris: ["http://127.0.0.1:5202/cb"] }],
        statics: [{ type: "_app", slug: "_app", name: "legacy", visibility: "discoverable" as const }],
      },
    ],
    [
      "a javascript: redirect URI",
      { id: "legacy", clients: [{ clientId: "legacy-web", redirectUris: ["javascript:alert(1)"] }] },
    ],
  ] as Array<[string, AppDef]>)(
    "with %s is not restored at start-up; the operator is told",
    async (_label, app) => {
      const database = await databaseEnv(tempDir("sg-restore-"));
      await recordUnchecked(await start(database), app);
      await running!.stop();
      const logs: string[] = [];
      const gw = await start(database, logs);
      expect(gw.gateway.apps.app("legacy")).toBeUndefined();
      expect(gw.gateway.apps.lookupClient("legacy-web")).toBeUndefined();
      expect(gw.gateway.apps.app("first")).toEqual(FILE.apps[0]!);
      const warning = logs.map((line) => JSON.parse(line)).find((line) => line.appId === "legacy");
      expect(warning).toMatchObject({ level: "warn", appId: "legacy" });
      expect(warning.message).toContain("deploy it again");
      expect(warning.reason).toContain(app.statics ? "_app" : "javascript:");
      // Deployed again under today's rules, the app is back and its `_app` is members-only.
      const before = await counts(gw);
      const res = await fetch(`${gw.adminUrl}/admin/v1/apps/legacy/deploy`, {
        method: "POST",
        headers: ADMIN,
        body: JSON.stringify({
          id: "legacy",
          clients: [{ clientId: "legacy-web", redirectUris: ["http://127.0.0.1:5202/cb"] }],
        }),
      });
      expect(res.status).toBe(200);
      expect(await counts(gw)).toMatchObject({
        deployments: (before as { deployments: number }).deployments + 1,
      });
      expect(await appResource(gw, "legacy")).toEqual({ visibility: "members", discoverable: 0 });
      expect(gw.gateway.apps.lookupClient("legacy-web")?.app.id).toBe("legacy");
    },
  );

  test("a valid recorded deployment is still restored", async () => {
    const database = await databaseEnv(tempDir("sg-restore-"));
    const app: AppDef = {
      id: "kept",
      clients: [{ clientId: "kept-web", redirectUris: ["http://127.0.0.1:5203/cb", "com.example.kept:/cb"] }],
    };
    await recordUnchecked(await start(database), app);
    await running!.stop();
    const logs: string[] = [];
    const gw = await start(database, logs);
    expect(gw.gateway.apps.app("kept")).toEqual(app);
    expect(logs.filter((line) => line.includes("deploy it again"))).toEqual([]);
  });
});
