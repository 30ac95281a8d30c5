/** The one binary: built with Bun.build compile, started in an empty folder, it migrates and serves. */
import { afterAll, expect, test } from "bun:test";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { version } from "../../package.json";
import { LANDING_CLIENT_ID } from "../../src/server/landing.ts";
import { expectJsonRefusal, getWithFiller } from "../helpers/raw-http.ts";
import { waitReady } from "../helpers/ready.ts";
import { freePort, type Stack, signIn, tempDir } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
const dir = tempDir("sg-binary-");
const binary = join(dir, "bin", "gateway");
let child: ReturnType<typeof Bun.spawn> | undefined;
let dev: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => {
  child?.kill();
  dev?.kill();
  rmSync(dir, { recursive: true, force: true }); // the binary is over 100 MB
});

/** The command names `--help` lists under "Commands:". */
function commandsIn(help: string): string[] {
  const section = help.slice(help.indexOf("Commands:\n"), help.indexOf("\n\n", help.indexOf("Commands:\n")));
  return [...section.matchAll(/^ {2}(\w+) /gm)].map((match) => match[1]!);
}

test("build, start from an empty folder, migrate, serve /healthz; --help lists subcommands", async () => {
  const build = Bun.spawnSync(["bun", "scripts/build.ts", binary], {
    cwd: root,
    stderr: "pipe",
    stdout: "pipe",
  });
  expect(build.exitCode).toBe(0);

  const versionLine = Bun.spawnSync([binary, "--version"], { stdout: "pipe" });
  expect(versionLine.exitCode).toBe(0);
  expect(versionLine.stdout.toString()).toStartWith(`gateway ${version} (Bun `);

  const help = Bun.spawnSync([binary, "--help"], { stdout: "pipe" });
  expect(help.exitCode).toBe(0);
  const helpText = help.stdout.toString();
  expect(commandsIn(helpText)).toEqual(["serve", "migrate", "keys", "dev", "token", "tui", "help"]);

  const bad = Bun.spawnSync([binary, "serve"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", PORT: "eighty" },
    stderr: "pipe",
  });
  expect(bad.exitCode).toBe(1);
  expect(bad.stderr.toString().trim()).toBe(
    'configuration error: PORT must be a port number 0-65535, got "eighty"',
  );

  const work = join(dir, "empty");
  Bun.spawnSync(["mkdir", "-p", work]);
  const port = freePort();
  const adminPort = freePort();
  child = Bun.spawn([binary, "serve"], {
    cwd: work,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN: "bin-admin",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let body: unknown;
  for (let i = 0; i < 100 && body === undefined; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      body = await res.json();
    } catch {
      await Bun.sleep(50);
    }
  }
  expect(body).toEqual({ ok: true });
  expect(existsSync(join(work, "data", "gateway.db"))).toBe(true);
  // The compiled binary raises Bun's own header limit too: 20 and 64 KiB reach the gateway's, as JSON.
  for (const base of [`http://127.0.0.1:${port}`, `http://127.0.0.1:${adminPort}`])
    for (const kib of [20, 64])
      expectJsonRefusal(await getWithFiller(base, "/healthz", kib * 1024), 431, "headers_too_large");

  // With no OIDC_ISSUER (and no KRATOS_PUBLIC_URL) the provider-facing endpoints say so over the wire.
  const authorize = await fetch(`http://127.0.0.1:${port}/auth/authorize?client_id=x`, {
    redirect: "manual",
  });
  expect(authorize.status).toBe(503);
  expect(await authorize.json()).toMatchObject({ code: "issuer_not_configured", error: expect.any(String) });
  const kratos = await fetch(`http://127.0.0.1:${port}/auth/kratos/flow?type=login&id=abc`);
  expect(kratos.status).toBe(503);

  // The same binary runs the TUI; with stdout not a terminal it prints the overview and exits.
  const tui = Bun.spawn(
    [binary, "tui", "--json", "--url", `http://127.0.0.1:${adminPort}`, "--token", "bin-admin"],
    {
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  expect(await tui.exited).toBe(0);
  const overview = JSON.parse(await new Response(tui.stdout).text());
  expect(overview).toMatchObject({
    sessions: { active: 0 },
    resources: 1,
    pending: { invited: 0, requested: 0 },
  });
}, 60_000);

test("the binary's dev signs a person in end to end (the provider's token endpoint works when compiled)", async () => {
  expect(existsSync(binary)).toBe(true); // built by the test above
  const port = freePort();
  const idpPort = freePort();
  const work = join(dir, "dev");
  Bun.spawnSync(["mkdir", "-p", work]);
  dev = Bun.spawn([binary, "dev"], {
    cwd: work,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      ADMIN_PORT: String(freePort()),
      DEV_IDP_PORT: String(idpPort),
      DEMO_PORT: String(freePort()),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url);
  const stackLike = {
    url,
    idp: { issuer: `http://127.0.0.1:${idpPort}` },
    redirectUri: `${url}/`,
  } as unknown as Stack;
  const { browser, token } = await signIn(stackLike, "binary-person", undefined, LANDING_CLIENT_ID);
  expect(token.status).toBe(200);
  expect(await (await browser.fetch(`${url}/auth/session`)).json()).toEqual({
    authenticated: true,
    user_id: "binary-person",
  });
  dev.kill();
  const printed = await new Response(dev.stderr as ReadableStream).text();
  expect(printed).not.toContain("DeprecationWarning");
}, 60_000);

test("the serve-only build leaves development out: smaller, serves, and says dev, token and tui are elsewhere", async () => {
  const serveOnly = join(dir, "bin", "gateway-serve");
  const build = Bun.spawnSync(["bun", "scripts/build.ts", serveOnly, "--serve-only"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(build.exitCode).toBe(0);
  expect(build.stdout.toString()).toMatch(
    /^built .+gateway-serve: [\d.]+ MB, of which [\d.]+ MB is the gateway's JavaScript\n$/,
  );
  // The development provider, the demo and the TUI are megabytes of JavaScript: the full build is larger.
  expect(statSync(serveOnly).size).toBeLessThan(statSync(binary).size - 1024 * 1024);
  // Its --help lists only the commands it contains.
  const help = Bun.spawnSync([serveOnly, "--help"], { stdout: "pipe", stderr: "pipe" });
  expect(help.exitCode).toBe(0);
  expect(commandsIn(help.stdout.toString())).toEqual(["serve", "migrate", "keys", "help"]);
  for (const command of ["dev", "token", "tui"]) {
    const refused = Bun.spawnSync([serveOnly, command], { stdout: "pipe", stderr: "pipe" });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.toString()).toBe(
      "gateway: dev, token and tui are not in this serve-only build; the full build (bun scripts/build.ts) has them\n",
    );
  }
  const work = join(dir, "serve-only");
  Bun.spawnSync(["mkdir", "-p", work]);
  const port = freePort();
  const server = Bun.spawn([serveOnly, "serve"], {
    cwd: work,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), ADMIN_PORT: String(freePort()) },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    await waitReady(`http://127.0.0.1:${port}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await ready.json()).toEqual({
      ready: true,
      checks: { database: "ok", provider: "not_configured" },
    });
    expectJsonRefusal(
      await getWithFiller(`http://127.0.0.1:${port}`, "/healthz", 64 * 1024),
      431,
      "headers_too_large",
    );
  } finally {
    server.kill();
  }
}, 60_000);
