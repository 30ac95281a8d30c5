/**
 * The figure markers of the documentation (scripts/figures/markers.ts): found in prose and, by a
 * pattern, in code blocks; stale when the measured value differs (beyond a stated tolerance); and
 * rewritten in place. The stale cases are the figures the README stated before they were measured.
 */
import { describe, expect, test } from "bun:test";
import { isStale, occurrences, rewrite } from "../../scripts/figures/markers.ts";
import { PATTERNS } from "../../scripts/figures/measure.ts";

const page = [
  "the public listener (<!-- figure:public-operations -->31<!-- /figure --> operations)",
  "| `dist/gateway` | <!-- figure:binary-gateway -->107.0 MB<!-- /figure --> | <!-- figure:binary-gateway-rss ±10% -->63 MB<!-- /figure --> |",
  "```sh",
  "bun run build:sdk   # dist/session-gateway-sdk-0.1.0.tgz",
  "dist/gateway --version    # gateway 0.1.0 (Bun 1.4.5)",
  "```",
].join("\n");

describe("occurrences", () => {
  test("marked figures with their tolerance, and pattern figures in code blocks, in page order", () => {
    const found = occurrences(page, PATTERNS).map(({ name, value, tolerance }) => ({
      name,
      value,
      tolerance,
    }));
    expect(found).toEqual([
      { name: "public-operations", value: "31", tolerance: undefined },
      { name: "binary-gateway", value: "107.0 MB", tolerance: undefined },
      { name: "binary-gateway-rss", value: "63 MB", tolerance: 0.1 },
      { name: "sdk-version", value: "0.1.0", tolerance: undefined },
      { name: "gateway-version", value: "0.1.0", tolerance: undefined },
    ]);
  });

  test("each occurrence's index and length cover its value exactly", () => {
    for (const occurrence of occurrences(page, PATTERNS))
      expect(page.slice(occurrence.index, occurrence.index + occurrence.length)).toBe(occurrence.value);
  });
});

describe("isStale", () => {
  test("the README's figures before this change are stale against what was measured", () => {
    expect(isStale({ value: "31" }, "38")).toBe(true); // public OpenAPI operations
    expect(isStale({ value: "15" }, "22")).toBe(true); // admin OpenAPI operations
    expect(isStale({ value: "107.0 MB" }, "107.2 MB")).toBe(true);
    expect(isStale({ value: "2.8 MB" }, "3.0 MB")).toBe(true);
    expect(isStale({ value: "1.0 MB" }, "1.2 MB")).toBe(true);
    expect(isStale({ value: "58 MB", tolerance: 0.1 }, "68 MB")).toBe(true);
  });

  test("an exact figure must match; a figure with a tolerance may differ by that much, in the same unit", () => {
    expect(isStale({ value: "16 KB" }, "16 KB")).toBe(false);
    expect(isStale({ value: "70 MB", tolerance: 0.1 }, "76 MB")).toBe(false);
    expect(isStale({ value: "70 MB", tolerance: 0.1 }, "78 MB")).toBe(true);
    expect(isStale({ value: "70 MB", tolerance: 0.1 }, "70 KB")).toBe(true);
    expect(isStale({ value: "about seventy", tolerance: 0.1 }, "70 MB")).toBe(true);
    expect(isStale({ value: "1,024 MB", tolerance: 0.01 }, "1,030 MB")).toBe(false);
  });
});

describe("rewrite", () => {
  test("replaces stale values only, keeps the markers, and leaves a value within its tolerance", () => {
    const measured = {
      "public-operations": "38",
      "binary-gateway": "107.2 MB",
      "binary-gateway-rss": "66 MB",
      "sdk-version": "0.2.0",
    };
    const updated = rewrite(page, measured, PATTERNS);
    expect(updated).toContain("(<!-- figure:public-operations -->38<!-- /figure --> operations)");
    expect(updated).toContain("<!-- figure:binary-gateway -->107.2 MB<!-- /figure -->");
    expect(updated).toContain("<!-- figure:binary-gateway-rss ±10% -->63 MB<!-- /figure -->");
    expect(updated).toContain("dist/session-gateway-sdk-0.2.0.tgz");
    expect(updated).toContain("# gateway 0.1.0 (Bun 1.4.5)"); // not measured here: untouched
    const after = occurrences(updated, PATTERNS);
    for (const occurrence of after) {
      const value = measured[occurrence.name as keyof typeof measured];
      if (value !== undefined) expect(isStale(occurrence, value)).toBe(false);
    }
  });
});
