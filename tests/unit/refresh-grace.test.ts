/**
 * The rule for a rotated-away refresh token, as a table: only the immediately previous token gets the
 * current session; always within the grace, then while the current token was never presented and the
 * lost-answer window lasts; everything else is theft.
 */
import { describe, expect, test } from "bun:test";
import { type GraceState, olderTokenVerdict } from "../../src/server/auth/refresh-grace.ts";

const WINDOWS = { graceMs: 30_000, lostAnswerMs: 600_000 };
const ROTATED = 1_000_000;
const row = (over: Partial<GraceState> = {}): GraceState => ({
  previousRefreshHash: "prev",
  rotatedAt: ROTATED,
  currentSeenAt: null,
  ...over,
});

const seen = (afterRotation: number) => row({ currentSeenAt: ROTATED + afterRotation });
const at = (afterRotation: number) => ROTATED + afterRotation;

describe("olderTokenVerdict", () => {
  const cases: Array<[string, GraceState, string, number, "current_session" | "theft"]> = [
    ["previous, inside the grace", row(), "prev", at(1_000), "current_session"],
    ["previous, inside the grace, new one seen", seen(10), "prev", at(29_999), "current_session"],
    ["previous, after the grace, new one never seen", row(), "prev", at(30_000), "current_session"],
    ["previous, just inside the lost-answer window", row(), "prev", at(599_999), "current_session"],
    ["previous, at the end of the lost-answer window", row(), "prev", at(600_000), "theft"],
    ["previous, after the grace, new one seen", seen(40_000), "prev", at(50_000), "theft"],
    ["an older token, inside the grace", row(), "older", at(1), "theft"],
    ["an older token, new one never seen", row(), "older", at(60_000), "theft"],
    ["never rotated", row({ previousRefreshHash: null, rotatedAt: null }), "prev", at(0), "theft"],
  ];
  for (const [name, state, presented, now, verdict] of cases)
    test(`${name}: ${verdict}`, () => {
      expect(olderTokenVerdict(state, presented, now, WINDOWS)).toBe(verdict);
    });
});
