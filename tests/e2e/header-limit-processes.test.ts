/**
 * Bun's own header limit (16 KiB by default, a bare 431 with no body) is raised by the gateway itself,
 * so a header block of 20 or 64 KiB reaches the gateway's 12 KiB limit and is answered with JSON
 * `headers_too_large`, however the gateway is started: `bun src/server/main.ts serve`, `bun start`,
 * `bun run dev`, and `serve --workers 2` (each worker is a process of its own). The compiled binary:
 * tests/e2e/binary.test.ts. Over real sockets with a raw client, on the public and admin listeners.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { expectJsonRefusal, getWithFiller } from "../helpers/raw-http.ts";
import { waitReady } from "../helpers/ready.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
let child: ReturnType<typeof Bun.spawn> | undefined;

afterEach(async () => {
  child?.kill("SIGTERM");
  await child?.exited;
  child = undefined;
});

async function start(command: string[], extraEnv: Record<string, string> = {}) {
  const port = freePort();
  const adminPort = freePort();
  child = Bun.spawn(command, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN: "limit-admin",
      DATABASE_PATH: join(tempDir(), "gateway.db"),
      ...extraEnv,
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  const publicUrl = `http://127.0.0.1:${port}`;
  const started = child;
  await waitReady(publicUrl, "/healthz").catch(async (error) => {
    // Say why: the process's own words (it may have exited, naming a port or a variable).
    started.kill("SIGTERM");
    const said = await new Response(started.stderr as ReadableStream).text();
    throw new Error(
      `${(error as Error).message}; exit ${await started.exited}; stderr: ${said.slice(-2000)}`,
    );
  });
  return { publicUrl, adminUrl: `http://127.0.0.1:${adminPort}` };
}

async function expectJsonRefusals(publicUrl: string, adminUrl: string) {
  for (const [base, path] of [
    [publicUrl, "/healthz"],
    [adminUrl, "/admin/v1/overview"],
  ] as const)
    for (const kib of [20, 64])
      expectJsonRefusal(await getWithFiller(base, path, kib * 1024), 431, "headers_too_large");
}

describe("headers of 20 and 64 KiB get JSON headers_too_large, however the gateway is started", () => {
  test("bun src/server/main.ts serve", async () => {
    const { publicUrl, adminUrl } = await start(["bun", "src/server/main.ts", "serve"]);
    await expectJsonRefusals(publicUrl, adminUrl);
  }, 30_000);

  test("bun start", async () => {
    const { publicUrl, adminUrl } = await start(["bun", "start"]);
    await expectJsonRefusals(publicUrl, adminUrl);
  }, 30_000);

  test("bun run dev", async () => {
    const { publicUrl, adminUrl } = await start(["bun", "run", "dev"], {
      DEV_IDP_PORT: String(freePort()),
      DEMO_PORT: String(freePort()),
    });
    await expectJsonRefusals(publicUrl, adminUrl);
  }, 30_000);

  test("serve --workers 2: every worker", async () => {
    const { publicUrl, adminUrl } = await start(["bun", "src/server/main.ts", "serve", "--workers", "2"]);
    // Each request on a connection of its own: the kernel spreads them over both workers, once both
    // are up (the first answers before the second has started).
    const workers = new Set<number>();
    for (let i = 0; i < 400 && workers.size < 2; i++) {
      const ready = await fetch(`${publicUrl}/readyz`, { headers: { connection: "close" } }).catch(
        () => null,
      );
      if (ready?.ok) workers.add(((await ready.json()) as { worker: number }).worker);
      else await Bun.sleep(25);
      if (workers.size < 2) await Bun.sleep(10);
    }
    expect(workers).toEqual(new Set([1, 2]));
    for (let i = 0; i < 4; i++) await expectJsonRefusals(publicUrl, adminUrl);
  }, 30_000);
});
