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
