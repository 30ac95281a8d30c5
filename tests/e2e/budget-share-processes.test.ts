/**
 * One user's share of an app's budget is one share however many processes serve them: three gateway
 * processes on one database, one user's calls fired at once and spread over the three, never more
 * than the share succeed in a minute (each process reserves the user's calls in the shared window,
 * never past the share), and the other users of the app keep the rest of the budget. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { reserveSize } from "../../src/server/apps/budget-windows.ts";
import { userAllowance } from "../../src/server/apps/budgets.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { sql } from "../helpers/db.ts";
import { sessionFor } from "../helpers/in-process.ts";
import { type Processes, startProcesses } from "../helpers/processes.ts";
import { awayFromMinuteEdge } from "../helpers/resources-kit.ts";

const APPS: AppsFile = {
  apps: [
    {
      // The default share: a tenth of 100, reserved one call at a time.
      id: "exact",
      clients: [{ clientId: "exact-web", redirectUris: ["http://127.0.0.1:5999/exact"] }],
      budget: { requestsPerMinute: 100 },
      types: { team: {} },
    },
    {
      // A share of 500 calls, reserved 10 at a time.
      id: "chunked",
      clients: [{ clientId: "chunked-web", redirectUris: ["http://127.0.0.1:5999/chunked"] }],
      budget: { requestsPerMinute: 10_000, userShare: 0.05 },
      types: { team: {} },
    },
  ],
};

let processes: Processes;
let urls: string[] = [];
beforeAll(async () => {
  processes = await startProcesses(APPS, 3);
  urls = processes.urls;
}, 30_000);
afterAll(() => processes?.stop(), 60_000);

/** This process's own gateway signs users in (sessions are rows) and reads the counts. */
const cookie = (user: string, clientId: string) => sessionFor({ gateway: processes.local }, user, clientId);

/** `calls` GETs by one user, all at once, spread round-robin over the processes; the statuses counted. */
async function spread(headers: Record<string, string>, calls: number): Promise<Record<number, number>> {
  const replies = await Promise.all(
    Array.from({ length: calls }, (_, i) => fetch(`${urls[i % urls.length]}/v1/resources`, { headers })),
  );
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}

const shareRow = (appId: string, userId: string) =>
  sql(processes.local.storage).get(
    "SELECT reserved FROM budget_shares WHERE app_id = ? AND user_id = ?",
    appId,
    userId,
  );

describe("a user's share across processes", () => {
  test("a share reserved one call at a time is exact: 10 of 30 calls over three processes, the others keep theirs", async () => {
    expect([userAllowance(100), reserveSize(userAllowance(100))]).toEqual([10, 1]);
    const hog = await cookie("share-hog", "exact-web");
    const neighbour = await cookie("share-neighbour", "exact-web");
    await awayFromMinuteEdge();
    expect(await spread(hog, 30)).toEqual({ 200: 10, 429: 20 });
    expect(await shareRow("exact", "share-hog")).toEqual({ reserved: 10 });
    // Refused calls are not charged to the app: the neighbour's whole share is left, on every process.
    expect(await spread(neighbour, 12)).toEqual({ 200: 10, 429: 2 });
    const refused = await fetch(`${urls[0]}/v1/resources`, { headers: hog });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: "Your share of this app's budget (10 of 100 requests per minute) is spent.",
      code: "budget_exceeded",
    });
  }, 30_000);

  test("a share reserved in chunks never allows more than the share: at most 500 of 750 calls", async () => {
    const share = userAllowance(10_000, 0.05);
    const chunk = reserveSize(share);
    expect([share, chunk]).toEqual([500, 10]);
    const user = await cookie("chunk-user", "chunked-web");
    await awayFromMinuteEdge();
    const counts = await spread(user, 750);
    expect(counts[200]).toBeLessThanOrEqual(share);
    expect((counts[200] ?? 0) + (counts[429] ?? 0)).toBe(750);
    // What a process reserved and did not spend is lost for this minute: at most a chunk less per process.
    expect(counts[200]).toBeGreaterThanOrEqual(share - 3 * (chunk - 1));
    expect(await shareRow("chunked", "chunk-user")).toEqual({ reserved: share });
  }, 60_000);
});
