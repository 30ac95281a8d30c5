/**
 * The SDK as an app developer gets it: `npm pack` (its prepack builds dist/) makes the tarball, and npm
 * installs it offline into a fresh project with no other package.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../..");

export function run(command: string[], cwd: string, env: Record<string, string> = {}) {
  const result = Bun.spawnSync(command, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() };
}

/** Packs packages/sdk into `destination`; the tarball's path. */
export function packSdk(destination: string): string {
  const packed = run(
    ["npm", "pack", "--pack-destination", destination, "--json"],
    join(REPO, "packages/sdk"),
  );
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.err}`);
  return join(destination, JSON.parse(packed.out.slice(packed.out.indexOf("[")))[0].filename);
}

/** A fresh ESM project in `project` with the tarball installed (offline: it has no dependency). */
export function installSdk(project: string, tarball: string): void {
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "sdk-user", private: true, type: "module" }),
  );
  const installed = run(["npm", "install", "--no-audit", "--no-fund", "--offline", tarball], project);
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.err}`);
}
