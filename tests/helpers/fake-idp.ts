/**
 * A misbehaving identity provider on 127.0.0.1, for wire tests: a raw `node:net` server, so an
 * answer can be anything a real network produces: JSON, headers and then a body that never comes
 * (`stall`), or headers promising more bytes than are sent before the connection is reset
 * (`truncate`). Each request is answered by `behave(method, path, body)`; `calls` counts requests by path.
 */
import { createServer, type Server, type Socket } from "node:net";
import { type Config, loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "./db.ts";

export const FAKE_REDIRECT = "http://127.0.0.1:5999/cb";

export type Behaviour =
  | { kind: "json"; status?: number; body: unknown }
  | { kind: "stall" }
  | { kind: "truncate" };

export interface FakeIdp {
  url: string;
  calls: Record<string, number>;
  behave: (method: string, path: string, body: string) => Behaviour;
  stop(): Promise<void>;
}

/** A discovery document pointing every endpoint at `url`. */
export function discoveryOf(url: string) {
  return {
    issuer: url,
    authorization_endpoint: `${url}/oauth2/auth`,
    token_endpoint: `${url}/oauth2/token`,
    revocation_endpoint: `${url}/oauth2/revoke`,
    userinfo_endpoint: `${url}/userinfo`,
  };
}

export async function startFakeIdp(behave: FakeIdp["behave"]): Promise<FakeIdp> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk as Buffer]);
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString("latin1");
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      const body = buffer.subarray(end + 4, end + 4 + length).toString("utf8");
      buffer = Buffer.alloc(0);
      const [method = "GET", target = "/"] = head.split(" ");
      const path = target.split("?")[0]!;
      fake.calls[path] = (fake.calls[path] ?? 0) + 1;
      answer(socket, fake.behave(method, path, body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const fake: FakeIdp = {
    url: `http://127.0.0.1:${port}`,
    calls: {},
    behave,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function answer(socket: Socket, behaviour: Behaviour): void {
  const head = (status: number, length: number) =>
    `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n`;
  if (behaviour.kind === "json") {
    const body = Buffer.from(JSON.stringify(behaviour.body ?? null));
    socket.end(Buffer.concat([Buffer.from(head(behaviour.status ?? 200, body.length)), body]));
  } else if (behaviour.kind === "stall") {
    // Headers and the first bytes of a body, then nothing: the connection stays open.
    socket.write(`${head(200, 1000)}{"active":`);
  } else {
    socket.write(`${head(200, 1000)}{"active":`, () => setTimeout(() => socket.destroy(), 20));
  }
}

/** A gateway on 127.0.0.1 whose issuer, admin URL and Kratos are all `fake`; client `web`. */
export async function gatewayOnFake(
  fake: FakeIdp,
  options: { adminKey?: boolean; config?: Partial<Config> } = {},
): Promise<RunningGateway> {
  const config = loadConfig({
    PORT: "0",
    ADMIN_PORT: "0",
    ...(await databaseEnv()),
    OIDC_ISSUER: fake.url,
    IDP_ADMIN_URL: fake.url,
    KRATOS_PUBLIC_URL: fake.url,
    COOKIE_SECURE: "false",
    ADMIN_TOKEN: "test-admin-token",
    ...(options.adminKey !== false ? { IDP_ADMIN_API_KEY: "key" } : {}),
  });
  return startGateway({
    config: { ...config, ...options.config },
    apps: { apps: [{ id: "main", clients: [{ clientId: "web", redirectUris: [FAKE_REDIRECT] }] }] },
    log: () => {},
  });
}
