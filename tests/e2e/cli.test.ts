/** The command line a newcomer tries first: --version, --help and token, from a real process. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { version } from "../../package.json";
import { VARIABLES, type Variable } from "../../src/server/config.ts";
import { startFakeOidc } from "../helpers/fake-oidc.ts";
import { freePort } from "../helpers/stack.ts";

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
  expect(usage.exitCode).toBe(1);
  expect(usage.stderr.toString().trim()).toBe("gateway token: usage: gateway token <user> [--client <id>]");
});
