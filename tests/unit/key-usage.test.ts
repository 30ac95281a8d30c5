/** What may be pruned: each need of a previous key, alone, with and without --force. */
import { expect, test } from "bun:test";
import type { RunningProcess } from "../../src/server/auth/heartbeat.ts";
import { decidePrune, type KeyFacts, keyNeeds } from "../../src/server/auth/key-usage.ts";

const running = (keyId: string): RunningProcess => ({ host: "h", pid: 1, keyId, startedAt: 0, seenAt: 0 });

function facts(over: Partial<KeyFacts> = {}): KeyFacts {
  return {
    ring: ["cur", "old"],
    sessions: new Map(),
    processes: [running("cur")],
    deployments: new Map(),
    ...over,
  };
}

test.each([
  ["nothing needs it", facts(), false, ["old"], 0],
  ["a live session", facts({ sessions: new Map([["old", 3]]) }), false, [], 0],
  ["a live session, forced", facts({ sessions: new Map([["old", 3]]) }), true, ["old"], 3],
  ["a session from before key ids", facts({ sessions: new Map([[null, 1]]) }), false, [], 0],
  ["a session from before key ids, forced", facts({ sessions: new Map([[null, 1]]) }), true, ["old"], 0],
  ["a running process", facts({ processes: [running("old")] }), true, [], 0],
  ["a deployed secret", facts({ deployments: new Map([["old", 1]]) }), true, [], 0],
  ["sessions on the current key", facts({ sessions: new Map([["cur", 5]]) }), false, ["old"], 0],
] as const)("prune when %s", (_, given, force, remove, signedOut) => {
  const decision = decidePrune(given, force);
  expect(decision.remove).toEqual([...remove]);
  expect(decision.signedOut).toBe(signedOut);
  expect(decision.kept.map((need) => need.id)).toEqual(remove.length === 0 ? ["old"] : []);
});

test("the current key is never pruned, and keys in use that the source lacks are listed after its own", () => {
  const given = facts({ ring: ["cur"], sessions: new Map([["gone", 2]]), processes: [running("other")] });
  expect(decidePrune(given, true)).toEqual({ remove: [], kept: [], signedOut: 0, unknown: 0 });
  expect(keyNeeds(given).map((need) => [need.id, need.sessions, need.processes])).toEqual([
    ["cur", 0, 0],
    ["gone", 2, 0],
    ["other", 0, 1],
  ]);
});
