/**
 * The domain never imports HTTP. The rule, as this test checks it over every module of src/server
 * (the import graph of tests/helpers/source-scan.ts, type-only imports included: `import type
 * { Principal } from "../http/principal.ts"` in a service is exactly the dependency this forbids):
 *
 * - `http/` is the HTTP side: the pipeline, the error mapper, credentials, CORS, pages' rendering.
 * - Every other folder (resources, accounts, auth, apps, credits, data, events, idp, db, lib, admin,
 *   cli, domain) is the domain side and imports nothing from `http/`, except its HTTP adapters, named
 *   for what they are: `routes.ts` and `*-routes.ts` (route plugins), `responses.ts` and `*-responses.ts` (their OpenAPI
 *   documents), `params.ts` (route parameter schemas) and `*-page.ts` (server-rendered pages).
 * - `domain/` is the leaf: it imports only `domain/` and `lib/`.
 * - The files directly in src/server (app.ts, serve.ts, gateway.ts, config.ts, …) are the wiring: they
 *   build both sides and may import either.
 *
 * No allow-list: the rule has no exception left to shrink.
 */
import { expect, test } from "bun:test";
import { importGraph } from "../helpers/source-scan.ts";

const ADAPTER = /(^|\/)(routes|[\w-]+-routes|responses|[\w-]+-responses|params|[\w-]+-page)\.tsx?$/;
const isWiring = (file: string) => !file.includes("/");
const isHttp = (path: string) => path.startsWith("http/");

test("the graph sees the domain: http/ imports the Caller by a type-only import", () => {
  const graph = importGraph();
  expect(graph.get("http/principal.ts")).toContain("domain/caller.ts");
  expect(graph.get("http/errors.ts")).toContain("domain/refusals.ts");
});

test("no module outside http/ imports it, but the HTTP adapters and the wiring", () => {
  const crossing = [...importGraph()].flatMap(([file, imports]) =>
    isHttp(file) || isWiring(file) || ADAPTER.test(file)
      ? []
      : imports.filter(isHttp).map((target) => `${file} -> ${target}`),
  );
  expect(crossing).toEqual([]);
});

test("domain/ is the leaf: it imports only domain/ and lib/", () => {
  const domain = [...importGraph()].filter(([file]) => file.startsWith("domain/"));
  expect(domain.map(([file]) => file)).toEqual(
    expect.arrayContaining(["domain/caller.ts", "domain/refusal.ts", "domain/refusals.ts"]),
  );
  const outside = domain.flatMap(([file, imports]) =>
    imports.filter((path) => !/^(domain|lib)\//.test(path)).map((target) => `${file} -> ${target}`),
  );
  expect(outside).toEqual([]);
});
