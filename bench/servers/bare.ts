// The same-run ceiling: a bare Bun.serve answering the session report's JSON shape.
const body = { authenticated: true, user_id: "bench-user" };
const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  // BARE_REUSE_PORT=1: several of these share the port, like `gateway serve --workers N`.
  reusePort: process.env.BARE_REUSE_PORT === "1",
  fetch: () => Response.json(body),
});
console.log(`ready ${server.port}`);
