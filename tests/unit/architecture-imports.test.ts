/**
 * No import circle in src/server. A circle means no file of it can be read, tested or replaced
 * without the others; the one through gateway.ts is how the service locator holds the house together.
 * Type-only imports count: a type names the module it comes from, so `import type { Principal }
 * from "../http/principal.ts"` in resources/ is the domain depending on HTTP all the same, and every
 * circle of today runs through one (without them there is none, which is how they went unnoticed).
 *
 * The graph is `importGraph()`'s (tests/helpers/source-scan.ts: type-only imports included). Every
 * elementary circle is listed, each from its alphabetically first file.
 * KNOWN_CYCLES holds today's: it may only shrink (a new circle fails, and so does a listed one that
 * is gone, until it is struck from the list).
 */
import { expect, test } from "bun:test";
import { expectOnlyShrinks, importGraph } from "../helpers/source-scan.ts";

/** Today's circles (each closes back to its first file). */
const KNOWN_CYCLES: string[] = [];

/** Every elementary circle, each written from its smallest file: `a → b → c` (c imports a). */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const start of [...graph.keys()].sort()) {
    const path = [start];
    const onPath = new Set(path);
    const walk = (file: string) => {
      for (const next of graph.get(file) ?? []) {
        if (next === start) found.push(path.join(" → "));
        else if (next > start && !onPath.has(next)) {
          path.push(next);
          onPath.add(next);
          walk(next);
          path.pop();
          onPath.delete(next);
        }
        if (found.length > 10_000) throw new Error("over 10,000 import circles: something else is wrong");
      }
    };
    walk(start);
  }
  return found;
}

test("the graph is read: app.ts imports the routes, type-only imports count", () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(100);
  expect(graph.get("app.ts")).toContain("resources/routes.ts");
  // `import type { Logger } from "../lib/log.ts"` only:
  expect(graph.get("http/plumbing.ts")).toContain("lib/log.ts");
});

test("the circle finder finds a circle of three and one of two, each once", () => {
  const graph = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts", "a.ts"]],
    ["c.ts", ["a.ts"]],
  ]);
  expect(cycles(graph).sort()).toEqual(["a.ts → b.ts", "a.ts → b.ts → c.ts"]);
});

test("no import circle in src/server but the known ones, and each known one still there", () => {
  expectOnlyShrinks(cycles(importGraph()), KNOWN_CYCLES, "import circles");
});
