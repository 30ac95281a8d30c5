/**
 * One user's share of the app's budget when the apps file gives none: a tenth of the app's minute
 * (rounded up, at least one call). A user past it gets 429 `budget_exceeded` naming the share, the
 * refused call changes nothing and is not charged to the app, so the other users keep the rest.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { awayFromMinuteEdge, expectError, type Kit, makeKit } from "../helpers/resources-kit.ts";

const APPS: AppsFile = {
  apps: [
    {
      id: "metered",
      clients: [{ clientId: "metered-web", redirectUris: ["http://localhost/cb"] }],
      budget: { requestsPerMinute: 20 },
      types: { team: {} },
    },
    {
      id: "tiny",
      clients: [{ clientId: "tiny-web", redirectUris: ["http://localhost/tiny"] }],
      budget: { requestsPerMinute: 3 },
      types: { team: {} },
    },
  ],
};

const kits: Kit[] = [];
afterAll(() => {
  for (const kit of kits) kit.gw.gateway.close();
});

describe("the default user share is a tenth of the app's budget", () => {
  test("one user cannot spend the whole app's budget: the third call of 20 per minute is 429, others go on", async () => {
    const b = await makeKit(APPS);
    kits.push(b);
    await b.h("hog", "metered-web");
    await b.h("neighbour", "metered-web");
    await awayFromMinuteEdge();
    expect((await b.post("hog", "/v1/resources", { type: "team", name: "one" }, "metered-web")).status).toBe(
      200,
    );
    expect((await b.get("hog", "/v1/resources", "metered-web")).status).toBe(200);
    const before = await b.snapshot();
    const refused = await b.post("hog", "/v1/resources", { type: "team", name: "two" }, "metered-web");
    expectError(refused, 429, "budget_exceeded");
    expect(refused.body.error).toContain("Your share of this app's budget (2 of 20");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(await b.snapshot()).toEqual(before);
    const names = await b.db.all("SELECT name FROM resources WHERE app_id = 'metered' AND type = 'team'");
    expect(names).toEqual([{ name: "one" }]);
    // Refused calls are not charged to the app: 2 of 20 spent, the neighbour's share is whole.
    for (let i = 0; i < 10; i++) await b.get("hog", "/v1/resources", "metered-web");
    expect((await b.get("neighbour", "/v1/resources", "metered-web")).status).toBe(200);
    expect((await b.get("neighbour", "/v1/resources", "metered-web")).status).toBe(200);
    expectError(await b.get("neighbour", "/v1/resources", "metered-web"), 429, "budget_exceeded");
  });

  test("a small budget still lets each user make one call a minute", async () => {
    const b = await makeKit(APPS);
    kits.push(b);
    await b.h("first", "tiny-web");
    await b.h("second", "tiny-web");
    await awayFromMinuteEdge();
    expect((await b.get("first", "/v1/resources", "tiny-web")).status).toBe(200);
    expectError(await b.get("first", "/v1/resources", "tiny-web"), 429, "budget_exceeded");
    expect((await b.get("second", "/v1/resources", "tiny-web")).status).toBe(200);
  });
});

describe("an account's deletion", () => {
  test("leaves no count of the user in the budget's shared window", async () => {
    const b = await makeKit(APPS);
    kits.push(b);
    await b.h("leaving", "metered-web");
    await b.h("staying", "metered-web");
    await awayFromMinuteEdge();
    expect((await b.get("leaving", "/v1/resources", "metered-web")).status).toBe(200);
    expect((await b.get("staying", "/v1/resources", "metered-web")).status).toBe(200);
    const users = () => b.db.all('SELECT user_id AS "userId" FROM budget_shares ORDER BY user_id');
    expect(await users()).toEqual([{ userId: "leaving" }, { userId: "staying" }]);
    await b.gw.gateway.accounts.deleteUser("leaving", "admin");
    expect(await users()).toEqual([{ userId: "staying" }]);
  });
});
