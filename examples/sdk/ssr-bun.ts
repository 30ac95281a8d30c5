// The same app server on Bun.serve (a Fetch Request works as well as Node's IncomingMessage).
//   GATEWAY_URL=http://127.0.0.1:8787 PORT=3000 bun ssr-bun.ts
import { createServerClient, GatewayError } from "@session-gateway/sdk";

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 3000),
  async fetch(request) {
    const gateway = createServerClient({ gatewayUrl: process.env.GATEWAY_URL!, request });
    let status = 200;
    let text: string;
    try {
      const session = await gateway.auth.getSession();
      text = session.authenticated
        ? `Hello ${session.userId}, member of ${(await gateway.resource.list()).filter((r) => r.type !== "_app").length} resources`
        : "Hello, stranger";
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      status = error.status === 401 ? 401 : 502;
      text = error.message;
    }
    const headers = new Headers({ "content-type": "text/plain; charset=utf-8" });
    for (const cookie of gateway.setCookies()) headers.append("set-cookie", cookie);
    return new Response(text, { status, headers });
  },
});
