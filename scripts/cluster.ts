/**
 * `bun run cluster`: the replicated set-up on one machine, for a person to try. PostgreSQL (DATABASE_URL,
 * or a throwaway cluster in a temporary folder), the development identity provider, three gateway
 * replicas (trusting HAProxy's X-Forwarded-For) and HAProxy in front of them with
 * deploy/haproxy/haproxy.cfg. Sign in at the printed URL;
 * kill a replica (its pid is printed) and watch the others carry on. Ctrl-C stops everything.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDevIdp } from "../src/devidp/index.ts";
import { devApps } from "../src/server/dev-apps.ts";
import { randomId } from "../src/server/lib/crypto.ts";
import { startPostgres } from "../tests/helpers/postgres.ts";
import { waitReady } from "../tests/helpers/ready.ts";
import { tempDir } from "../tests/helpers/stack.ts";

const LB = "http://127.0.0.1:8080";
const LB_ADMIN = "http://127.0.0.1:8081";
const REPLICAS = [
  { public: 8707, admin: 8708 },
  { public: 8717, admin: 8718 },
  { public: 8727, admin: 8728 },
];

const dir = tempDir("sg-cluster-");
const cluster = process.env.DATABASE_URL ? undefined : await startPostgres();
const databaseUrl = process.env.DATABASE_URL ?? (await cluster!.createDatabase("cluster"));
const idp = await startDevIdp({
  clients: [{ clientId: "gateway-landing", redirectUris: [`${LB}/`], clientName: "Gateway" }],
  consentUrl: `${LB}/auth/consent`,
  adminApiKey: "cluster-idp-key",
  quiet: true,
});
const appsFile = join(dir, "apps.json");
writeFileSync(appsFile, JSON.stringify(devApps(LB, "http://127.0.0.1:5173")));
const adminToken = process.env.ADMIN_TOKEN ?? randomId();
const env = {
  ...(process.env as Record<string, string>),
  DATABASE_URL: databaseUrl,
  SESSION_SECRET: process.env.SESSION_SECRET ?? `cluster-${randomId()}-${randomId()}`,
  OIDC_ISSUER: idp.issuer,
  IDP_ADMIN_URL: idp.adminUrl,
  IDP_ADMIN_API_KEY: "cluster-idp-key",
  KRATOS_PUBLIC_URL: idp.kratosUrl,
  GATEWAY_CONFIG: appsFile,
  COOKIE_SECURE: "false",
  ADMIN_TOKEN: adminToken,
  // HAProxy (on this host) says who the client is: bearer checks are limited per real client.
  TRUSTED_PROXIES: "127.0.0.1",
};

const children = REPLICAS.map((ports) =>
  Bun.spawn(["bun", "src/server/main.ts", "serve"], {
    env: { ...env, PORT: String(ports.public), ADMIN_PORT: String(ports.admin) },
    stdout: "ignore",
    stderr: "inherit",
  }),
);
await Promise.all(REPLICAS.map((ports) => waitReady(`http://127.0.0.1:${ports.public}`)));
const lb = Bun.spawn(["haproxy", "-db", "-f", "deploy/haproxy/haproxy.cfg"], {
  stdout: "ignore",
  stderr: "inherit",
});

console.log(`cluster: PostgreSQL ${cluster ? `(throwaway, port ${cluster.port})` : "(DATABASE_URL)"}
cluster: replicas ${REPLICAS.map((p, i) => `r${i + 1} :${p.public}/:${p.admin} pid ${children[i]!.pid}`).join(", ")}
cluster: open ${LB}/ (HAProxy, round robin; X-Replica says who answered)
cluster: admin API ${LB_ADMIN} with ADMIN_TOKEN=${adminToken}  (bun run tui -- --url ${LB_ADMIN})
cluster: Ctrl-C stops everything`);

const stop = async () => {
  lb.kill();
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((child) => child.exited));
  await idp.stop();
  cluster?.stop();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
