/** The command line a newcomer tries first: --version and --help, from a real process. */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { version } from "../../package.json";

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
