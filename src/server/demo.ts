/**
 * The demo app's server for `gateway dev`: examples/demo on its own port (so its own origin), bundled
 * by Bun from the HTML import, plus `/config.json` telling the page the gateway URL and its client id.
 */
import demoPage from "../../examples/demo/index.html";

export function serveDemo(options: { port: number; host: string; gatewayUrl: string; clientId: string }) {
  return Bun.serve({
    port: options.port,
    hostname: options.host,
    development: false,
    routes: {
      "/": demoPage,
      "/config.json": Response.json({ gatewayUrl: options.gatewayUrl, clientId: options.clientId }),
    },
    fetch: () => new Response("Not found", { status: 404 }),
  });
}
