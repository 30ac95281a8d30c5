/**
 * The domain never imports HTTP. The rule, as this test checks it over every module of src/server:
 *
 * - `http/` is the HTTP side: the pipeline, the error mapper, credentials, CORS, pages' rendering.
 * - Every other folder (resources, accounts, auth, apps, credits, data, events, idp, db, lib, admin,
 *   cli, domain) is the domain side and imports nothing from `http/`, type-only imports included,
 *   except its HTTP adapters, named for what they are: `routes.ts` and `*-routes.ts` (route plugins),
 *   `responses.ts` (their OpenAPI documents), `params.ts` (route parameter schemas) and `*-page.ts`
 *   (server-rendered pages).
 * - `domain/` is the leaf: it imports only `domain/` and `lib/`.
 * - The files directly in src/server (app.ts, serve.ts, gateway.ts, config.ts, …) are the wiring: they
 *   build both sides and may import either.
 *
 * Imports are read with TypeScript's own `preProcessFile`, not `Bun.Transpiler.scanImports`: the
 * transpiler drops type-only imports, and `import type { Principal } from "../http/principal.ts"` in a
 * service is exactly the dependency this rule forbids.
 */
import { describe, expect, test } from "bun:test";
import { dirname, join, relative } from "node:path";
import ts from "typescript5";

const ROOT = join(import.meta.dir, "../../src/server");
const ADAPTER = /(^|\/)(routes|[\w-]+-routes|responses|params|[\w-]+-page)\.tsx?$/;

/** Every relative import of `source` (values, types, re-exports, dynamic imports), as src/server paths. */
function importsOf(file: string, source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => relative(ROOT, join(ROOT, dirname(file), name)));
}

async function modules(): Promise<Array<{ file: string; imports: string[] }>> {
  const found: Array<{ file: string; imports: string[] }> = [];
  for await (const file of new Bun.Glob("**/*.{ts,tsx}").scan(ROOT)) {
    found.push({ file, imports: importsOf(file, await Bun.file(join(ROOT, file)).text()) });
  }
  return found.sort((a, b) => a.file.localeCompare(b.file));
}

const isWiring = (file: string) => !file.includes("/");
const isHttp = (path: string) => path.startsWith("http/");

describe("the domain never imports http/", () => {
  test("no module outside http/ imports it, but the HTTP adapters and the wiring", async () => {
    const all = await modules();
    expect(all.length).toBeGreaterThan(100);
    const crossing = all.flatMap(({ file, imports }) =>
      isHttp(file) || isWiring(file) || ADAPTER.test(file)
        ? []
        : imports.filter(isHttp).map((target) => `${file} -> ${target}`),
    );
    expect(crossing).toEqual([]);
  });

  test("domain/ is the leaf: it imports only domain/ and lib/", async () => {
    const all = await modules();
    const domain = all.filter(({ file }) => file.startsWith("domain/"));
    expect(domain.map(({ file }) => file)).toEqual(
      expect.arrayContaining(["domain/caller.ts", "domain/refusal.ts", "domain/refusals.ts"]),
    );
    const outside = domain.flatMap(({ file, imports }) =>
      imports.filter((path) => !/^(domain|lib)\//.test(path)).map((target) => `${file} -> ${target}`),
    );
    expect(outside).toEqual([]);
  });

  test("the scan sees type-only imports, re-exports and dynamic imports", () => {
    const source = `import type { Principal } from "../http/principal.ts";
import { type Refusal } from "../http/errors.ts";
export type { X } from "../http/x.ts";
const page = await import("../http/page.ts");`;
    expect(importsOf("resources/service.ts", source)).toEqual([
      "http/principal.ts",
      "http/errors.ts",
      "http/x.ts",
      "http/page.ts",
    ]);
  });
});
