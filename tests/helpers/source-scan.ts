/**
 * The architecture tests' means (tests/unit/architecture-*.test.ts): the source files of src/server,
 * and the one rule their allow-lists keep: what a test finds today may stay listed, nothing new may
 * appear, and an entry that no longer holds must be struck from its list, so each list only shrinks.
 */
import { expect } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

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

const transpilers = {
  ts: new Bun.Transpiler({ loader: "ts" }),
  tsx: new Bun.Transpiler({ loader: "tsx" }),
};

/** The source with its type-only imports and re-exports made plain ones, which the scan then keeps. */
function withTypeImports(code: string): string {
  return code
    .replace(/^#!.*/, "")
    .replace(/^(\s*)import\s+type\s+/gm, "$1import ")
    .replace(/^(\s*)export\s+type\s+(?=[{*])/gm, "$1export ")
    .replace(/import\s*\{[^}]*\}\s*from/g, (statement) => statement.replace(/\btype\s+/g, ""));
}

/**
 * file → the src/server files it imports (paths relative to src/server): each file's import,
 * export-from and dynamic import statements (Bun's transpiler, with the `type` modifiers taken off so
 * that it keeps type-only ones), relative specifiers only, edges inside src/server only.
 */
export function importGraph(): Map<string, string[]> {
  const files = serverFiles();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const transpiler = file.endsWith(".tsx") ? transpilers.tsx : transpilers.ts;
    const targets = transpiler
      .scanImports(withTypeImports(readServerFile(file)))
      .map((entry) => entry.path)
      .filter((path) => path.startsWith("."))
      .map((path) => normalize(join(dirname(file), path)))
      .filter((path) => known.has(path));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}
