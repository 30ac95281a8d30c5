/**
 * Named schemas in the OpenAPI documents. A view marked with `named("ResourceView", schema)` is written
 * once under `components.schemas` and every operation (and every other component) that answers it
 * refers to it by `$ref`, so a client generator makes one `ResourceView` type instead of an anonymous
 * copy per operation. One name is one schema: two different schemas under one name stop the document
 * from being built (a test builds both documents), never silently pick one.
 */
import type { TSchema } from "@sinclair/typebox";

const NAME = Symbol("openapi component name");

/** `schema`, to be written as the component `name` (the mark is a symbol: it never reaches JSON). */
export function named<S extends TSchema>(name: string, schema: S): S {
  return { ...schema, [NAME]: name };
}

export const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A copy of `value` (the document's paths) with each named schema replaced by its `$ref`, and the
 * named schemas found, themselves with their named parts replaced. The route's own objects are only read.
 */
export function hoistComponents<T>(value: T): { value: T; schemas: Record<string, unknown> } {
  const schemas: Record<string, unknown> = {};
  const texts = new Map<string, string>();

  function copy(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(copy);
    if (node === null || typeof node !== "object") return node;
    const name = (node as { [NAME]?: string })[NAME];
    const plain = Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, copy(inner)]));
    if (name === undefined) return plain;
    const text = JSON.stringify(plain);
    const known = texts.get(name);
    if (known !== undefined && known !== text)
      throw new Error(`OpenAPI: two different schemas are named ${name}`);
    texts.set(name, text);
    schemas[name] = plain;
    return componentRef(name);
  }

  return { value: copy(value) as T, schemas };
}
