/** Temporary directories of tests and benches, removed when they are done. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/**
 * A new directory under the system's temporary one, removed when the process exits (a script) or
 * after the last test (`bun test` fires no exit event: tests/setup.ts calls removeTempDirs).
 */
export function tempDir(prefix = "sg-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.push(dir) === 1) process.on("exit", removeTempDirs);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
