/**
 * `GET /admin/v1/events`: Server-Sent Events over a real socket, one per event row with
 * `id:` = the row id; a change made through the public API arrives within 2 s; `Last-Event-ID`
 * resumes without loss or repeats; without it the stream starts at new events only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { HEARTBEAT_MS } from "../../src/server/admin/events-stream.ts";
import { Browser } from "../helpers/browser.ts";
import { eventCursor, eventRowId, sql } from "../helpers/db.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  CSRF,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token", "content-type": "application/json" };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface EventData {
  id: number;
  type: string;
  actor: string | null;
  resourceId: string | null;
  userId: string | null;
  data: unknown;
  at: string;
}

/** A streaming SSE client over fetch: frames parsed as they arrive. */
class Stream {
  readonly events: EventSourceMessage[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  raw = "";
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();
  response!: Response;

  static async open(lastEventId?: string): Promise<Stream> {
    const stream = new Stream();
    const headers: Record<string, string> = { ...ADMIN, accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    stream.response = await fetch(`${stack.adminUrl}/admin/v1/events`, {
      headers,
      signal: stream.abort.signal,
    });
    expect(stream.response.status).toBe(200);
    const parser = createParser({
      onEvent: (event) => stream.events.push(event),
      onComment: (comment) => stream.comments.push(comment),
      onRetry: (retry) => {
        stream.retry = retry;
      },
    });
    const reader = stream.response.body!.getReader();
    const decoder = new TextDecoder();
    stream.done = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const text = decoder.decode(value, { stream: true });
          stream.raw += text;
          parser.feed(text);
        }
      } catch {
        // aborted by close()
      }
    })();
    open.add(stream);
    return stream;
  }

  data(): EventData[] {
    return this.events.map((e) => JSON.parse(e.data) as EventData);
  }

  async waitFor(count: number, timeoutMs = 2000): Promise<EventData[]> {
    const deadline = performance.now() + timeoutMs;
    while (this.events.length < count) {
      if (performance.now() > deadline)
        throw new Error(`only ${this.events.length} of ${count} events within ${timeoutMs} ms: ${this.raw}`);
      await Bun.sleep(5);
    }
    return this.data();
  }

  /** The reconnection delay, then the `connected` comment: the stream has read where it starts. */
  async waitForPreamble(): Promise<void> {
    const deadline = performance.now() + 2000;
    while (!this.comments.includes("connected") && performance.now() < deadline) await Bun.sleep(5);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
    open.delete(this);
  }
}

let stack: Stack;
const open = new Set<Stream>();
const cookies: Record<string, string> = {};

