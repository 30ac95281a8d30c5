/**
 * A session's activity time (`last_seen_at`, what operators see): noted on use, written at most once a
 * minute per session, in one batch; a write the database refuses is kept and written by the next flush.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { failWrites, sql } from "../helpers/db.ts";
import { type InProcess, inProcess, sessionFor } from "../helpers/in-process.ts";

let gw: InProcess;
beforeAll(async () => {
  gw = await inProcess();
});
afterAll(() => gw.gateway.close());

async function rowOf(user: string) {
  const row = await sql(gw.gateway.storage).get<{ id: string; lastSeenAt: number }>(
    "SELECT id, last_seen_at AS lastSeenAt FROM sessions WHERE user_id = ?",
    user,
  );
  return { id: row!.id, lastSeenAt: Number(row!.lastSeenAt) };
}

test("use within a minute writes nothing; after a minute, one write of the latest time", async () => {
  await sessionFor(gw, "toucher");
  const start = await rowOf("toucher");
  const { store } = gw.gateway;
  store.touch({ ...start }, start.lastSeenAt + 30_000);
  await store.flushTouches();
  expect(await rowOf("toucher")).toEqual(start);
  const row = { ...start };
  store.touch(row, start.lastSeenAt + 61_000);
  store.touch(row, start.lastSeenAt + 62_000); // within a minute of the noted use: nothing more
  await store.flushTouches();
  expect(await rowOf("toucher")).toEqual({ id: start.id, lastSeenAt: start.lastSeenAt + 61_000 });
});

test("a flush the database refuses keeps the time for the next one", async () => {
  await sessionFor(gw, "kept");
  const start = await rowOf("kept");
  const undo = await failWrites(gw.gateway.storage, "no_touch", "UPDATE OF last_seen_at", "sessions", "true");
  gw.gateway.store.touch({ ...start }, start.lastSeenAt + 120_000);
  await gw.gateway.store.flushTouches();
  expect(await rowOf("kept")).toEqual(start);
  await undo();
  await gw.gateway.store.flushTouches();
  expect(await rowOf("kept")).toEqual({ id: start.id, lastSeenAt: start.lastSeenAt + 120_000 });
});
