/**
 * `gateway dev`: the development identity provider (Hydra + Kratos APIs on loopback) and the gateway,
 * wired together with a sample apps file, plain-http cookies and printed URLs. Not for production: the
 * provider signs in anyone who types a name. So every listener is loopback (loadDevConfig refuses any
 * other HOST or ADMIN_HOST), and the admin token is random per start (printed in the banner) unless
 * ADMIN_TOKEN is set: a token written in the source would open the admin API of every dev instance.
 * The developer's own apps (GATEWAY_CONFIG, `--app`) are registered beside dev's own, on loopback
 * addresses only (dev-own-apps.ts); what is left out of them is named on stderr before the banner.
 */

import type { AppDef } from "./apps/model.ts";
import { loadAppsFile } from "./apps/registry.ts";
import { loadDevConfig } from "./config.ts";
import { DEMO_CLIENT_ID, DEV_CLIENT_NAMES, devApps } from "./dev-apps.ts";
import { keepLoopback, withOwnApps } from "./dev-own-apps.ts";
import { randomId } from "./lib/crypto.ts";
import { startGateway } from "./serve.ts";
import { listening } from "./startup.ts";

export interface DevOptions {
  /** The apps `--app <origin>` adds (appFromOrigin). */
  apps?: AppDef[];
}

/** The developer's apps: the apps file's (loopback addresses only) and the `--app` ones. */
async function ownApps(path: string | undefined, flags: AppDef[]): Promise<AppDef[]> {
  if (!path) return flags;
  const source = `GATEWAY_CONFIG ${path}`;
  const { file, notices } = keepLoopback(await loadAppsFile(path), source);
  for (const notice of notices) console.error(`gateway dev: ${notice}`);
  return [...file.apps, ...flags];
}

/** One banner line per client of the developer's apps: what to paste into the SDK. */
function ownAppLines(apps: AppDef[], gatewayPort: string): string {
  const lines = apps.flatMap((app) =>
    app.clients.map((client) => {
      // The gateway's URL on the page's own host: a session cookie crosses ports, never sites.
      const host = new URL(client.redirectUris[0]!).hostname;
      const kind = client.clientSecret ? "confidential" : "public";
      return `    ${app.id.padEnd(14)} createClient({ gatewayUrl: "http://${host}:${gatewayPort}", clientId: "${client.clientId}" })  (${kind})
                   redirect URIs ${client.redirectUris.join(", ")}`;
    }),
  );
  return lines.length ? `\n  Your apps\n${lines.join("\n")}\n` : "";
}

export async function runDev(options: DevOptions = {}): Promise<void> {
  const adminApiKey = "dev-idp-admin-key";
  const adminToken = randomId() + randomId();
  const base = loadDevConfig({ ADMIN_TOKEN: adminToken });
  const { startDevIdp } = await import("../devidp/index.ts");
  const gatewayUrl = `http://${base.host}:${base.port}`;
  const demoUrl = `http://${base.host}:${base.demoPort}`;
  const own = await ownApps(base.gatewayConfigPath, options.apps ?? []);
  const apps = withOwnApps(devApps(gatewayUrl, demoUrl), own, "gateway dev (GATEWAY_CONFIG and --app)");
  const idp = await listening({ port: "DEV_IDP_PORT", host: "HOST" }, base.devIdpPort, "127.0.0.1", () =>
    startDevIdp({
      port: base.devIdpPort,
      clients: apps.apps.flatMap((app) =>
        app.clients.map((c) => ({
          clientId: c.clientId,
          redirectUris: c.redirectUris,
          clientSecret: c.clientSecret,
          clientName: DEV_CLIENT_NAMES[c.clientId],
          postLogoutRedirectUris: c.postLogoutRedirectUris,
          // A logout at the provider (or of its login session) reaches the gateway at once.
          backchannelLogoutUri: `${gatewayUrl}/auth/backchannel-logout`,
        })),
      ),
      consentUrl: `${gatewayUrl}/auth/consent`,
      adminApiKey,
    }),
  );
  const config = loadDevConfig({
    ADMIN_TOKEN: adminToken,
    OIDC_ISSUER: idp.issuer,
    IDP_ADMIN_URL: idp.adminUrl,
    IDP_ADMIN_API_KEY: adminApiKey,
    KRATOS_PUBLIC_URL: idp.kratosUrl,
    KRATOS_ADMIN_URL: idp.kratosUrl,
  });
  const running = await startGateway({ config, apps, demoUrl: `${demoUrl}/` }).catch(async (error) => {
    await idp.stop();
    throw error;
  });
  const { serveDemo } = await import("./demo.ts");
  const demo = await listening({ port: "DEMO_PORT", host: "HOST" }, base.demoPort, base.host, () =>
    serveDemo({ port: base.demoPort, host: base.host, gatewayUrl, clientId: DEMO_CLIENT_ID }),
  ).catch(async (error) => {
    await running.stop();
    await idp.stop();
    throw error;
  });
  console.log(`
  Session gateway (development)
    gateway        ${running.publicUrl}/          open this and click "Sign in"
    demo app       ${demoUrl}/          the SDK in a page on another origin
    admin API      ${running.adminUrl}/admin/v1   Authorization: Bearer ${config.adminToken}${config.adminToken === adminToken ? "\n                   (a new token each start; set ADMIN_TOKEN to choose one)" : ""}
    identity prov. ${idp.issuer}           development only: any user name signs in
    database       ${config.databasePath}     keys: gateway keys --dev
${ownAppLines(own, new URL(running.publicUrl).port)}`);
  const stop = async () => {
    await running.stop();
    await demo.stop(true);
    await idp.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
