/**
 * Every start-up failure is one line on stderr naming the cause and the variable to change, with exit
 * code 1: no stack trace, no source. Real processes (`gateway serve` and `gateway dev`).
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { freePort, tempDir } from "../helpers/stack.ts";

const main = join(import.meta.dir, "../../src/server/main.ts");
const blocker = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("taken") });
const taken = blocker.port!;
afterAll(() => blocker.stop(true));

async function start(command: "serve" | "dev", env: Record<string, string>) {
  const child = Bun.spawn(["bun", main, command], {
    cwd: tempDir("sg-startup-"),
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), 20_000);
  const code = await child.exited;
  clearTimeout(timer);
  const stderr = (await new Response(child.stderr).text()).trim();
  return { code, stderr };
}

/** One line, no stack frames, no source excerpt. */
function expectOneLine(stderr: string) {
  expect(stderr.split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
}

const ports = () => ({ PORT: String(freePort()), ADMIN_PORT: String(freePort()) });

test("serve: PORT in use names PORT", async () => {
  const { code, stderr } = await start("serve", { ...ports(), PORT: String(taken) });
  expect(code).toBe(1);
  expectOneLine(stderr);
  expect(stderr).toBe(
    `gateway: cannot listen on 127.0.0.1:${taken}: the port is in use. Stop what uses it, or set PORT to another port.`,
  );
}, 30_000);

test("serve: ADMIN_PORT in use names ADMIN_PORT", async () => {
  const { code, stderr } = await start("serve", { ...ports(), ADMIN_PORT: String(taken) });
  expect(code).toBe(1);
  expectOneLine(stderr);
  expect(stderr).toContain(`127.0.0.1:${taken}: the port is in use`);
  expect(stderr).toContain("set ADMIN_PORT to another port");
}, 30_000);

test("dev: the development provider's port in use (4444 is Hydra's own) names DEV_IDP_PORT", async () => {
  const { code, stderr } = await start("dev", {
    ...ports(),
    DEV_IDP_PORT: String(taken),
    DEMO_PORT: String(freePort()),
  });
  expect(code).toBe(1);
  expectOneLine(
    stderr
      .split("\n")
      .filter((line) => !line.includes("DEVELOPMENT IDENTITY PROVIDER"))
      .join("\n"),
  );
  expect(stderr).toContain(`127.0.0.1:${taken}: the port is in use`);
  expect(stderr).toContain("set DEV_IDP_PORT to another port");
}, 30_000);

test("PORT equal to ADMIN_PORT is a configuration error", async () => {
  const port = String(freePort());
  const { code, stderr } = await start("serve", { PORT: port, ADMIN_PORT: port });
  expect(code).toBe(1);
  expect(stderr).toBe(`configuration error: ADMIN_PORT must differ from PORT (both are ${port})`);
}, 30_000);

test.each([
  ["an address this machine does not have", "10.255.255.1"],
  ["a name that is no address", "bad host!"],
])(
  "serve: HOST set to %s names HOST",
  async (_, host) => {
    const env = ports();
    const { code, stderr } = await start("serve", { ...env, HOST: host });
    expect(code).toBe(1);
    expectOneLine(stderr);
    expect(stderr).toBe(
      `gateway: cannot listen on ${host}:${env.PORT}: "${host}" is not an address of this machine. Set HOST to one (127.0.0.1, 0.0.0.0, ::1 or ::).`,
    );
  },
  30_000,
);

test("serve: a DATABASE_PATH that cannot be created names DATABASE_PATH", async () => {
  const path = "/etc/hostname/gateway.db"; // under a file: no folder can be made there, even as root
  const { code, stderr } = await start("serve", { ...ports(), DATABASE_PATH: path });
  expect(code).toBe(1);
  expectOneLine(stderr);
  expect(stderr).toStartWith(`gateway: cannot open the database at ${path} (DATABASE_PATH): `);
  expect(stderr).toEndWith("Set DATABASE_PATH to a file in a folder the gateway's user may write.");
}, 30_000);
