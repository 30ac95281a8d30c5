/** Named schemas become one component each, referred to by `$ref`; one name never means two schemas. */
import { expect, test } from "bun:test";
import { Type as T } from "@sinclair/typebox";
import { hoistComponents, named } from "../../src/server/http/openapi-components.ts";

test("a named schema is written once and referred to wherever it is used, nested ones too", () => {
  const Item = named("Item", T.Object({ id: T.String() }));
  const Page = named("Page", T.Object({ items: T.Array(Item) }));
  const paths = { "/a": { get: { schema: Page } }, "/b": { get: { schema: Item } } };
  const { value, schemas } = hoistComponents(paths);
  expect(value as unknown).toEqual({
    "/a": { get: { schema: { $ref: "#/components/schemas/Page" } } },
    "/b": { get: { schema: { $ref: "#/components/schemas/Item" } } },
  });
  expect(schemas.Page).toMatchObject({
    type: "object",
    properties: { items: { type: "array", items: { $ref: "#/components/schemas/Item" } } },
  });
  expect(schemas.Item).toMatchObject({ type: "object", properties: { id: { type: "string" } } });
  // The routes' own schemas are left as they were.
  expect(Page.properties.items.items).toBe(Item);
});

test("two different schemas under one name stop the document", () => {
  const one = named("Thing", T.Object({ a: T.String() }));
  const other = named("Thing", T.Object({ b: T.String() }));
  expect(() => hoistComponents({ one, other })).toThrow("two different schemas are named Thing");
});
