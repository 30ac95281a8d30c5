/** A log line is the JSON object {at, level, message, ...fields}, whatever the fields hold. */
import { expect, test } from "bun:test";
import { createLogger } from "../../src/server/lib/log.ts";

test("lines parse as the object they stand for, fields in order, undefined fields left out", () => {
  const lines: string[] = [];
  const log = createLogger((line) => lines.push(line));
  log("info", "request", { requestId: "r1", status: 200, clientId: null, odd: 'quote " and \\ and \n' });
  log("warn", 'a "quoted" message');
  log("error", "empty", {});
  log("info", "gone", { skipped: undefined });
  const parsed = lines.map((line) => JSON.parse(line));
  expect(Object.keys(parsed[0])).toEqual([
    "at",
    "level",
    "message",
    "requestId",
    "status",
    "clientId",
    "odd",
  ]);
  expect(parsed[0]).toMatchObject({ level: "info", message: "request", status: 200, clientId: null });
  expect(parsed[0].odd).toBe('quote " and \\ and \n');
  expect(parsed[1]).toEqual({ at: parsed[1].at, level: "warn", message: 'a "quoted" message' });
  expect(Object.keys(parsed[2])).toEqual(["at", "level", "message"]);
  expect(Object.keys(parsed[3])).toEqual(["at", "level", "message"]);
  expect(new Date(parsed[0].at).toISOString()).toBe(parsed[0].at);
});

test("an access-log line is the JSON of its fields, escaped where a value needs it", async () => {
  const { observeRequests } = await import("../../src/server/http/access-log.ts");
  const { Metrics } = await import("../../src/server/http/metrics.ts");
  const lines: string[] = [];
  const seen: Array<Record<string, unknown>> = [];
  const toLines = createLogger((line) => lines.push(line));
  const handler = observeRequests(
    (request, facts) => {
      if (request.method === "DELETE") return new Response("{}", { status: 404 });
      facts.route = "/v1/resources/:id"; // what the router's answer hook notes
      facts.credential = "bearer";
      facts.clientId = 'odd "client" \\ \u2028 id';
      return new Response("{}", { status: 201 });
    },
    {
      metrics: new Metrics(),
      accessLog: (level, message, fields) => {
        toLines(level, message, fields);
        seen.push({ ...fields });
      },
    },
  );
  await handler(new Request("http://x/v1/resources/abc?q=1", { headers: { "x-request-id": "a/b:c=d@e" } }));
  await handler(new Request("http://x/nowhere", { method: "DELETE" }));
  const [first, second] = lines.map((line) => JSON.parse(line));
  const { at, level, message, ...fields } = first;
  expect({ level, message }).toEqual({ level: "info", message: "request" });
  expect(new Date(at).toISOString()).toBe(at);
  expect(fields).toEqual({
    requestId: "a/b:c=d@e",
    method: "GET",
    route: "/v1/resources/:id",
    status: 201,
    durationMs: fields.durationMs,
    credential: "bearer",
    clientId: 'odd "client" \\ \u2028 id',
  });
  expect(fields.durationMs).toBeNumber();
  expect(seen[0]).toEqual(fields);
  expect(Object.keys(fields)).toEqual([
    "requestId",
    "method",
    "route",
    "status",
    "durationMs",
    "credential",
    "clientId",
  ]);
  expect(second).toMatchObject({
    method: "DELETE",
    route: "other",
    status: 404,
    credential: null,
    clientId: null,
  });
  expect(second.requestId).toMatch(/^[0-9a-f-]{36}$/);
});
