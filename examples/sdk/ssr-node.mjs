// An app server that renders for the signed-in user, on node:http. It must receive the gateway's
// cookie: serve it on the gateway's host (one proxy in front of both) or, in development, on localhost.
//   GATEWAY_URL=http://127.0.0.1:8787 PORT=3000 node ssr-node.mjs
import { createServer } from "node:http";
import { createServerClient, GatewayError } from "@session-gateway/sdk";

createServer(async (request, response) => {
  // Forwards the request's gateway cookie, and only that cookie, to the gateway.
  const gateway = createServerClient({ gatewayUrl: process.env.GATEWAY_URL, request });
  let status = 200;
  let text;
  try {
    const session = await gateway.auth.getSession();
    text = session.authenticated
      ? `Hello ${session.userId}, member of ${(await gateway.resource.list()).filter((r) => r.type !== "_app").length} resources`
      : "Hello, stranger";
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    status = error.status === 401 ? 401 : 502;
    text = error.message; // e.g. "Your session was revoked: sign in again."
  }
  // A refreshed session (or the clearing of one that ended) goes back to the browser.
  response.setHeader("set-cookie", gateway.setCookies());
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  response.end(text);
}).listen(Number(process.env.PORT ?? 3000), "127.0.0.1");
