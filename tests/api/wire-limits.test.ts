/**
 * What the listeners answer at the edges of HTTP itself, over real sockets with a raw client: request
 * headers too large, and a body that does not arrive in time. Every answer is `{error, code}` JSON
 * from our code, on the public and the admin listener alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/server/config.ts";
import { RUNTIME_HEADER_BYTES } from "../../src/server/http/plumbing.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { expectJsonRefusal, getWithFiller, rawExchange } from "../helpers/raw-http.ts";
import { tempDir } from "../helpers/stack.ts";

const ADMIN = "test-admin-token";
let running: RunningGateway;

beforeAll(async () => {
  const config = loadConfig({
    PORT: "0",
    ADMIN_PORT: "0",
    ...(await databaseEnv(tempDir(), "gateway.db")),
    COOKIE_SECURE: "false",
    ADMIN_TOKEN: ADMIN,
  });
  running = await startGateway({ config: { ...config, bodyTimeoutMs: 400 }, log: () => {} });
}, 60_000);
afterAll(async () => {
  await running.stop();
}, 30_000);

const listeners = () => [
  ["public", running.publicUrl, "/healthz"],
  ["admin", running.adminUrl, "/admin/v1/overview"],
];

function get(path: string, extra: string) {
  return (write: (chunk: string) => boolean) => {
    write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ADMIN}\r\n${extra}\r\n`);
  };
}

describe("oversized request headers", () => {
  test("headers over 12 KiB get 431 headers_too_large as JSON, on both listeners", async () => {
    for (const [, base, path] of listeners()) {
      const answer = await rawExchange(base!, { send: get(path!, `x-filler: ${"a".repeat(13 * 1024)}\r\n`) });
      expect(answer.status).toBe(431);
      expect(answer.headers["content-type"]).toContain("application/json");
      const body = JSON.parse(answer.body);
      expect(Object.keys(body).sort()).toEqual(["code", "error"]);
      expect(body.code).toBe("headers_too_large");
    }
  });

  test("many headers adding up over 12 KiB are refused the same way; 11 KiB passes", async () => {
    const many = Array.from({ length: 26 }, (_, i) => `x-h${i}: ${"b".repeat(500)}\r\n`).join("");
    const refused = await rawExchange(running.publicUrl, { send: get("/healthz", many) });
    expect(refused.status).toBe(431);
    expect(JSON.parse(refused.body).code).toBe("headers_too_large");
    const fine = await rawExchange(running.publicUrl, {
      send: get("/healthz", `x-filler: ${"a".repeat(11 * 1024)}\r\nconnection: close\r\n`),
    });
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.body)).toEqual({ ok: true });
  });

  test("headers of 20 KiB and 64 KiB, over Bun's default 16 KiB, get the same JSON, on both listeners", async () => {
    for (const [, base, path] of listeners())
      for (const kib of [20, 64])
        expectJsonRefusal(await getWithFiller(base!, path!, kib * 1024), 431, "headers_too_large");
  });

  test("over the runtime's backstop (256 KiB) Bun itself answers a bare 431 (documented)", async () => {
    const answer = await getWithFiller(running.publicUrl, "/healthz", RUNTIME_HEADER_BYTES);
    expect(answer.status).toBe(431);
    expect(answer.body).toBe("");
  });

  test("more than 196 header fields, however short: Bun's bare 431 (its field count is fixed; documented)", async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `x-h${i}: v\r\n`).join("");
    const within = await rawExchange(running.publicUrl, {
      send: get("/healthz", `${fields(190)}connection: close\r\n`),
    });
    expect(within.status).toBe(200);
    const over = await rawExchange(running.publicUrl, { send: get("/healthz", fields(200)) });
    expect(over.status).toBe(431);
    expect(over.body).toBe("");
  });
});

describe("a slow upload", () => {
  const trickle = (head: string) => async (write: (chunk: string) => boolean) => {
    write(head);
    for (let i = 0; i < 40; i++) {
      await Bun.sleep(100);
      if (!write("a")) return;
    }
  };

  test("a body that does not arrive within the bound gets 408 request_timeout as JSON, on both listeners", async () => {
    const targets = [
      [running.publicUrl, "/v1/resources", ""],
      [running.adminUrl, "/admin/v1/data/authorize-write", `authorization: Bearer ${ADMIN}\r\n`],
    ];
    for (const [base, path, auth] of targets) {
      const head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: application/json\r\ncontent-length: 1000\r\nx-service-csrf: 1\r\n\r\n{"name":"`;
      const answer = await rawExchange(base!, { send: trickle(head), timeoutMs: 3000 });
      expect(answer.timedOut).toBe(false);
      expect(answer.status).toBe(408);
      expect(answer.headers["content-type"]).toContain("application/json");
      const body = JSON.parse(answer.body);
      expect(Object.keys(body).sort()).toEqual(["code", "error"]);
      expect(body.code).toBe("request_timeout");
      expect(answer.elapsed).toBeLessThan(2000);
    }
    // Nothing was created by the cut request.
    const rows = (await sql(running.gateway.storage).get(
      "SELECT count(*) AS n FROM resources WHERE type != '_app'",
    )) as { n: number };
    expect(rows.n).toBe(0);
  });

  test("a body that arrives within the bound is handled as usual", async () => {
    const body = JSON.stringify({ resourceId: "r", userId: "u" });
    const answer = await rawExchange(running.adminUrl, {
      send: async (write) => {
        write(
          `POST /admin/v1/data/authorize-write HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ADMIN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
        );
        await Bun.sleep(150);
        write(body);
      },
    });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).code).toBe("not_found");
  });
});

describe("HEAD", () => {
  test("HEAD /admin/v1/events answers the stream's headers and closes", async () => {
    const res = await fetch(`${running.adminUrl}/admin/v1/events`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${ADMIN}` },
      signal: AbortSignal.timeout(2000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(await res.text()).toBe("");
  });

  test("HEAD on a JSON route answers its headers with no body, as before", async () => {
    for (const url of [`${running.publicUrl}/healthz`, `${running.adminUrl}/admin/v1/overview`]) {
      const res = await fetch(url, {
        method: "HEAD",
        headers: { authorization: `Bearer ${ADMIN}` },
        signal: AbortSignal.timeout(2000),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.text()).toBe("");
    }
  });
});
