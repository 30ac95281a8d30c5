/**
 * `gateway dev`: the development identity provider (Hydra + Kratos APIs on loopback) and the gateway,
 * wired together with a sample apps file, plain-http cookies and printed URLs. Not for production: the
 * provider signs in anyone who types a name. So every listener is loopback (loadDevConfig refuses any
 * other HOST or ADMIN_HOST), and the admin token is random per start (printed in the banner) unless
 * ADMIN_TOKEN is set: a token written in the source would open the admin API of every dev instance.
 */
import { loadDevConfig } from "./config.ts";
import { DEMO_CLIENT_ID, DEV_CLIENT_NAMES, devApps } from "./dev-apps.ts";
import { randomId } from "./lib/crypto.ts";
import { startGateway } from "./serve.ts";
import { listening } from "./startup.ts";

export async function runDev(): Promise<void> {
  const adminApiKey = "dev-idp-admin-key";
  const adminToken = randomId() + randomId();
  const base = loadDevConfig({ ADMIN_TOKEN: adminToken });
  const { startDevIdp } = await import("../devidp/index.ts");
  const gatewayUrl = `http://${base.host}:${base.port}`;
  const demoUrl = `http://${base.host}:${base.demoPort}`;
  const apps = devApps(gatewayUrl, demoUrl);
  const idp = await listening({ port: "DEV_IDP_PORT", host: "HOST" }, base.devIdpPort, "127.0.0.1", () =>
    startDevIdp({
      port: base.devIdpPort,
      clients: apps.apps.flatMap((app) =>
        app.clients.map((c) => ({
          clientId: c.clientId,
          redirectUris: c.redirectUris,
          clientSecret: c.clientSecret,
          clientName: DEV_CLIENT_NAMES[c.clientId],
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
`);
  const stop = async () => {
    await running.stop();
    await demo.stop(true);
    await idp.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
