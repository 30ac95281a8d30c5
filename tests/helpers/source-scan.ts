/**
 * The architecture tests' means (tests/unit/architecture-*.test.ts): the source files of src/server,
 * and the one rule their allow-lists keep: what a test finds today may stay listed, nothing new may
 * appear, and an entry that no longer holds must be struck from its list, so each list only shrinks.
 */
import { expect } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const SERVER = join(import.meta.dir, "../../src/server");

/** Every .ts/.tsx file under src/server, as a path relative to it (`http/plumbing.ts`), sorted. */
export function serverFiles(): string[] {
  return (readdirSync(SERVER, { recursive: true }) as string[])
    .filter((path) => /\.tsx?$/.test(path))
    .map((path) => path.replaceAll("\\", "/"))
    .sort();
}

export function readServerFile(path: string): string {
  return readFileSync(join(SERVER, path), "utf8");
}

/**
 * `found` may hold only what `known` lists, and `known` only what is still found. Both messages name
 * the entries, so a failure says what to fix (or, for a stale entry, what to strike).
 */
export function expectOnlyShrinks(found: Iterable<string>, known: Iterable<string>, what: string): void {
  const now = new Set(found);
  const listed = new Set(known);
  const added = [...now].filter((entry) => !listed.has(entry)).sort();
  const gone = [...listed].filter((entry) => !now.has(entry)).sort();
  expect(added, `new ${what} (not allowed; remove it):\n${added.join("\n")}`).toEqual([]);
  expect(gone, `${what} no longer found (strike it from the allow-list):\n${gone.join("\n")}`).toEqual([]);
}
