/**
 * An app's request budget is one budget however many processes serve it: three gateways on one
 * database, calls spread over all of them, never more than `requestsPerMinute` succeed in a minute
 * (each process reserves calls of the shared window, never past the budget).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { reserveSize } from "../../src/server/apps/budget-windows.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { awayFromMinuteEdge, type Kit, makeKit } from "../helpers/resources-kit.ts";
import { tempDir } from "../helpers/stack.ts";

const appsWith = (requestsPerMinute: number): AppsFile => ({
  apps: [
    {
      id: "shared",
      clients: [{ clientId: "shared-web", redirectUris: ["http://localhost/cb"] }],
      // A whole share per user: this is about the app's budget alone.
      budget: { requestsPerMinute, userShare: 1 },
      types: { team: {} },
    },
  ],
});

const kits: Kit[] = [];
afterAll(async () => {
  for (const kit of kits) await kit.gw.gateway.close();
}, 30_000);

/** Three gateways (processes, as far as state goes) on one database. */
async function threeProcesses(requestsPerMinute: number): Promise<Kit[]> {
  const env = await databaseEnv(tempDir("sg-budget-"));
  const three = [];
  for (let i = 0; i < 3; i++) three.push(await makeKit(appsWith(requestsPerMinute), env));
  kits.push(...three);
  return three;
}

/** `calls` GETs spread round-robin over the processes, all at once; the statuses counted. */
async function spread(processes: Kit[], calls: number) {
  for (const [i, kit] of processes.entries()) await kit.h(`budget-user-${i}`, "shared-web");
  const replies = await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      processes[i % processes.length]!.get(
        `budget-user-${i % processes.length}`,
        "/v1/resources",
        "shared-web",
      ),
    ),
  );
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}

describe("one budget across processes", () => {
  test("a small budget (reserved one call at a time) is exact: 30 of 90 calls over three processes", async () => {
    const processes = await threeProcesses(30);
    expect(reserveSize(30)).toBe(1);
    await awayFromMinuteEdge();
    expect(await spread(processes, 90)).toEqual({ 200: 30, 429: 60 });
    const [row] = await sql(processes[0]!.gw.gateway.storage).all("SELECT reserved FROM budget_windows");
    expect(row).toEqual({ reserved: 30 });
  });

  test("a large budget (reserved in chunks) never allows more than the budget", async () => {
    const processes = await threeProcesses(1000);
    const chunk = reserveSize(1000);
    expect(chunk).toBe(20);
    await awayFromMinuteEdge();
    const counts = await spread(processes, 1200);
    expect(counts[200]! + counts[429]!).toBe(1200);
    expect(counts[200]).toBeLessThanOrEqual(1000);
    // What a process reserved and did not spend is lost for this minute: at most a chunk less per process.
    expect(counts[200]).toBeGreaterThanOrEqual(1000 - 3 * (chunk - 1));
  }, 60_000);
});
