/**
 * `examples/apps.json` is the documented apps file (docs/apps-file.md): it loads with the gateway's own
 * validation, uses every field the schema has, and behaves as the document says once served.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { AppModel, AppsFileModel, ClientModel, TypeModel } from "../../src/server/apps/model.ts";
import { AppsFileError, loadAppsFile } from "../../src/server/apps/registry.ts";
import { type InProcess, inProcess, sessionFor } from "../helpers/in-process.ts";
import { tempDir } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
const examplePath = join(root, "examples/apps.json");
const doc = readFileSync(join(root, "docs/apps-file.md"), "utf8");
let gw: InProcess;

beforeAll(async () => {
  gw = await inProcess({}, await loadAppsFile(examplePath));
});
afterAll(() => gw?.gateway.close());

/** Every property name of an object schema, nested objects and records included. */
function fieldNames(schema: TSchema, into = new Set<string>()): Set<string> {
  const object = schema as {
    properties?: Record<string, TSchema>;
    patternProperties?: Record<string, TSchema>;
  };
  for (const [name, child] of Object.entries(object.properties ?? {})) {
    into.add(name);
    fieldNames(child, into);
    const items = (child as { items?: TSchema }).items;
    if (items) fieldNames(items, into);
  }
  for (const child of Object.values(object.patternProperties ?? {})) fieldNames(child, into);
  return into;
}

test("the example uses every field of the schema, and the document describes each", () => {
  const text = readFileSync(examplePath, "utf8");
  const names = fieldNames(AppsFileModel);
  for (const model of [AppModel, ClientModel, TypeModel]) fieldNames(model, names);
  expect(names.size).toBeGreaterThan(15);
  for (const name of names) {
    expect(text, name).toContain(`"${name}"`);
    expect(doc, name).toContain(`\`${name}\``);
  }
  for (const value of ["members", "unlisted", "discoverable", "remove", "hide", "retain"])
    expect(text).toContain(`"${value}"`);
});

test("served, it behaves as documented: types, reserved, statics, _app's role, grant ceiling", async () => {
  const alice = await sessionFor(gw, "doc-alice", "photos-web");
  // A user of photos-web is in the photos app and may create an album.
  const album = await gw.handle("/v1/resources", {
    method: "POST",
    headers: alice,
    body: JSON.stringify({ type: "album", name: "Trip" }),
  });
  expect(album.status).toBe(200);
  expect(await album.json()).toMatchObject({ type: "album", visibility: "public", discoverable: true });
  // A reserved type cannot be created; the static of that type exists.
  const reserved = await gw.handle("/v1/resources", {
    method: "POST",
    headers: alice,
    body: JSON.stringify({ type: "announcements", name: "Mine" }),
  });
  expect(reserved.status).toBe(403);
  expect(await reserved.json()).toMatchObject({ code: "reserved_type" });
  const news = await gw.handle("/v1/resources/static?type=announcements&slug=news", { headers: alice });
  expect(news.status).toBe(200);
  expect(await news.json()).toMatchObject({ name: "Photos news", visibility: "public", discoverable: true });
  // family's ceiling is writer: an admin invite is refused.
  const family = (await (
    await gw.handle("/v1/resources", {
      method: "POST",
      headers: alice,
      body: JSON.stringify({ type: "family", name: "Home" }),
    })
  ).json()) as { id: string };
  const invite = await gw.handle(`/v1/resources/${family.id}/invite`, {
    method: "POST",
    headers: alice,
    body: JSON.stringify({ userId: "doc-bob", role: "admin" }),
  });
  expect(invite.status).toBe(403);
  expect(await invite.json()).toMatchObject({ code: "role_above_ceiling" });
  // A type of another app is unknown here.
  const other = await gw.handle("/v1/resources", {
    method: "POST",
    headers: alice,
    body: JSON.stringify({ type: "notebook", name: "Not here" }),
  });
  expect(other.status).toBe(404);
  expect(await other.json()).toMatchObject({ code: "unknown_type" });
});

test("a mistake in the file is one line naming the file, the place and the rule", async () => {
  const broken = JSON.parse(readFileSync(examplePath, "utf8"));
  broken.apps[0].types.album.visiblity = "discoverable";
  const path = join(tempDir("sg-apps-"), "apps.json");
  writeFileSync(path, JSON.stringify(broken));
  const error = await loadAppsFile(path).catch((e) => e);
  expect(error).toBeInstanceOf(AppsFileError);
  expect(error.message).toStartWith(`GATEWAY_CONFIG ${path}: /apps/0/types/album`);
  expect(error.message.split("\n")).toHaveLength(1);
});
