/**
 * The admin event stream with several processes on one database: a stream on one process carries the
 * events another process commits, a stream resumed with Last-Event-ID on another process misses
 * nothing and repeats nothing, and (PostgreSQL) an event whose transaction commits after a later one
 * is not skipped: the stream holds the later one back until the earlier has committed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PostgresStorage } from "../../src/server/db/postgres.ts";
import type { RunningGateway } from "../../src/server/serve.ts";
import { eventRowId, sql } from "../helpers/db.ts";
import { testEngine } from "../helpers/postgres.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
let other: RunningGateway;
beforeAll(async () => {
  stack = await startStack({ env: { ADMIN_TOKEN: "events-token" } });
  other = await stack.another();
}, 60_000);
afterAll(async () => {
  await other?.stop();
  await stack?.stop();
}, 30_000);

interface Received {
  id: string;
  type: string;
  resourceId: string | null;
}

/** An SSE reader over a real socket: the events (id, type, resourceId) as they arrive. */
async function open(adminUrl: string, lastEventId?: string) {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: "Bearer events-token" };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const response = await fetch(`${adminUrl}/admin/v1/events`, { headers, signal: controller.signal });
  expect(response.status).toBe(200);
  const events: Received[] = [];
  let connected: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    connected = resolve;
  });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk, { stream: true });
        if (buffer.includes(": connected")) connected();
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (id && data) {
            const event = JSON.parse(data) as { type: string; resourceId: string | null };
            events.push({ id, type: event.type, resourceId: event.resourceId });
          }
        }
      }
    } catch {}
  })();
  await ready;
  return {
    events,
    async waitFor(count: number, ms = 5000) {
      for (const deadline = Date.now() + ms; events.length < count && Date.now() < deadline; )
        await Bun.sleep(10);
      return events;
    },
    close: () => controller.abort(),
  };
}

/** Appends one event the way the services do, through `storage` (any process). */
function append(storage: RunningGateway["gateway"]["storage"], type: string, resourceId: string) {
  return storage.transaction(async (tx) => {
    await tx.run("INSERT INTO events (type, resource_id, at) VALUES ($1, $2, $3)", [
      type,
      resourceId,
      Date.now(),
    ]);
    tx.notify("gateway_events");
  });
}

describe("the admin event stream across processes", () => {
  test("a stream on one process carries what another process commits, in order", async () => {
    const stream = await open(stack.adminUrl);
    for (let i = 0; i < 5; i++) await append(other.gateway.storage, "test.cross", `cross-${i}`);
    const got = await stream.waitFor(5);
    expect(got.map((e) => e.resourceId)).toEqual([0, 1, 2, 3, 4].map((i) => `cross-${i}`));
    stream.close();
  });

  test("resumed on the other process with Last-Event-ID: nothing missed, nothing repeated", async () => {
    const first = await open(stack.adminUrl);
    await append(stack.running.gateway.storage, "test.resume", "resume-0");
    const [seen] = await first.waitFor(1);
    first.close();
    // Written by both processes while nobody listens.
    await append(other.gateway.storage, "test.resume", "resume-1");
    await append(stack.running.gateway.storage, "test.resume", "resume-2");
    await append(other.gateway.storage, "test.resume", "resume-3");

    const resumed = await open(other.adminUrl, seen!.id);
    const got = await resumed.waitFor(3);
    await Bun.sleep(1200); // past the stream's sweep: still nothing repeated
    expect(got.map((e) => e.resourceId)).toEqual(["resume-1", "resume-2", "resume-3"]);
    const stored = await sql(stack.running.gateway.storage).all(
      "SELECT id FROM events WHERE type = 'test.resume' ORDER BY id",
    );
    expect(got.map((e) => eventRowId(e.id))).toEqual(stored.slice(1).map((r) => r.id));
    resumed.close();
  });

  test.if(testEngine === "postgres")(
    "an event committed after a later one is not skipped: the later one waits for it",
    async () => {
      const stream = await open(other.adminUrl);
      const client = (stack.running.gateway.storage as PostgresStorage).client;
      // A transaction takes the smaller id and stays open...
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slow = client.begin(async (t) => {
        await t.unsafe("INSERT INTO events (type, resource_id, at) VALUES ('test.late', 'late-first', 0)");
        await held;
        await t.unsafe("SELECT pg_notify('gateway_events', '')");
      });
      await Bun.sleep(100);
      // ...while a later one commits a larger id.
      await append(other.gateway.storage, "test.late", "late-second");
      await Bun.sleep(300);
      expect(stream.events.filter((e) => e.type === "test.late")).toEqual([]);
      release();
      await slow;
      const got = (await stream.waitFor(2)).filter((e) => e.type === "test.late");
      expect(got.map((e) => e.resourceId)).toEqual(["late-first", "late-second"]);
      // The ids themselves are out of order: a cursor on `id > last` would have skipped late-first.
      expect(eventRowId(got[0]!.id)).toBeLessThan(eventRowId(got[1]!.id));
      stream.close();
    },
  );
});
