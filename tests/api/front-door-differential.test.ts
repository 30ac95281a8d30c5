/**
 * The front door's differential test: one deterministic scenario calls every route of the public and
 * admin listeners over their real sockets (Bun.serve, and whatever stands in front of the router),
 * with each route's success and refusal cases, odd Host headers and request targets, and the cases
 * the fast-path test compares, and records every answer: status, the headers that matter, the body,
 * with what changes from run to run replaced by placeholders (tests/helpers/front-door-record.ts).
 * The recording must equal tests/fixtures/front-door/answers.json, on SQLite and on PostgreSQL alike.
 * A change to the front door (one router, one pipeline) must answer every request as before, so this
 * file changes only when an answer is meant to change:
 *
 *   RECORD=1 bun test tests/api/front-door-differential.test.ts   # rewrites the recording
 *
 * then read the diff of answers.json: each changed line is a changed answer.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Door } from "../helpers/front-door.ts";
import { adminRoutes, budget, wire } from "../helpers/front-door-admin.ts";
import { openRoutes, sessionRoutes, signInWalk } from "../helpers/front-door-auth.ts";
import { accountRoutes, resourceRoutes } from "../helpers/front-door-resources.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

const GOLDEN = join(import.meta.dir, "../fixtures/front-door/answers.json");

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ otherApp: true });
}, 30_000);

afterAll(async () => {
  await stack.stop();
}, 30_000);

test("every route answers as recorded", async () => {
  const door = new Door(stack);
  await openRoutes(door);
  await sessionRoutes(door, await signInWalk(door));
  for (const user of ["alice", "bob", "carol", "dave"]) await door.signIn(user);
  const { album } = await resourceRoutes(door);
  await accountRoutes(door, "dave");
  await wire(door, album);
  await budget(door);
  await adminRoutes(door, album);

  if (process.env.RECORD === "1") {
    mkdirSync(dirname(GOLDEN), { recursive: true });
    writeFileSync(GOLDEN, `${JSON.stringify(door.rec.entries, null, 2)}\n`);
    // Written as the project's formatter writes JSON, so `biome check .` passes on the recording.
    Bun.spawnSync([join(import.meta.dir, "../../node_modules/.bin/biome"), "format", "--write", GOLDEN], {
      stdout: "ignore",
    });
  }
  expect(existsSync(GOLDEN), `${GOLDEN} is missing: RECORD=1 writes it`).toBe(true);
  const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as typeof door.rec.entries;
  // Entry by entry first, so a failure names the request whose answer changed.
  for (const [i, entry] of door.rec.entries.entries())
    expect(entry, `#${i} ${entry.label}`).toEqual(golden[i]!);
  expect(door.rec.entries.length).toBe(golden.length);
}, 60_000);
