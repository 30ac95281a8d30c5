/**
 * What an operator sees from a real `gateway serve` process: JSON lines from start-up on, the
 * warnings for an unset ADMIN_TOKEN and an unreachable provider, an access-log line per request, the
 * provider failure behind a 502 (endpoint, error, duration), request ids honoured and returned, and
 * /readyz unready until the provider's discovery has loaded.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { databaseEnv } from "../helpers/db.ts";
import { type FakeOidc, startFakeOidc } from "../helpers/fake-oidc.ts";
import { waitReady } from "../helpers/ready.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const main = join(import.meta.dir, "../../src/server/main.ts");
const providerPort = freePort();
const issuer = `http://127.0.0.1:${providerPort}`;
const port = freePort();
const url = `http://127.0.0.1:${port}`;
let child: ReturnType<typeof Bun.spawn>;
let provider: FakeOidc | undefined;
let out = "";
const reading = { done: Promise.resolve() };

beforeAll(async () => {
  const dir = tempDir("sg-ops-");
  child = Bun.spawn(["bun", main, "serve"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      ADMIN_PORT: String(freePort()),
      ...(await databaseEnv(dir, "gateway.db")),
      OIDC_ISSUER: issuer,
      COOKIE_SECURE: "false",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  reading.done = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
  })();
  await waitReady(url, "/healthz");
}, 30_000);
afterAll(async () => {
  child?.kill();
  provider?.stop();
});

/** Every stdout line so far, parsed: each must be JSON. */
function lines(): Array<Record<string, unknown>> {
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function lineWhere(match: (line: Record<string, unknown>) => boolean) {
  for (let i = 0; i < 100; i++) {
    const found = lines().find(match);
    if (found) return found;
    await Bun.sleep(20);
  }
  throw new Error(`no such log line in:\n${out}`);
}

test("start-up is JSON lines, and warns about the unset ADMIN_TOKEN and the unreachable provider", async () => {
  const listening = await lineWhere((l) => l.message === "listening");
  expect(listening).toMatchObject({ level: "info", publicUrl: url });
  expect(await lineWhere((l) => String(l.message).startsWith("ADMIN_TOKEN is not set"))).toMatchObject({
    level: "warn",
    message: "ADMIN_TOKEN is not set: the admin API and /metrics answer 503 admin_disabled",
  });
  const unreachable = await lineWhere((l) => String(l.message).includes("could not be reached at start-up"));
  expect(unreachable.level).toBe("warn");
  expect(String(unreachable.cause)).toContain(`GET ${issuer}/.well-known/openid-configuration failed:`);
  for (const line of lines()) expect(typeof line.at).toBe("string");
});

test("/readyz is 503 naming the provider until discovery loads, /healthz is 200 all along", async () => {
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  const unready = await fetch(`${url}/readyz`);
  expect(unready.status).toBe(503);
  expect(await unready.json()).toEqual({
    error: "The identity provider's discovery document has not been loaded.",
    code: "not_ready",
    checks: { database: "ok", provider: "unreachable" },
  });
});

test("a 502 from an unreachable provider logs the endpoint, the error and the duration, under the request id", async () => {
  const res = await fetch(`${url}/v1/me`, { headers: { authorization: "Bearer some-opaque-token-value" } });
  expect(res.status).toBe(502);
  expect(await res.json()).toEqual({
    error: "The identity provider could not be reached.",
    code: "idp_unavailable",
  });
  const id = res.headers.get("x-request-id")!;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const failure = await lineWhere((l) => l.message === "identity provider failed" && l.requestId === id);
  expect(failure).toMatchObject({
    level: "warn",
    route: "/v1/me",
    code: "idp_unavailable",
    provider: { endpoint: `${issuer}/.well-known/openid-configuration`, error: "ECONNREFUSED" },
  });
  expect((failure.provider as { durationMs: number }).durationMs).toBeNumber();
  const access = await lineWhere((l) => l.message === "request" && l.requestId === id);
  expect(access).toMatchObject({
    method: "GET",
    route: "/v1/me",
    status: 502,
    credential: null,
    clientId: null,
  });
  expect(out).not.toContain("some-opaque-token-value");
});

test("an incoming X-Request-Id is kept when valid and replaced when not; every answer carries one", async () => {
  const kept = await fetch(`${url}/healthz`, { headers: { "x-request-id": "lb-1f2e:trace=abc" } });
  expect(kept.headers.get("x-request-id")).toBe("lb-1f2e:trace=abc");
  await lineWhere((l) => l.requestId === "lb-1f2e:trace=abc" && l.route === "/healthz" && l.status === 200);
  for (const bad of ["x".repeat(129), "has space", 'quote"', "é-accent"]) {
    const replaced = await fetch(`${url}/v1/resources/some-id`, {
      headers: { "x-request-id": encodeURIComponent(bad) === bad ? bad : bad.replace(/[^\x20-\x7e]/g, "?") },
    });
    expect(replaced.status).toBe(401);
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  }
  const missing = await fetch(`${url}/no/such/route`);
  expect(missing.status).toBe(404);
  const id = missing.headers.get("x-request-id")!;
  expect(await lineWhere((l) => l.requestId === id)).toMatchObject({ route: "other", status: 404 });
});

test("/readyz turns 200 once the provider answers, without a restart", async () => {
  provider = await startFakeOidc(providerPort);
  let ready: Response | undefined;
  for (let i = 0; i < 50; i++) {
    ready = await fetch(`${url}/readyz`);
    if (ready.status === 200) break;
    await Bun.sleep(100);
  }
  expect(ready!.status).toBe(200);
  expect(await ready!.json()).toEqual({ ready: true, checks: { database: "ok", provider: "ok" } });
}, 15_000);
