import { describe, expect, test } from "bun:test";
import { backoffDelay } from "../../src/tui/backoff.ts";
import { type AdminEvent, createAdminClient, type StreamStatus } from "../../src/tui/client.ts";
import { AdminApiError } from "../../src/tui/errors.ts";
import { parseArgs, runTui } from "../../src/tui/main.tsx";
import { fakeClient, waitFor } from "./fake-client.ts";

function sink(isTTY = false) {
  let text = "";
  return {
    isTTY,
    write: (t: string) => {
      text += t;
    },
    get text() {
      return text;
    },
  };
}

describe("runTui without a terminal", () => {
  test("prints the overview as text and returns 0", async () => {
    const out = sink();
    const code = await runTui(
      [],
      { ADMIN_TOKEN: "t" },
      { stdout: out, stderr: sink(), client: fakeClient().client },
    );
    expect(code).toBe(0);
    expect(out.text).toContain("Gateway           http://fake-gateway:8788");
    expect(out.text).toMatch(/Sessions active\s+3/);
    expect(out.text).toMatch(/Pending requests\s+1/);
    expect(out.text).toContain("9 hits / 1 misses (90% hits)");
  });

  test("--json prints the overview as JSON", async () => {
    const out = sink();
    const code = await runTui(["--json"], {}, { stdout: out, stderr: sink(), client: fakeClient().client });
    expect(code).toBe(0);
    expect(JSON.parse(out.text)).toMatchObject({ sessions: { active: 3 }, users: 7, uptimeSeconds: 3725 });
  });

  test("an unreachable gateway exits 1 with the reason", async () => {
    const fake = fakeClient();
    fake.state.down = true;
    const err = sink();
    expect(await runTui([], {}, { stdout: sink(), stderr: err, client: fake.client })).toBe(1);
    expect(err.text).toContain("unreachable");
  });

  test("--help, bad arguments and a missing token", async () => {
    const out = sink();
    expect(await runTui(["--help"], {}, { stdout: out })).toBe(0);
    expect(out.text).toContain("--token TOKEN");
    const err = sink();
    expect(await runTui(["--bogus"], {}, { stdout: sink(), stderr: err })).toBe(2);
    expect(err.text).toBe("gateway tui: unknown option --bogus (gateway tui --help shows the usage)\n");
    expect(await runTui([], {}, { stdout: sink(), stderr: err })).toBe(2);
    expect(err.text).toContain("no admin token");
  });

  test("a refused token exits 2 with one line naming where the token came from", async () => {
    for (const [argv, env, from] of [
      [["--token", "nope"], {}, "--token"],
      [[], { ADMIN_TOKEN: "nope" }, "ADMIN_TOKEN"],
    ] as const) {
      const fake = fakeClient();
      fake.state.refused = true;
      const err = sink();
      const code = await runTui([...argv], { ...env }, { stdout: sink(), stderr: err, client: fake.client });
      expect(code).toBe(2);
      expect(err.text).toBe(
        `gateway tui: the admin API at http://fake-gateway:8788 refused the token (unauthenticated): check ${from}\n`,
      );
    }
  });

  test("a bad URL is named by where it came from: ADMIN_URL or --url", () => {
    expect(parseArgs([], { ADMIN_URL: "not a url", ADMIN_TOKEN: "t" })).toBe(
      "ADMIN_URL is not a URL: not a url",
    );
    expect(parseArgs([], { ADMIN_URL: "ftp://x", ADMIN_TOKEN: "t" })).toBe(
      "ADMIN_URL must be http(s): ftp://x",
    );
    expect(parseArgs(["--url", "nope"], { ADMIN_URL: "http://ok:1" })).toBe("--url is not a URL: nope");
  });

  test("--readonly", () => {
    expect(parseArgs(["--readonly"], {})).toMatchObject({ readonly: true });
    expect(parseArgs([], {})).toMatchObject({ readonly: false });
  });

  test("flags win over the environment", () => {
    expect(parseArgs([], { ADMIN_URL: "http://h:1", ADMIN_TOKEN: "e" })).toMatchObject({
      url: "http://h:1",
      token: "e",
    });
    expect(parseArgs(["--url=http://x:2", "--token", "f"], { ADMIN_TOKEN: "e" })).toMatchObject({
      url: "http://x:2",
      token: "f",
    });
    expect(parseArgs([], {})).toMatchObject({ url: "http://127.0.0.1:8788" });
    expect(parseArgs(["--url", "ftp://x"], {})).toContain("http(s)");
  });
});

