/**
 * Starts a gateway for real: loads the apps file, opens and migrates the database, and listens on the
 * public and admin ports. Used by `main.ts serve`, `main.ts dev` and the socket tests.
 */
import { buildAdminApp, buildPublicApp } from "./app.ts";
import type { AppsFile } from "./apps/model.ts";
import { AppRegistry, DEFAULT_APPS, loadAppsFile } from "./apps/registry.ts";
import type { Config } from "./config.ts";
import { type ConsentHooks, createGateway, type Gateway } from "./gateway.ts";
import { rememberAddress } from "./http/client-address.ts";
import { MAX_BODY_BYTES } from "./http/plumbing.ts";
import type { Logger } from "./lib/log.ts";

export interface RunningGateway {
  gateway: Gateway;
  publicUrl: string;
  adminUrl: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  /** Apps to use instead of reading GATEWAY_CONFIG. */
  apps?: AppsFile;
  log?: Logger;
  consentHooks?: ConsentHooks;
}

export async function startGateway({
  config,
  apps,
  log,
  consentHooks,
}: StartOptions): Promise<RunningGateway> {
  const file = apps ?? (await loadAppsFile(config.gatewayConfigPath));
  const registry = new AppRegistry(file, { acceptAnyClient: file === DEFAULT_APPS });
  const gateway = await createGateway({ config, apps: registry, log, consentHooks });
  // Bun's own limit is only a backstop (it answers 413 with no body): the 64 KiB limit with its JSON
  // error is enforced by the plumbing, so Bun's is set well above it.
  const serveOptions = { maxRequestBodySize: 16 * MAX_BODY_BYTES };
  // Bun's idle timer (not reset by body bytes) must not cut a request before the body bound (10 s)
  // answers 408 request_timeout: 30 s on the public listener, 60 s on the admin one.
  const publicServer = Bun.serve({
    ...serveOptions,
    idleTimeout: 30,
    port: config.port,
    hostname: config.host,
    fetch: withAddress(gateway.metrics.instrument(buildPublicApp(gateway).fetch)),
  });
  // The event stream stays open: a heartbeat every 15 s, so an idle timeout of 60 s never cuts it.
  const adminServer = Bun.serve({
    ...serveOptions,
    idleTimeout: 60,
    port: config.adminPort,
    hostname: config.adminHost,
    fetch: withAddress(gateway.metrics.instrument(buildAdminApp(gateway).fetch)),
  });
  return {
    gateway,
    publicUrl: `http://${config.host}:${publicServer.port}`,
    adminUrl: `http://${config.adminHost}:${adminServer.port}`,
    async stop() {
      await Promise.all([publicServer.stop(true), adminServer.stop(true)]);
      gateway.close();
    },
  };
}

/** Records the socket's address for the request (client-address.ts), then handles it. */
function withAddress(handle: (request: Request) => Response | Promise<Response>) {
  return (request: Request, server: Bun.Server<undefined>) => {
    rememberAddress(request, server.requestIP(request)?.address);
    return handle(request);
  };
}
