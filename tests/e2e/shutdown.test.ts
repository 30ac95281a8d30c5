/**
 * SIGTERM drains: the gateway process stops accepting, lets the requests in flight finish (bounded by
 * SHUTDOWN_DRAIN_SECONDS), closes the database and exits 0 with one log line.
 */
import { expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { databaseEnv } from "../helpers/db.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

async function spawnGateway(extra: Record<string, string> = {}) {
  const port = freePort();
  const dir = tempDir();
  const child = Bun.spawn(["bun", "src/server/main.ts", "serve"], {
    env: {
      ...(process.env as Record<string, string>),
      PORT: String(port),
      ADMIN_PORT: String(freePort()),
      ...(await databaseEnv(dir, "gateway.db")),
      COOKIE_SECURE: "false",
      ...extra,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { child, port, dir };
}

async function ready(port: number) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error("the gateway did not start");
}

/** A POST whose body arrives in two halves; resolves with the whole answer (or "" when cut). */
function trickled(port: number, body: string) {
  let socket!: Socket;
  let answer = "";
  const connected = new Promise<void>((resolve) => {
    socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `POST /auth/logout HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Service-Csrf: 1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 3)}`,
      );
      resolve();
    });
  });
  const done = new Promise<string>((resolve) => {
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", () => resolve(answer));
  });
  return { connected, finish: () => socket.write(body.slice(3)), done };
}

test("SIGTERM lets 8 requests in flight finish, refuses new connections, and exits 0 with one line", async () => {
  const { child, port } = await spawnGateway();
  await ready(port);
  const body = JSON.stringify({ client_id: "x".repeat(40) });
  const requests = Array.from({ length: 8 }, () => trickled(port, body));
  await Promise.all(requests.map((r) => r.connected));
  await Bun.sleep(200); // the gateway has read the headers and waits for the bodies
  child.kill("SIGTERM");
  await Bun.sleep(300);
  // New connections are no longer accepted.
  const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
    () => "answered",
    () => "refused",
  );
  expect(refused).toBe("refused");
  for (const r of requests) r.finish();
  const answers = await Promise.all(requests.map((r) => r.done));
  for (const answer of answers) {
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(answer).toContain('{"ok":true}');
  }
  expect(await child.exited).toBe(0);
  const out = await new Response(child.stdout).text();
  const last = JSON.parse(out.trim().split("\n").at(-1)!);
  expect(last).toMatchObject({
    level: "info",
    message: "stopped",
    signal: "SIGTERM",
    inFlight: 8,
    inFlightOutcome: "finished",
    database: "closed",
  });
  expect(last.durationMs).toBeNumber();
}, 30_000);

test("a request that does not finish within SHUTDOWN_DRAIN_SECONDS is cut, and the process still exits 0", async () => {
  const { child, port } = await spawnGateway({ SHUTDOWN_DRAIN_SECONDS: "0.5" });
  await ready(port);
  const stuck = trickled(port, JSON.stringify({ client_id: "never-finished" }));
  await stuck.connected;
  await Bun.sleep(200);
  child.kill("SIGTERM");
  expect(await child.exited).toBe(0);
  const out = await new Response(child.stdout).text();
  expect(JSON.parse(out.trim().split("\n").at(-1)!)).toMatchObject({
    message: "stopped",
    inFlightOutcome: "cut after 0.5 s",
  });
  expect(await stuck.done).not.toContain("200 OK");
}, 30_000);