describe("createAdminClient", () => {
  test("sends the bearer token and the query, and maps errors to typed codes", async () => {
    const seen: Request[] = [];
    const client = createAdminClient({
      url: "http://gw:8788/",
      token: "sekret",
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        seen.push(request);
        if (request.method === "DELETE")
          return Response.json({ error: "no such session", code: "not_found" }, { status: 404 });
        return Response.json({ sessions: [], nextCursor: null });
      }) as typeof fetch,
    });
    await client.listSessions({ limit: 100, userId: "u 1" });
    expect(seen[0]?.url).toBe("http://gw:8788/admin/v1/sessions?limit=100&userId=u+1");
    expect(seen[0]?.headers.get("authorization")).toBe("Bearer sekret");
    const error = await client.revokeSession("a/b").catch((e) => e);
    expect(seen[1]?.url).toBe("http://gw:8788/admin/v1/sessions/a%2Fb");
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });

  test("an unreachable gateway is status 0, code unreachable", async () => {
    const client = createAdminClient({ url: "http://127.0.0.1:1", token: "t" });
    expect(await client.getOverview().catch((e) => e)).toMatchObject({ status: 0, code: "unreachable" });
  });

  test("subscribe parses SSE, resumes with Last-Event-ID and reports its state", async () => {
    const lastIds: (string | null)[] = [];
    let connection = 0;
    const encoder = new TextEncoder();
    const client = createAdminClient({
      url: "http://gw",
      token: "t",
      streamBackoff: { baseMs: 20, capMs: 40 },
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        lastIds.push(new Request(input, init).headers.get("last-event-id"));
        connection += 1;
        if (connection === 2) throw new TypeError("connection refused");
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            const n = connection;
            controller.enqueue(
              encoder.encode(`: heartbeat\n\nid: ${n}0\ndata: {"id":"${n}0","type":"session.cre`),
            );
            controller.enqueue(
              encoder.encode(`ated","actor":null,"resourceId":null,"userId":"u","data":null,"at":"x"}\n\n`),
            );
            if (n === 1) controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }) as typeof fetch,
    });
    const events: AdminEvent[] = [];
    const statuses: StreamStatus[] = [];
    const stop = client.subscribe(
      (e) => events.push(e),
      (s) => statuses.push(s),
    );
    await waitFor(
      () => String(events.length),
      (n) => n === "1",
    );
    expect(events[0]).toMatchObject({ id: "10", type: "session.created", userId: "u" });
    await waitFor(
      () => statuses.map((s) => s.state).join(","),
      (s) => s.startsWith("open,retrying"),
    );
    await waitFor(
      () => statuses.map((s) => s.state).join(","),
      (s) => s === "open,retrying,retrying,open",
    );
    await waitFor(
      () => String(events.length),
      (n) => n === "2",
    );
    stop.close();
    expect(lastIds).toEqual([null, "10", "10"]);
    expect(events[1]).toMatchObject({ id: "30" });
    expect(statuses[2]).toMatchObject({ state: "retrying", attempt: 2, error: "unreachable" });
    expect(statuses[1]).toMatchObject({ state: "retrying", attempt: 1, error: "stream ended" });
  });

  test("reconnect() cuts the wait between attempts short and starts the backoff over", async () => {
    let attempts = 0;
    const client = createAdminClient({
      url: "http://gw",
      token: "t",
      // A wait of at least ten minutes: only reconnect() can bring the next attempt within the test.
      streamBackoff: { baseMs: 600_000, capMs: 600_000 },
      fetch: (async () => {
        attempts += 1;
        throw new TypeError("connection refused");
      }) as unknown as typeof fetch,
    });
    const statuses: StreamStatus[] = [];
    const stream = client.subscribe(
      () => {},
      (s) => statuses.push(s),
    );
    await waitFor(
      () => String(statuses.length),
      (n) => n === "1",
    );
    expect(statuses[0]).toMatchObject({ state: "retrying", attempt: 1 });
    stream.reconnect();
    await waitFor(
      () => String(attempts),
      (n) => n === "2",
    );
    await waitFor(
      () => String(statuses.length),
      (n) => n === "2",
    );
    expect(statuses[1]).toMatchObject({ state: "retrying", attempt: 1 }); // the backoff started over
    stream.close();
  });

  test("a refused stream (401, or the admin API disabled) is final: no retry", async () => {
    for (const [status, code] of [
      [401, "unauthenticated"],
      [503, "admin_disabled"],
    ] as const) {
      let attempts = 0;
      const client = createAdminClient({
        url: "http://gw",
        token: "t",
        streamBackoff: { baseMs: 1, capMs: 1 },
        fetch: (async () => {
          attempts += 1;
          return Response.json({ error: "no", code }, { status });
        }) as unknown as typeof fetch,
      });
      const statuses: StreamStatus[] = [];
      const stream = client.subscribe(
        () => {},
        (s) => statuses.push(s),
      );
      await waitFor(
        () => String(statuses.length),
        (n) => n === "1",
      );
      // Refused, never "retrying": the loop ended there.
      expect(statuses).toEqual([{ state: "refused", error: code }]);
      expect(attempts).toBe(1);
      stream.close();
    }
  });

  test("backoff: 2 s doubling to 60 s, with jitter, never outside the bounds", () => {
    const mid = (n: number) => backoffDelay(n, { random: () => 0.5 });
    expect([0, 1, 2, 3, 4, 5, 6, 10].map(mid)).toEqual([2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    for (let n = 0; n < 12; n++) {
      for (const r of [0, 0.999]) {
        const d = backoffDelay(n, { random: () => r });
        expect(d).toBeGreaterThanOrEqual(2000);
        expect(d).toBeLessThanOrEqual(60000);
      }
    }
  });
});
