/** The pure rules of account deletion (accounts/rules.ts), case by case. */
import { describe, expect, test } from "bun:test";
import {
  type Candidate,
  REAUTHENTICATION_WINDOW_MS,
  signedInRecently,
  successorOf,
} from "../../src/server/accounts/rules.ts";

const m = (userId: string, role: Candidate["role"], state: Candidate["state"], since: number): Candidate => ({
  userId,
  role,
  state,
  since,
});

describe("successorOf: who inherits a deleted owner's resource", () => {
  const cases: Array<[string, Candidate[], string | undefined]> = [
    ["nobody else: deleted", [m("d", "owner", "active", 1)], undefined],
    [
      "only pending rows: deleted",
      [m("d", "owner", "active", 1), m("i", "admin", "invited", 0), m("r", "reader", "requested", 0)],
      undefined,
    ],
    [
      "an admin beats an older writer",
      [m("d", "owner", "active", 1), m("w", "writer", "active", 2), m("a", "admin", "active", 3)],
      "a",
    ],
    [
      "the longest-standing admin",
      [m("a2", "admin", "active", 5), m("d", "owner", "active", 1), m("a1", "admin", "active", 4)],
      "a1",
    ],
    [
      "no admin: the longest-standing active member",
      [m("d", "owner", "active", 1), m("r", "reader", "active", 3), m("w", "writer", "active", 2)],
      "w",
    ],
    [
      "a tie: the smaller user id",
      [m("d", "owner", "active", 1), m("b", "admin", "active", 2), m("a", "admin", "active", 2)],
      "a",
    ],
    [
      "a pending admin never inherits",
      [m("d", "owner", "active", 1), m("p", "admin", "invited", 0), m("r", "reader", "active", 9)],
      "r",
    ],
  ];
  for (const [name, members, heir] of cases) test(name, () => expect(successorOf(members, "d")).toBe(heir));
});

describe("signedInRecently: self-deletion needs a session created in the last 10 minutes", () => {
  const now = 1_000_000_000;
  test.each([
    [now, true],
    [now - REAUTHENTICATION_WINDOW_MS, true],
    [now - REAUTHENTICATION_WINDOW_MS - 1, false],
    [now + 1, false],
  ])("created at %p → %p", (createdAt, expected) => expect(signedInRecently(createdAt, now)).toBe(expected));
});
