/**
 * `gateway serve --workers 2`: two processes behind one port (SO_REUSEPORT), one database. Every
 * request here opens its own connection (`Connection: close`), so the kernel spreads them over both
 * workers (checked through /readyz, which names the worker). Storms keep every invariant, five tabs
 * refreshing one session make one provider call, a session ended anywhere is refused by every worker,
 * and the admin stream on either worker carries what both commit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "../helpers/db.ts";
import { CSRF, freePort, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
let child: ReturnType<typeof Bun.spawn>;
let url = "";
let adminUrl = "";

beforeAll(async () => {
  // The stack's in-process gateway signs users in; the workers serve them from the same database.
  stack = await startStack({ env: { ADMIN_TOKEN: "workers-token" } });
  const appsFile = join(stack.dataDir, "apps.json");
  writeFileSync(appsFile, JSON.stringify(stack.apps));
  const port = freePort();
  const adminPort = freePort();
  url = `http://127.0.0.1:${port}`;
  adminUrl = `http://127.0.0.1:${adminPort}`;
  child = Bun.spawn(["bun", "src/server/main.ts", "serve", "--workers", "2"], {
    env: {
      ...(process.env as Record<string, string>),
      ...stack.env,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      GATEWAY_CONFIG: appsFile,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let seen = new Set<number>(), i = 0; seen.size < 2 && i < 400; i++) {
    const worker = await readyWorker().catch(() => undefined);
    if (worker !== undefined) seen.add(worker);
    else await Bun.sleep(25);
  }
}, 60_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await child?.exited;
  await stack?.stop();
}, 30_000);

/** A request on a connection of its own (the kernel picks the worker). */
const fresh = (path: string, init: RequestInit = {}, base = url) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), connection: "close" },
  });

async function readyWorker(): Promise<number> {
  const res = await fresh("/readyz");
  return ((await res.json()) as { worker: number }).worker;
}

async function cookieOf(user: string): Promise<string> {
  const { browser } = await signIn(stack, user);
  return browser.cookieHeader(stack.url);
}

const db = () => sql(stack.running.gateway.storage);

describe("serve --workers 2", () => {
  test("connections are spread over both workers; both are ready", async () => {
    const workers = await Promise.all(Array.from({ length: 40 }, () => readyWorker()));
    expect(new Set(workers)).toEqual(new Set([1, 2]));
  });

  test("60 invites by one admin at once over both workers: exactly 50 pending", async () => {
    const owner = await cookieOf("wk-owner");
    const headers = { ...CSRF, cookie: owner };
    const created = await fresh("/v1/resources", {
      method: "POST",
      headers,
      body: JSON.stringify({ type: "team", name: "cap" }),
    });
    const { id } = (await created.json()) as { id: string };
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        fresh(`/v1/resources/${id}/invite`, {
          method: "POST",
          headers,
          body: JSON.stringify({ userId: `wk-invitee-${i}` }),
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(50);
    expect(statuses.filter((s) => s === 429).length).toBe(10);
    expect(
      await db().count("SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'invited'", id),
    ).toBe(50);
  }, 30_000);

  test("five tabs refreshing one session through both workers: one provider call, every tab signed in", async () => {
    const cookie = await cookieOf("wk-tabs");
    const before = stack.idp.calls["token:refresh_token"] ?? 0;
    const tabs = await Promise.all(
      Array.from({ length: 5 }, () =>
        fresh("/auth/refresh", { method: "POST", headers: { ...CSRF, cookie } }),
      ),
    );
    expect(tabs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((stack.idp.calls["token:refresh_token"] ?? 0) - before).toBe(1);
    for (const tab of tabs) {
      const next = tab.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const session = await fresh("/auth/session", { headers: { cookie: next || cookie } });
      expect(await session.json()).toEqual({ authenticated: true, user_id: "wk-tabs" });
    }
  }, 30_000);

  test("a session ended by one worker is refused by every worker on the next request", async () => {
    const cookie = await cookieOf("wk-logout");
    const warm = await Promise.all(
      Array.from({ length: 10 }, () => fresh("/v1/me", { headers: { cookie } })),
    );
    expect(warm.map((r) => r.status)).toEqual(Array(10).fill(200));
    const out = await fresh("/auth/logout", { method: "POST", headers: { ...CSRF, cookie } });
    expect(out.status).toBe(200);
    const after = await Promise.all(
      Array.from({ length: 20 }, () => fresh("/v1/me", { headers: { cookie } })),
    );
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(401));
  }, 30_000);

  test("the admin stream on one worker carries the changes both workers commit", async () => {
    const owner = await cookieOf("wk-stream");
    const headers = { ...CSRF, cookie: owner };
    const controller = new AbortController();
    const stream = await fetch(`${adminUrl}/admin/v1/events`, {
      headers: { authorization: "Bearer workers-token" },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    let text = "";
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of stream.body!) text += decoder.decode(chunk, { stream: true });
      } catch {}
    })();
    await Bun.sleep(200);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await fresh("/v1/resources", {
        method: "POST",
        headers,
        body: JSON.stringify({ type: "team", name: `stream ${i}` }),
      });
      expect(created.status).toBe(200);
      ids.push(((await created.json()) as { id: string }).id);
    }
    const shown = () => ids.filter((id) => text.includes(`"resourceId":"${id}"`));
    for (let i = 0; i < 250 && shown().length < ids.length; i++) await Bun.sleep(20);
    controller.abort();
    expect(shown()).toEqual(ids);
  }, 30_000);
});
