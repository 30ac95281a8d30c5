/** The user share of an app's budget, as a pure function: ceil(requestsPerMinute * userShare), at least 1. */
import { expect, test } from "bun:test";
import { DEFAULT_USER_SHARE, userAllowance } from "../../src/server/apps/budgets.ts";

test("the default user share is a tenth of the app's budget, rounded up, at least one call", () => {
  expect(DEFAULT_USER_SHARE).toBe(0.1);
  const table = [1, 3, 10, 20, 25, 60, 6000].map((rpm) => [rpm, userAllowance(rpm)]);
  expect(table).toEqual([
    [1, 1],
    [3, 1],
    [10, 1],
    [20, 2],
    [25, 3],
    [60, 6],
    [6000, 600],
  ]);
});

test("a share whose product is a whole number in decimal is not rounded up by binary floating point", () => {
  const table = [
    [100, 0.07],
    [30, 0.1],
    [10, 0.7],
    [1100, 0.07],
    [8, 0.25],
    [5, 1],
  ].map(([rpm, share]) => [rpm, share, userAllowance(rpm!, share)]);
  expect(table).toEqual([
    [100, 0.07, 7],
    [30, 0.1, 3],
    [10, 0.7, 7],
    [1100, 0.07, 77],
    [8, 0.25, 2],
    [5, 1, 5],
  ]);
});
