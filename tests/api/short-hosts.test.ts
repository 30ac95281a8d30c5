/**
 * Requests are routed by their path alone, whatever the Host header: a Host of 1, 2 or 3 characters
 * (or an empty one, or none over HTTP/1.0) must not move where the path is read from, whether the
 * answer is synchronous (a caller seen before) or not (a body). Regression: with `Host: ab`,
 * `GET /healthz` was 404 and `POST /x/v1/resources/<id>/join` was carried out as a join. Over a real
 * socket with a raw client; the router in process too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildPublicApp } from "../../src/server/app.ts";
import { sql } from "../helpers/db.ts";
import { rawExchange } from "../helpers/raw-http.ts";
import { CSRF, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
let album: string;
let bobBearer: string;
let bobId: string;

const HOSTS = ["a", "ab", "abc"];

beforeAll(async () => {
  stack = await startStack();
  const gateway = stack.running.gateway;
  const alice = (await signIn(stack, "alice")).browser.cookieHeader(stack.url);
  const { browser } = await signIn(stack, "bob");
  const cookie = browser.cookieHeader(stack.url);
  bobBearer = `Bearer ${(await gateway.sealer.unseal(cookie.slice(cookie.indexOf("=") + 1)))!.at}`;
  const created = await fetch(`${stack.url}/v1/resources`, {
    method: "POST",
    headers: { ...CSRF, cookie: alice },
    body: JSON.stringify({ type: "album", name: "Open album", visibility: "discoverable" }),
  });
  expect(created.status).toBe(200);
  album = ((await created.json()) as { id: string }).id;
  // Bob's bearer token seen once: now known from memory (the synchronous answer's path below).
  const me = await fetch(`${stack.url}/v1/me`, { headers: { authorization: bobBearer } });
  expect(me.status).toBe(200);
  bobId = ((await me.json()) as { userId: string }).userId;
}, 60_000);

afterAll(async () => {
  await stack.stop();
}, 30_000);

/** One raw request; `host` null sends no Host line. */
function send(method: string, path: string, host: string | null, extra = "", body = "", version = "1.1") {
  const hostLine = host === null ? "" : `host: ${host}\r\n`;
  const length = method === "POST" ? `content-length: ${Buffer.byteLength(body)}\r\n` : "";
  return rawExchange(stack.url, {
    send: (write) => {
      write(
        `${method} ${path} HTTP/${version}\r\n${hostLine}${length}${extra}connection: close\r\n\r\n${body}`,
      );
    },
  });
}

const bearer = () => `authorization: ${bobBearer}\r\n`;
const membership = () =>
  sql(stack.running.gateway.storage).get(
    "SELECT state FROM members WHERE resource_id = ? AND user_id = ?",
    album,
    bobId,
  );

describe("a Host of 1 to 3 characters, over a socket", () => {
  test.each(HOSTS)("Host %p: GET /healthz is the health answer", async (host) => {
    const answer = await send("GET", "/healthz", host);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true });
  });

  test.each(HOSTS)("Host %p: the admin listener routes by path too", async (host) => {
    const answer = await rawExchange(stack.adminUrl, {
      send: (write) => {
        write(
          `GET /admin/v1/overview HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer test-admin-token\r\nconnection: close\r\n\r\n`,
        );
      },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).sessions.active).toBeGreaterThan(0);
  });

  test.each(HOSTS)("Host %p: GET /v1/me answers the caller", async (host) => {
    const answer = await send("GET", "/v1/me", host, bearer());
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).userId).toBe(bobId);
  });

  test.each(HOSTS)(
    "Host %p: POST /x/v1/resources/<id>/join is 404 not_found and joins no one (with a body and without)",
    async (host) => {
      // With a body and without: the router reads the path the same way.
      for (const body of ["", "{}"]) {
        const extra = `${bearer()}${body ? "content-type: application/json\r\n" : ""}`;
        const answer = await send("POST", `/x/v1/resources/${album}/join`, host, extra, body);
        expect(answer.status).toBe(404);
        expect(JSON.parse(answer.body)).toMatchObject({ code: "not_found" });
        expect(await membership()).toBeNull();
      }
    },
  );

  test('Host "ab": the real join and leave paths still work, with a body and without', async () => {
    for (const body of ["", "{}"]) {
      const extra = `${bearer()}${body ? "content-type: application/json\r\n" : ""}`;
      const joined = await send("POST", `/v1/resources/${album}/join`, "ab", extra, body);
      expect(joined.status).toBe(200);
      expect(await membership()).toEqual({ state: "active" });
      const left = await send("POST", `/v1/resources/${album}/leave`, "ab", extra, body);
      expect(left.status).toBe(200);
      expect(await membership()).toBeNull();
    }
  });

  test("the metrics count a short-Host request under its route", async () => {
    await send("GET", "/healthz", "a");
    const metrics = await fetch(`${stack.adminUrl}/metrics`, {
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(await metrics.text()).toMatch(/route="\/healthz",status="200"\} [1-9]/);
  });
});

describe("no host in the URL (an empty Host, none over HTTP/1.0)", () => {
  test("GET /healthz and GET /v1/resources/browse answer", async () => {
    for (const [host, version] of [
      ["", "1.1"],
      [null, "1.0"],
    ] as const) {
      const health = await send("GET", "/healthz", host, "", "", version);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toEqual({ ok: true });
      const browse = await send("GET", "/v1/resources/browse?type=album", host, bearer(), "", version);
      expect(browse.status).toBe(200);
      expect(JSON.parse(browse.body).resources.map((r: { id: string }) => r.id)).toContain(album);
    }
  });

  test("POST /xxxxxxx/v1/resources/<id>/join is 404 and joins no one", async () => {
    for (const body of ["", "{}"]) {
      const extra = `${bearer()}${body ? "content-type: application/json\r\n" : ""}`;
      const answer = await send("POST", `/xxxxxxx/v1/resources/${album}/join`, "", extra, body);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ code: "not_found" });
      expect(await membership()).toBeNull();
    }
  });
});

describe("in process", () => {
  test.each(HOSTS)("Host %p: the framework routes by path", async (host) => {
    const app = buildPublicApp(stack.running.gateway);
    const health = await app.handle(new Request(`http://${host}/healthz`));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const stray = await app.handle(new Request(`http://${host}/x/healthz`));
    expect(stray.status).toBe(404);
  });

  test.each(HOSTS)("Host %p: /v1/me for a caller known from memory, and not under /x", async (host) => {
    const app = buildPublicApp(stack.running.gateway);
    const me = await app.handle(
      new Request(`http://${host}/v1/me`, { headers: { authorization: bobBearer } }),
    );
    expect(me.status).toBe(200);
    expect(((await me.json()) as { via: string }).via).toBe("bearer");
    const stray = await app.handle(
      new Request(`http://${host}/x/v1/me`, { headers: { authorization: bobBearer } }),
    );
    expect(stray.status).toBe(404);
  });
});