async function as(user: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.url}${path}`, {
    method: "POST",
    headers: { cookie: cookies[user]!, ...CSRF },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function ok(user: string, path: string, body?: unknown) {
  const res = await as(user, path, body);
  expect({ path, ...res }).toMatchObject({ status: 200 });
  return res.body;
}
const newTeam = async (name: string) =>
  (await ok("olivia", "/v1/resources", { type: "team", name })).id as string;
const rowsAfter = async (id: number) =>
  (await sql(stack.running.gateway.storage).all(
    "SELECT id, type, user_id AS userId FROM events WHERE id > ? ORDER BY id",
    id,
  )) as Array<{ id: number; type: string; userId: string | null }>;
const lastId = async () => stack.running.gateway.queries.lastEventId();
const cursors = (rows: Array<{ id: number }>) =>
  Promise.all(rows.map((r) => eventCursor(stack.running.gateway.storage, r.id)));

beforeAll(async () => {
  stack = await startStack();
  const deployed = await fetch(`${stack.adminUrl}/admin/v1/apps/test/deploy`, {
    method: "POST",
    headers: ADMIN,
    body: JSON.stringify({
      id: "test",
      clients: [
        { clientId: CLIENT_ID, redirectUris: [stack.redirectUri], origins: ["http://127.0.0.1:5999"] },
        { clientId: SECRET_CLIENT_ID, redirectUris: [stack.redirectUri], clientSecret: CLIENT_SECRET },
      ],
      types: { team: {} },
    }),
  });
  expect(deployed.status).toBe(200);
  for (const user of ["olivia", "bob"]) {
    const { browser, token } = await signIn(stack, user, new Browser());
    expect(token.status).toBe(200);
    cookies[user] = browser.cookieHeader(stack.url);
  }
}, 60_000);
afterAll(async () => {
  for (const stream of open) await stream.close();
  await stack.stop();
}, 30_000);

describe("GET /admin/v1/events", () => {
  test("an invite through the public API arrives within 2 s with id = the event row id and its fields", async () => {
    const team = await newTeam("Stream Team");
    const history = await lastId();
    expect(history).toBeGreaterThan(3); // deploy, consents, the creation: all before the stream
    const stream = await Stream.open();
    expect(stream.response.headers.get("content-type")).toStartWith("text/event-stream");
    expect(stream.response.headers.get("cache-control")).toBe("no-store");
    await stream.waitForPreamble();
    // The preamble: a reconnection delay and a comment, the same comment frames the heartbeat uses.
    expect(stream.raw).toStartWith("retry: 2000\n");
    expect(stream.retry).toBe(2000);
    expect(stream.comments.length).toBeGreaterThan(0);
    expect(HEARTBEAT_MS).toBe(15_000);
    expect(stream.events).toEqual([]); // new events only: no history without Last-Event-ID

    const sent = performance.now();
    await ok("olivia", `/v1/resources/${team}/invite`, { userId: "bob", role: "reader" });
    const [event] = await stream.waitFor(1, 2000);
    expect(performance.now() - sent).toBeLessThan(2000);
    const row = await rowsAfter(history);
    expect(row.map((r) => r.type)).toEqual(["member.invited"]);
    const cursor = await eventCursor(stack.running.gateway.storage, row[0]!.id);
    expect(stream.events[0]!.id).toBe(cursor);
    expect(stream.raw).toContain(`\nid: ${cursor}\n`);
    expect(event).toEqual({
      id: row[0]!.id,
      type: "member.invited",
      actor: "olivia",
      resourceId: team,
      userId: "bob",
      data: { role: "reader" },
      at: expect.stringMatching(ISO),
    });
    expect(Math.abs(Date.parse(event!.at) - Date.now())).toBeLessThan(5000);
    await stream.close();
  });

  test("an event committed right after `connected` is delivered, however slow the starting read", async () => {
    // The stream reads where it starts (the newest row) before it says `connected`: an event a client
    // causes once it has heard `connected` is never taken for history and skipped.
    const queries = stack.running.gateway.queries;
    const lastEventCursor = queries.lastEventCursor;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    queries.lastEventCursor = async () => {
      await held;
      return lastEventCursor.call(queries);
    };
    try {
      const stream = await Stream.open();
      setTimeout(release, 300); // the starting read is late
      await stream.waitForPreamble();
      expect(stream.comments).toEqual(["connected"]);
      const teamId = await newTeam("After connected");
      const [created] = await stream.waitFor(1);
      expect(created).toMatchObject({ type: "resource.created", resourceId: teamId });
      await stream.close();
    } finally {
      queries.lastEventCursor = lastEventCursor;
    }
  });

  test("a refused change writes nothing to the stream; the next real one comes alone", async () => {
    const team = await newTeam("Refusals");
    await ok("olivia", `/v1/resources/${team}/invite`, { userId: "zed" });
    const stream = await Stream.open();
    await stream.waitForPreamble();
    expect((await as("olivia", `/v1/resources/${team}/invite`, { userId: "zed" })).status).toBe(409);
    expect((await as("bob", `/v1/resources/${team}/invite`, { userId: "yan" })).status).toBe(404);
    await ok("olivia", `/v1/resources/${team}/invite`, { userId: "xia" });
    const [only] = await stream.waitFor(1);
    expect(only).toMatchObject({ type: "member.invited", userId: "xia", resourceId: team });
    await Bun.sleep(50);
    expect(stream.events.length).toBe(1);
    await stream.close();
  });

  test("Last-Event-ID resumes after a disconnect: exactly the missed events, in order, then live ones", async () => {
    const team = await newTeam("Resume Team");
    const first = await Stream.open();
    await first.waitForPreamble();
    await ok("olivia", `/v1/resources/${team}/invite`, { userId: "bob", role: "writer" });
    const [seen] = await first.waitFor(1);
    const lastSeen = first.events[0]!.id!;
    expect(seen!.type).toBe("member.invited");
    await first.close();

    // Three changes while disconnected: an accept, an invite, and an operator's cancel.
    await ok("bob", `/v1/resources/${team}/accept`);
    await ok("olivia", `/v1/resources/${team}/invite`, { userId: "carol" });
    const cancel = await fetch(`${stack.adminUrl}/admin/v1/pending/${team}/carol`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(cancel.status).toBe(200);
    const missed = await rowsAfter(eventRowId(lastSeen));
    expect(missed.map((r) => [r.type, r.userId])).toEqual([
      ["member.accepted", "bob"],
      ["member.invited", "carol"],
      ["member.cancelled", "carol"],
    ]);

    const resumed = await Stream.open(lastSeen);
    const got = await resumed.waitFor(3);
    expect(resumed.events.map((e) => e.id)).toEqual(await cursors(missed));
    expect(got.map((e) => [e.type, e.userId, e.resourceId])).toEqual([
      ["member.accepted", "bob", team],
      ["member.invited", "carol", team],
      ["member.cancelled", "carol", team],
    ]);
    expect(got[2]).toMatchObject({ actor: "admin", data: { was: "invited" } });
    // No repeats: nothing else arrives, and the next change arrives once.
    await Bun.sleep(50);
    expect(resumed.events.length).toBe(3);
    await ok("olivia", `/v1/resources/${team}/setRole`, { userId: "bob", role: "reader" });
    const after = await resumed.waitFor(4);
    expect(after[3]).toMatchObject({ type: "member.role_changed", userId: "bob", data: { role: "reader" } });
    await Bun.sleep(50);
    expect(resumed.events.length).toBe(4);
    const ids = resumed.events.map((e) => eventRowId(e.id!));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    await resumed.close();
  });

  test("Last-Event-ID: 0 replays the whole audit log in order; an invalid one means new events only", async () => {
    const all = await rowsAfter(0);
    const replay = await Stream.open("0");
    const got = await replay.waitFor(all.length);
    expect(got.map((e) => [e.id, e.type])).toEqual(all.map((r) => [r.id, r.type]));
    expect(replay.events.map((e) => e.id)).toEqual(await cursors(all));
    await replay.close();

    const garbage = await Stream.open("not-a-number");
    await garbage.waitForPreamble();
    await Bun.sleep(30);
    expect(garbage.events).toEqual([]);
    const team = await newTeam("After Garbage");
    const [created] = await garbage.waitFor(1);
    expect(created).toMatchObject({ type: "resource.created", resourceId: team, actor: "olivia" });
    await garbage.close();
  });

  test("two listeners both get each event once", async () => {
    const [a, b] = await Promise.all([Stream.open(), Stream.open()]);
    await Promise.all([a.waitForPreamble(), b.waitForPreamble()]);
    const team = await newTeam("Fan Out");
    await ok("olivia", `/v1/resources/${team}/invite`, { userId: "bob" });
    const [ea, eb] = await Promise.all([a.waitFor(2), b.waitFor(2)]);
    expect(ea).toEqual(eb);
    expect(ea!.map((e) => e.type)).toEqual(["resource.created", "member.invited"]);
    await Promise.all([a.close(), b.close()]);
  });
});
