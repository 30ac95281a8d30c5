/**
 * `gateway dev` signs in anyone who types a name, so it binds loopback only: a non-loopback HOST or
 * ADMIN_HOST stops it with one line naming the variable. Its admin token is random per start (printed
 * in the banner) unless ADMIN_TOKEN is set, so no well-known token opens its admin API.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { freePort, tempDir } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
const children: Array<ReturnType<typeof Bun.spawn>> = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

function startDev(env: Record<string, string> = {}) {
  const ports = { PORT: freePort(), ADMIN_PORT: freePort(), DEV_IDP_PORT: freePort(), DEMO_PORT: freePort() };
  const child = Bun.spawn(["bun", join(root, "src/server/main.ts"), "dev"], {
    cwd: tempDir("sg-dev-"),
    env: {
      PATH: process.env.PATH ?? "",
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(child);
  return { child, adminUrl: `http://127.0.0.1:${ports.ADMIN_PORT}` };
}

/** Reads a stream until `pattern` matches (or it ends, or `ms` pass). */
async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp, ms = 20_000) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + ms;
  let text = "";
  try {
    while (!pattern.test(text) && Date.now() < deadline) {
      const next = await Promise.race([
        reader.read(),
        Bun.sleep(deadline - Date.now()).then(() => undefined),
      ]);
      if (!next || next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return { text, match: pattern.exec(text) };
}

/** Waits for the process to exit (or kills it after `ms`); returns the exit code and what it printed. */
async function exitOf(child: ReturnType<typeof Bun.spawn>, ms = 10_000) {
  const code = await Promise.race([child.exited, Bun.sleep(ms).then(() => "still running" as const)]);
  if (code === "still running") child.kill();
  const stdout = await new Response(child.stdout as ReadableStream).text();
  const stderr = await new Response(child.stderr as ReadableStream).text();
  return { code, stdout, stderr };
}

const overview = (adminUrl: string, token: string) =>
  fetch(`${adminUrl}/admin/v1/overview`, { headers: { authorization: `Bearer ${token}` } });

describe("gateway dev binds loopback only", () => {
  test.each([
    ["ADMIN_HOST", "0.0.0.0"],
    ["HOST", "0.0.0.0"],
    ["HOST", "192.168.1.10"],
    ["ADMIN_HOST", "::"],
    ["ADMIN_HOST", "example.com"],
  ])(
    "%s=%s stops it with one line naming the variable",
    async (variable, value) => {
      const { child, adminUrl } = startDev({ [variable]: value });
      const { code, stdout, stderr } = await exitOf(child);
      expect(code).toBe(1);
      const lines = stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toStartWith(`configuration error: ${variable} `);
      expect(lines[0]).toContain(`"${value}"`);
      expect(stdout).not.toContain("Authorization: Bearer");
      await expect(fetch(`${adminUrl}/admin/v1/overview`)).rejects.toThrow();
    },
    20_000,
  );

  test.each([["127.0.0.1"], ["127.8.9.10"], ["localhost"]])(
    "HOST=ADMIN_HOST=%s (loopback) starts",
    async (host) => {
      const { child } = startDev({ HOST: host, ADMIN_HOST: host });
      const { match } = await readUntil(child.stdout as ReadableStream, /Authorization: Bearer (\S+)/);
      expect(match).not.toBeNull();
    },
    30_000,
  );
});

describe("gateway dev's admin token", () => {
  test("is random per start and printed; the printed one works, dev-admin-token gets 401", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { child, adminUrl } = startDev();
      const { match, text } = await readUntil(child.stdout as ReadableStream, /Authorization: Bearer (\S+)/);
      expect(match, text).not.toBeNull();
      const token = match![1]!;
      expect(token).not.toBe("dev-admin-token");
      expect(token.length).toBeGreaterThanOrEqual(22);
      const ok = await overview(adminUrl, token);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ sessions: { active: 0 } });
      const wellKnown = await overview(adminUrl, "dev-admin-token");
      expect(wellKnown.status).toBe(401);
      expect(await wellKnown.json()).toMatchObject({ code: "unauthenticated" });
      tokens.push(token);
      child.kill();
      await child.exited;
    }
    expect(tokens[0]).not.toBe(tokens[1]);
  }, 60_000);

  test("ADMIN_TOKEN, when set, is the token", async () => {
    const { child, adminUrl } = startDev({ ADMIN_TOKEN: "my-own-dev-token-0123456789" });
    const { match } = await readUntil(child.stdout as ReadableStream, /Authorization: Bearer (\S+)/);
    expect(match![1]).toBe("my-own-dev-token-0123456789");
    expect((await overview(adminUrl, "my-own-dev-token-0123456789")).status).toBe(200);
  }, 30_000);
});
