/**
 * Races for real: three gateway processes on one database file, each request fired at once and spread
 * over the three, so writes from different processes run in parallel (two cores) and only the write
 * transaction (BEGIN IMMEDIATE), the checks inside it and the counter it keeps stand between them and
 * a broken invariant. Removing the transaction, the invite cap check or the member_count update makes
 * these fail (tried; see docs/development.md, "How the tests keep the invariants honest").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { sql } from "../helpers/db.ts";
import { sessionFor } from "../helpers/in-process.ts";
import { type Processes, startProcesses } from "../helpers/processes.ts";

const CLIENT = "race-web";
const APPS: AppsFile = {
  apps: [
    {
      id: "race",
      clients: [{ clientId: CLIENT, redirectUris: ["http://127.0.0.1:5999/callback"] }],
      types: { team: { visibility: "members" }, room: { visibility: "discoverable" } },
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

/** This process's own gateway signs users in (sessions are rows) and reads the state. */
const cookie = (user: string) => sessionFor({ gateway: processes.local }, user, CLIENT);

const post = (i: number, headers: Record<string, string>, path: string, body?: unknown) =>
  fetch(`${urls[i % urls.length]}${path}`, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const n = async (text: string, ...params: string[]) => sql(processes.local.storage).count(text, ...params);

/** Each race is run several times on fresh resources: one broken run is enough to fail. */
const REPEATS = 5;

describe("three processes writing at once", () => {
  test("150 invites by one admin at once: exactly 50 pending, 100 refused with 429", async () => {
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const owner = await cookie(`race-owner-${repeat}`);
      const created = await post(0, owner, "/v1/resources", { type: "team", name: "cap team" });
      const { id } = (await created.json()) as { id: string };
      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          post(i, owner, `/v1/resources/${id}/invite`, { userId: `invitee-${i}` }),
        ),
      );
      const statuses = answers.map((r) => r.status);
      expect([repeat, statuses.filter((s) => s === 200).length]).toEqual([repeat, 50]);
      expect([repeat, statuses.filter((s) => s === 429).length]).toEqual([repeat, 100]);
      const pending = await n(
        "SELECT count(*) AS n FROM members WHERE invited_by = ? AND state = 'invited'",
        `race-owner-${repeat}`,
      );
      expect([repeat, pending]).toEqual([repeat, 50]);
    }
  }, 60_000);

  test("200 joins at once: memberCount is 201 and equals the active roster", async () => {
    const joiners = await Promise.all(Array.from({ length: 200 }, (_, i) => cookie(`joiner-${i}`)));
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const owner = await cookie(`room-owner-${repeat}`);
      const created = await post(1, owner, "/v1/resources", { type: "room", name: "busy room" });
      const { id } = (await created.json()) as { id: string };
      const answers = await Promise.all(joiners.map((h, i) => post(i, h, `/v1/resources/${id}/join`)));
      expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
      const active = await n(
        "SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'active'",
        id,
      );
      expect([repeat, active, await n("SELECT member_count AS n FROM resources WHERE id = ?", id)]).toEqual([
        repeat,
        201,
        201,
      ]);
    }
  }, 60_000);

  test("join and leave storms by the same users: memberCount equals the roster, one owner, no duplicates", async () => {
    const users = await Promise.all(Array.from({ length: 40 }, (_, i) => cookie(`storm-${i}`)));
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const owner = await cookie(`storm-owner-${repeat}`);
      const created = await post(2, owner, "/v1/resources", { type: "room", name: "storm room" });
      const { id } = (await created.json()) as { id: string };
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          users.flatMap((h, i) => [
            post(i + round, h, `/v1/resources/${id}/join`),
            post(i + round + 1, h, `/v1/resources/${id}/leave`),
            post(i + round + 2, h, `/v1/resources/${id}/join`),
          ]),
        );
      }
      const active = await n(
        "SELECT count(*) AS n FROM members WHERE resource_id = ? AND state = 'active'",
        id,
      );
      expect([repeat, await n("SELECT member_count AS n FROM resources WHERE id = ?", id)]).toEqual([
        repeat,
        active,
      ]);
      expect(await n("SELECT count(*) AS n FROM members WHERE resource_id = ? AND role = 'owner'", id)).toBe(
        1,
      );
      const duplicates = await n(
        "SELECT count(*) AS n FROM (SELECT user_id FROM members WHERE resource_id = ? GROUP BY user_id HAVING count(*) > 1) AS d",
        id,
      );
      expect(duplicates).toBe(0);
    }
  }, 60_000);
});
