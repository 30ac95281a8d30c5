/**
 * Starts a gateway for real: loads the apps file, opens and migrates the database, and listens on the
 * public and admin ports. Used by `main.ts serve`, `main.ts dev` and the socket tests.
 */
import http from "node:http";
import { closeEventStreams } from "./admin/events-stream.ts";
import { buildAdminApp, buildPublicApp } from "./app.ts";
import type { AppsFile } from "./apps/model.ts";
import { AppRegistry, DEFAULT_APPS, loadAppsFile } from "./apps/registry.ts";
import type { Config } from "./config.ts";
import { type ConsentHooks, createGateway, type Gateway } from "./gateway.ts";
import { observeRequests, type ServerFetch } from "./http/access-log.ts";
import { MAX_BODY_BYTES, RUNTIME_HEADER_BYTES } from "./http/plumbing.ts";
import { withAbsoluteUrl } from "./http/url-path.ts";
import { checkProvider } from "./idp/startup-check.ts";
import type { Logger } from "./lib/log.ts";
import { type ListenerNames, listening } from "./startup.ts";

export interface RunningGateway {
  gateway: Gateway;
  publicUrl: string;
  adminUrl: string;
  /** Stops at once: open connections are cut (tests). */
  stop(): Promise<void>;
  /**
   * Stops gracefully: no new connection is accepted, requests in flight finish (event streams are
   * ended), at most `drainMs`; then whatever is left is cut and the database is closed cleanly.
   */
  shutdown(drainMs: number): Promise<{ drained: boolean; inFlight: number }>;
}

export interface StartOptions {
  config: Config;
  /** Apps to use instead of reading GATEWAY_CONFIG. */
  apps?: AppsFile;
  log?: Logger;
  consentHooks?: ConsentHooks;
  /** `gateway dev`: the demo app's URL, linked from the landing page. */
  demoUrl?: string;
}

export async function startGateway({
  config,
  apps,
  log,
  consentHooks,
  demoUrl,
}: StartOptions): Promise<RunningGateway> {
  const file = apps ?? (await loadAppsFile(config.gatewayConfigPath));
  const registry = new AppRegistry(file, { acceptAnyClient: file === DEFAULT_APPS });
  const gateway = await createGateway({ config, apps: registry, log, consentHooks });
  try {
    await checkProvider(gateway.hydra, gateway.log);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  // Bun's own limits are only backstops (they answer 413 and 431 with no body): the 64 KiB body limit
  // and the 12 KiB header limit with their JSON errors are enforced by the plumbing, so Bun's are set
  // well above them.
  const serveOptions = { maxRequestBodySize: 16 * MAX_BODY_BYTES };
  raiseHeaderBackstop();
  const tracked = tracker();
  const observe = (fetch: Parameters<typeof observeRequests>[0]) =>
    observeRequests(fetch, {
      metrics: gateway.metrics,
      accessLog: config.accessLog ? gateway.log : undefined,
    });
  // Bun's idle timer (not reset by body bytes) must not cut a request before the body bound (10 s)
  // answers 408 request_timeout: 30 s on the public listener, 60 s on the admin one.
  const listen = async <T>(names: ListenerNames, port: number, host: string, start: () => T) => {
    try {
      return await listening(names, port, host, start);
    } catch (error) {
      await gateway.close();
      throw error;
    }
  };
  const publicServer = await listen({ port: "PORT", host: "HOST" }, config.port, config.host, () =>
    Bun.serve({
      ...serveOptions,
      idleTimeout: 30,
      port: config.port,
      reusePort: config.reusePort,
      hostname: config.host,
      fetch: tracked.wrap(withAbsoluteUrl(observe(buildPublicApp(gateway, { demoUrl }).fetch))),
    }),
  );
  // The event stream stays open: a heartbeat every 15 s, so an idle timeout of 60 s never cuts it.
  const adminServer = await listen(
    { port: "ADMIN_PORT", host: "ADMIN_HOST" },
    config.adminPort,
    config.adminHost,
    () =>
      Bun.serve({
        ...serveOptions,
        idleTimeout: 60,
        port: config.adminPort,
        reusePort: config.reusePort,
        hostname: config.adminHost,
        fetch: tracked.wrap(withAbsoluteUrl(observe(buildAdminApp(gateway).fetch))),
      }),
  ).catch((error) => {
    publicServer.stop(true);
    throw error;
  });
  const servers = [publicServer, adminServer];
  return {
    gateway,
    publicUrl: `http://${config.host}:${publicServer.port}`,
    adminUrl: `http://${config.adminHost}:${adminServer.port}`,
    async stop() {
      await Promise.all(servers.map((server) => server.stop(true)));
      await gateway.close();
    },
    async shutdown(drainMs) {
      const inFlight = tracked.count;
      const graceful = Promise.all(servers.map((server) => server.stop(false)));
      closeEventStreams();
      const drained = await Promise.race([graceful.then(() => true), Bun.sleep(drainMs).then(() => false)]);
      if (!drained) await Promise.all(servers.map((server) => server.stop(true)));
      await gateway.close();
      return { drained, inFlight };
    },
  };
}

/**
 * Bun's header limit is the process's, node:http's `maxHeaderSize` (what `--max-http-header-size`
 * sets): set here, it holds however the gateway is started (from source, `bun start`, the binaries,
 * each worker). Raised to RUNTIME_HEADER_BYTES, never lowered (a larger flag stays).
 */
function raiseHeaderBackstop(): void {
  const runtime = http as { maxHeaderSize: number };
  runtime.maxHeaderSize = Math.max(runtime.maxHeaderSize, RUNTIME_HEADER_BYTES);
}

/** Counts requests in flight (a response whose body is still streaming counts until it is handed over). */
function tracker() {
  const state = {
    count: 0,
    wrap(fetch: ServerFetch) {
      const done = () => {
        state.count--;
      };
      return (request: Request, server: Bun.Server<undefined>): Response | Promise<Response> => {
        state.count++;
        let result: Response | Promise<Response>;
        try {
          result = fetch(request, server);
        } catch (error) {
          done();
          throw error;
        }
        if (result instanceof Promise) return result.finally(done);
        done();
        return result;
      };
    },
  };
  return state;
}
