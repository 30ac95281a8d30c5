/**
 * The ownership offer's storage, through ResourceStore on the engine this pass runs on (SQLite, or
 * PostgreSQL with TEST_DATABASE=postgres): one pending offer per resource (a new one replaces it),
 * ending an offer only when it is to the named user, the owner column moving, and offers going with
 * their resource.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/server/db/open.ts";
import type { Storage } from "../../src/server/db/sql.ts";
import { type ResourceRow, ResourceStore } from "../../src/server/resources/store.ts";
import { sharedPostgres, testEngine } from "../helpers/postgres.ts";
import { tempDir } from "../helpers/stack.ts";

let storage: Storage;
let store: ResourceStore;

beforeAll(async () => {
  const target =
    testEngine === "postgres"
      ? await (await sharedPostgres()).createDatabase("offers")
      : join(tempDir("sg-offers-"), "offers.db");
  storage = await openStorage(target);
  store = new ResourceStore(storage);
}, 60_000);
afterAll(() => storage?.close(), 30_000);

async function resource(owner: string): Promise<ResourceRow> {
  const row: ResourceRow = {
    seq: 0,
    id: Bun.randomUUIDv7(),
    appId: "app",
    type: "team",
    name: "offers",
    visibility: "members",
    discoverable: false,
    ownerId: owner,
    ownerKind: "user",
    slug: null,
    memberCount: 1,
    createdAt: 1,
  };
  await storage.transaction(async (tx) => store.insertResource(tx, row));
  return row;
}

describe(`ownership offers (${testEngine})`, () => {
  test("offers.put keeps one offer per resource: a new one replaces the previous, and a transaction reads its own", async () => {
    const r = await resource("o");
    expect(await store.offers.get(r.id)).toBeUndefined();
    await storage.transaction(async (tx) => {
      store.offers.put(tx, { resourceId: r.id, userId: "a", offeredBy: "o", createdAt: 10 });
      expect(await store.offers.get(r.id, tx)).toEqual({
        resourceId: r.id,
        userId: "a",
        offeredBy: "o",
        createdAt: 10,
      });
      store.offers.put(tx, { resourceId: r.id, userId: "b", offeredBy: "o", createdAt: 11 });
    });
    expect(await store.offers.get(r.id)).toEqual({
      resourceId: r.id,
      userId: "b",
      offeredBy: "o",
      createdAt: 11,
    });
    expect(
      await storage.get("SELECT count(*) AS n FROM ownership_offers WHERE resource_id = $1", [r.id]),
    ).toEqual({
      n: 1,
    });
    expect((await store.offers.listTo("b")).map((o) => o.resourceId)).toEqual([r.id]);
    expect(await store.offers.listTo("a")).toEqual([]);
  });

  test("offers.deleteTo ends the offer only when it is to that user; offers.delete ends it whoever it is to", async () => {
    const r = await resource("o");
    await storage.transaction(async (tx) =>
      store.offers.put(tx, { resourceId: r.id, userId: "a", offeredBy: "o", createdAt: 1 }),
    );
    expect(await storage.transaction((tx) => store.offers.deleteTo(tx, r.id, "b"))).toBe(false);
    expect((await store.offers.get(r.id))?.userId).toBe("a");
    expect(await storage.transaction((tx) => store.offers.deleteTo(tx, r.id, "a"))).toBe(true);
    expect(await store.offers.get(r.id)).toBeUndefined();
    await storage.transaction(async (tx) =>
      store.offers.put(tx, { resourceId: r.id, userId: "c", offeredBy: "o", createdAt: 2 }),
    );
    await storage.transaction(async (tx) => store.offers.delete(tx, r.id));
    expect(await store.offers.get(r.id)).toBeUndefined();
  });

  test("a rolled-back offer leaves nothing; setOwner moves the owner; deleting the resource deletes its offer", async () => {
    const r = await resource("o");
    await storage
      .transaction(async (tx) => {
        store.offers.put(tx, { resourceId: r.id, userId: "a", offeredBy: "o", createdAt: 1 });
        throw new Error("refused");
      })
      .catch(() => {});
    expect(await store.offers.get(r.id)).toBeUndefined();
    await storage.transaction(async (tx) => {
      store.offers.put(tx, { resourceId: r.id, userId: "a", offeredBy: "o", createdAt: 1 });
      store.setOwner(tx, r.id, "a");
    });
    expect((await store.getResource(r.id))?.ownerId).toBe("a");
    await storage.transaction(async (tx) => store.deleteResource(tx, r.id));
    expect(await store.offers.get(r.id)).toBeUndefined();
    expect(
      await storage.get("SELECT count(*) AS n FROM ownership_offers WHERE resource_id = $1", [r.id]),
    ).toEqual({
      n: 0,
    });
  });
});
