/** The command line a newcomer tries first: --version, --help and token, from a real process. */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { version } from "../../package.json";
import { VARIABLES, type Variable } from "../../src/server/config-variables.ts";
import { startFakeOidc } from "../helpers/fake-oidc.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const main = join(import.meta.dir, "../../src/server/main.ts");
const run = (...args: string[]) => Bun.spawnSync(["bun", main, ...args], { stdout: "pipe", stderr: "pipe" });

test("--version prints the package version and Bun's, and exits 0", () => {
  for (const flag of ["--version", "-v", "version"]) {
    const result = run(flag);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.toString().trim()).toBe(`gateway ${version} (Bun ${Bun.version})`);
    expect(result.stderr.toString()).toBe("");
  }
});

test("--help lists --version", () => {
  const result = run("--help");
  expect(result.exitCode).toBe(0);
  expect(result.stdout.toString()).toMatch(/^\s+--version\s/m);
});

test("--help lists every environment variable the configuration module reads, with its default and meaning", () => {
  const help = run("--help").stdout.toString();
  const names = Object.keys(VARIABLES) as Variable[];
  expect(names.length).toBeGreaterThan(25);
  for (const name of names) {
    const { default: fallback, meaning } = VARIABLES[name];
    const line = help.split("\n").find((l) => l.trimStart().startsWith(`${name} `));
    expect(line, name).toBeDefined();
    expect(line).toContain(meaning);
    if (fallback) expect(line).toContain(`(default: ${fallback})`);
  }
  // And the module reads no variable it does not declare: every name it reads is in the table.
  const source = readFileSync(join(import.meta.dir, "../../src/server/config.ts"), "utf8");
  const read = new Set([...source.matchAll(/\(env, "([A-Z_]+)"/g)].map((m) => m[1]!));
  expect(read.size).toBeGreaterThan(20);
  for (const name of read) expect(names).toContain(name as Variable);
});

test("gateway token refuses a provider that is not the development one, and says when none answers", async () => {
  const provider = await startFakeOidc();
  try {
    // Asynchronously: the provider answers from this process.
    const child = Bun.spawn(["bun", main, "token", "alice"], {
      env: { PATH: process.env.PATH ?? "", OIDC_ISSUER: provider.url },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await child.exited).toBe(1);
    expect(await new Response(child.stdout).text()).toBe("");
    expect((await new Response(child.stderr).text()).trim()).toBe(
      `gateway token: ${provider.url} is not gateway dev's development provider; gateway token only signs people in there (with a real provider, use its own tools, e.g. hydra perform authorization-code)`,
    );
    expect([...provider.seen.keys()]).toEqual(["/.well-known/openid-configuration"]);
  } finally {
    provider.stop();
  }
  const nobody = Bun.spawnSync(["bun", main, "token", "alice"], {
    env: { PATH: process.env.PATH ?? "", DEV_IDP_PORT: String(freePort()) },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(nobody.exitCode).toBe(1);
  expect(nobody.stderr.toString()).toMatch(
    /^gateway token: no identity provider answers at http:\/\/127\.0\.0\.1:\d+: start gateway dev first\n$/,
  );
  const usage = run("token");
  expect(usage.exitCode).toBe(2);
  expect(usage.stderr.toString()).toBe(
    "gateway token: missing argument: gateway token <user> [--client <id>] (gateway token --help shows the usage)\n",
  );
});

const COMMANDS = ["serve", "migrate", "keys", "dev", "token", "tui"];

/** Runs a command in an empty folder with the default configuration; returns what it printed and left. */
function runIn(args: string[], timeout = 15_000) {
  const cwd = tempDir("sg-cli-");
  const result = Bun.spawnSync(["bun", main, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", PORT: String(freePort()), ADMIN_PORT: String(freePort()) },
    stdout: "pipe",
    stderr: "pipe",
    timeout,
  });
  return {
    exitCode: result.exitCode,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
    left: readdirSync(cwd),
  };
}

test("every command answers --help and -h with its own usage on stdout, exit 0, and does nothing else", () => {
  for (const command of COMMANDS)
    for (const flag of ["--help", "-h"]) {
      const result = runIn([command, flag]);
      expect([command, flag, result.exitCode, result.stderr, result.left]).toEqual([
        command,
        flag,
        0,
        "",
        [],
      ]);
      expect(result.stdout).toStartWith(`Usage: gateway ${command}`);
    }
  // `gateway help <command>` says the same.
  expect(runIn(["help", "keys"]).stdout).toStartWith("Usage: gateway keys");
});

test("migrate --help creates no database; serve --bogus exits 2 without listening", () => {
  const migrate = runIn(["migrate", "--help"]);
  expect(migrate.exitCode).toBe(0);
  expect(migrate.left).toEqual([]);
  const port = freePort();
  const cwd = tempDir("sg-cli-");
  const serve = Bun.spawnSync(["bun", main, "serve", "--bogus"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), ADMIN_PORT: String(freePort()) },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 15_000,
  });
  expect(serve.exitCode).toBe(2);
  expect(serve.stdout.toString()).toBe("");
  expect(serve.stderr.toString()).toBe(
    "gateway serve: unknown option --bogus (gateway serve --help shows the usage)\n",
  );
  expect(readdirSync(cwd)).toEqual([]);
  // Nothing took the port: this process can bind it.
  Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response() }).stop(true);
});

test("every command refuses an unknown flag or a stray argument with one line and exit 2, and does nothing", () => {
  for (const command of COMMANDS) {
    const result = runIn([command, "--bogus"]);
    expect([command, result.exitCode, result.stdout, result.left]).toEqual([command, 2, "", []]);
    expect(result.stderr).toBe(
      `gateway ${command}: unknown option --bogus (gateway ${command} --help shows the usage)\n`,
    );
  }
  for (const [args, line] of [
    [["migrate", "now"], 'gateway migrate: unexpected argument "now"'],
    [["serve", "--workers", "0"], 'gateway serve: --workers must be a whole number from 1 to 256, got "0"'],
    [["serve", "--workers"], "gateway serve: --workers needs a value"],
    [["keys", "drop"], 'gateway keys: unknown action "drop": status, rotate or prune'],
    [["keys", "rotate", "--force"], "gateway keys: --force goes with prune only"],
    [["dev", "--verbose=1"], "gateway dev: unknown option --verbose"],
    [["token", "alice", "bob"], 'gateway token: unexpected argument "bob"'],
  ] as const) {
    const result = runIn([...args]);
    expect([args, result.exitCode, result.stdout, result.left]).toEqual([args, 2, "", []]);
    expect(result.stderr).toBe(`${line} (gateway ${args[0]} --help shows the usage)\n`);
  }
  const unknown = runIn(["--bogus"]);
  expect([unknown.exitCode, unknown.stderr]).toEqual([
    2,
    'gateway: unknown command "--bogus" (gateway --help lists the commands)\n',
  ]);
});
