/**
 * One place reads a request's URL: the router. Every other reader is a second router in waiting: the
 * fast path found the path with `url.indexOf("/", 11)`, as Elysia did unless told otherwise, and with
 * a Host of 1–3 characters both read `/x/v1/resources/<id>/join` as a join. What the router found (the
 * route, its params, its query) is what the rest of the pipeline should use.
 *
 * A read is `request.url` or `req.url` (a `new URL(request.url)` included), a string operation on some
 * `….url` (`.indexOf`, `.charCodeAt`, `.slice`, `.startsWith`, `.length`), `new URL(x.url…)`, a call of
 * `pathStart(`, or `indexOf("/"`, counted as lines per file. KNOWN_READERS lists today's files with
 * their count, and may only shrink: a new reader, or one more read in a listed file, fails; so does a
 * listed count that is no longer true (write the smaller one, or strike the file).
 */
import { expect, test } from "bun:test";
import { expectOnlyShrinks, readServerFile, serverFiles } from "../helpers/source-scan.ts";

/** Today's readers: `file (reads)`. */
const KNOWN_READERS = [
  "auth/routes.ts (1)",
  "http/error-page.ts (1)",
  "http/plumbing.ts (1)",
  "http/url-path.ts (2)",
];

const READS = [
  /\b(?:request|req)\.url\b/,
  /\.url\.(?:indexOf|charCodeAt|slice|startsWith|length)\b/,
  /new URL\(\s*\w+\.url\b/,
  /\bpathStart\(/,
  /indexOf\("\/"/,
];

/** How many lines of a source read a request's URL. */
function reads(code: string): number {
  return code.split("\n").filter((line) => READS.some((pattern) => pattern.test(line))).length;
}

function readers(): string[] {
  const found: string[] = [];
  for (const file of serverFiles()) {
    const count = reads(readServerFile(file));
    if (count > 0) found.push(`${file} (${count})`);
  }
  return found;
}

test("the scan counts each kind of read once", () => {
  expect(reads("const u = new URL(request.url).searchParams;")).toBe(1);
  expect(reads("let n = request.url.length + 11;")).toBe(1);
  expect(reads('const start = pathStart(url);\nconst at = url.indexOf("/", 11);')).toBe(2);
  expect(reads("const origin = new URL(config.issuer).origin; // not a request")).toBe(0);
});

test("no new reader of a request's URL, and every known one still there", () => {
  expectOnlyShrinks(readers(), KNOWN_READERS, "readers of a request's URL");
});
