/**
 * TypeScript types for an OpenAPI document, made by openapi-typescript (what an app developer runs to
 * get a typed client). openapi-typescript builds its output with TypeScript 5's compiler API (its peer
 * dependency); this project's `typescript` is 7, which has no such API. So its modules are loaded with
 * their `typescript` import pointed at TypeScript 5.9, installed beside it under the alias `typescript5`.
 */
import { plugin } from "bun";

const TYPESCRIPT_5 = Bun.resolveSync("typescript5", import.meta.dir);

plugin({
  name: "openapi-typescript on TypeScript 5",
  setup(build) {
    build.onLoad({ filter: /\/openapi-typescript\/dist\/.*\.mjs$/ }, async ({ path }) => ({
      contents: (await Bun.file(path).text()).replaceAll("from 'typescript'", `from '${TYPESCRIPT_5}'`),
      loader: "js",
    }));
  },
});

/** The module openapi-typescript writes for `document`: `paths`, `components`, `operations`. */
export async function openApiTypes(document: unknown): Promise<string> {
  const { default: openapiTS, astToString } = await import("openapi-typescript");
  return astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}
