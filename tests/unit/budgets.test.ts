/** The user share of an app's budget, as a pure function: ceil(requestsPerMinute * userShare), at least 1. */
import { expect, test } from "bun:test";
import { Budgets, DEFAULT_USER_SHARE, userAllowance } from "../../src/server/apps/budgets.ts";
import type { AppDef } from "../../src/server/apps/model.ts";
import { AppRegistry } from "../../src/server/apps/registry.ts";
import { openSqlite } from "../../src/server/db/sqlite.ts";

test("the default user share is a tenth of the app's budget, rounded up, at least one call", () => {
  expect(DEFAULT_USER_SHARE).toBe(0.1);
  const table = [1, 3, 10, 20, 25, 60, 6000].map((rpm) => [rpm, userAllowance(rpm)]);
  expect(table).toEqual([
    [1, 1],
    [3, 1],
    [10, 1],
    [20, 2],
    [25, 3],
    [60, 6],
    [6000, 600],
  ]);
});

test("a share whose product is a whole number in decimal is not rounded up by binary floating point", () => {
  const table = [
    [100, 0.07],
    [30, 0.1],
    [10, 0.7],
    [1100, 0.07],
    [8, 0.25],
    [5, 1],
  ].map(([rpm, share]) => [rpm, share, userAllowance(rpm!, share)]);
  expect(table).toEqual([
    [100, 0.07, 7],
    [30, 0.1, 3],
    [10, 0.7, 7],
    [1100, 0.07, 77],
    [8, 0.25, 2],
    [5, 1, 5],
  ]);
});

/** Budgets over a database in memory: app `a` (client `a-web`) with `budget`, app `free` without one. */
function budgetsFor(budget: AppDef["budget"]) {
  const apps = new AppRegistry({
    apps: [
      { id: "a", clients: [{ clientId: "a-web", redirectUris: ["http://localhost/a"] }], budget },
      { id: "free", clients: [{ clientId: "f-web", redirectUris: ["http://localhost/f"] }] },
    ],
  });
  const storage = openSqlite(":memory:");
  return { budgets: new Budgets(apps, storage), storage };
}

test("take is synchronous when memory decides (no budget, or a call already reserved for the app and the user); else it reserves and answers a promise", async () => {
  const { budgets, storage } = budgetsFor({ requestsPerMinute: 5000, userShare: 0.02 });
  const now = 60_000 * 1000 + 5;
  const take = (user: string, at = now) => budgets.take("a", "a-web", user, { now: at });
  expect(budgets.take("free", "f-web", "u1", { now })).toBeUndefined(); // no budget
  expect(budgets.take("a", undefined, "u1", { now })).toBeUndefined(); // client unknown: not enforced
  // Nothing reserved yet: reserves 2 of u1's share (a fiftieth of 100) and 100 of the app's calls.
  const first = take("u1");
  expect(first).toBeInstanceOf(Promise);
  await first;
  expect(take("u1")).toBeUndefined(); // u1's second reserved call
  const u2 = take("u2"); // nothing of u2's share reserved
  expect(u2).toBeInstanceOf(Promise);
  await u2;
  expect(take("u2")).toBeUndefined();
  const shares = await storage.all("SELECT user_id, reserved FROM budget_shares ORDER BY user_id");
  expect(shares).toEqual([
    { user_id: "u1", reserved: 2 },
    { user_id: "u2", reserved: 2 },
  ]);
  expect(await storage.all("SELECT reserved FROM budget_windows")).toEqual([{ reserved: 100 }]);
  const nextMinute = take("u2", now + 60_000); // a new minute: reserve again
  expect(nextMinute).toBeInstanceOf(Promise);
  await nextMinute;
  await storage.close();
});

test("a read the database cannot count is allowed on the process's own count; a write is not; once the database takes writes again, a background reservation ends it", async () => {
  const { budgets, storage } = budgetsFor({ requestsPerMinute: 100 });
  const now = 60_000 * 1000 + 5;
  const read = (at: number) => budgets.take("a", "a-web", "u1", { read: true, now: at });
  const shares = () => storage.all("SELECT user_id, reserved FROM budget_shares");
  storage.sqlite.exec("PRAGMA query_only = 1");
  await read(now);
  expect(budgets.unreservedReads).toBe(1);
  await expect(budgets.take("a", "a-web", "u1", { now })).rejects.toMatchObject({ code: "SQLITE_READONLY" });
  storage.sqlite.exec("PRAGMA query_only = 0");
  await read(now + 500); // within a second of the failure: no reservation tried
  expect(budgets.unreservedReads).toBe(2);
  expect(await shares()).toEqual([]);
  await read(now + 1500); // a reservation starts in the background; this read does not wait for it
  expect(budgets.unreservedReads).toBe(3);
  for (let i = 0; i < 200 && (await shares()).length === 0; i++) await Bun.sleep(5);
  expect(await shares()).toEqual([{ user_id: "u1", reserved: 1 }]);
  await read(now + 1600); // counted in the shared window again
  expect(budgets.unreservedReads).toBe(3);
  expect(await storage.all("SELECT reserved FROM budget_windows")).toEqual([{ reserved: 2 }]);
  // The local count still binds: u1's share is 10 a minute, 4 are spent.
  for (let i = 0; i < 6; i++) await read(now + 1700);
  await expect(read(now + 1700)).rejects.toMatchObject({
    code: "budget_exceeded",
    facts: { limit: 100, allowance: 10 },
  });
  await storage.close();
});
