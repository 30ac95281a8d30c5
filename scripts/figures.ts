/**
 * The figures README.md and docs/*.md state about the build and the code (the SDK's tarball, the
 * binaries' sizes and memory, each OpenAPI document's operations, the error codes, versions) are
 * measured here, never typed by hand, so they cannot drift.
 *
 *   bun scripts/figures.ts            check: exit 1 naming each stale figure (and any marker it does not know)
 *   bun scripts/figures.ts --write    rewrite the stale figures in place
 *   --cheap                           leave out the binaries (compiling and starting them takes seconds)
 *   --root DIR                        read (and write) DIR/README.md and DIR/docs/*.md instead of this checkout's
 *
 * The binaries' figures are measured only on Linux x86-64, where the pages say they were.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docFiles, ROOT } from "./figures/docs.ts";
import { isStale, occurrences, rewrite } from "./figures/markers.ts";
import { BUILD_PLATFORM, GROUPS, PATTERNS } from "./figures/measure.ts";

const args = process.argv.slice(2);
const write = args.includes("--write");
const cheap = args.includes("--cheap");
const rootAt = args.indexOf("--root");
const root = rootAt >= 0 ? args[rootAt + 1]! : ROOT;

const groups = GROUPS.filter((group) => group.cost === "cheap" || (!cheap && BUILD_PLATFORM));
if (!cheap && !BUILD_PLATFORM)
  console.log(
    `figures: the binaries' figures are left out (measured on linux-x64, this is ${process.platform}-${process.arch})`,
  );

const work = mkdtempSync(join(tmpdir(), "sg-figures-"));
const measured: Record<string, string> = {};
try {
  for (const group of groups) Object.assign(measured, await group.measure(work));
} finally {
  rmSync(work, { recursive: true, force: true });
}

const known = new Set(GROUPS.flatMap((group) => group.names));
const stated = new Set<string>();
const problems: string[] = [];
for (const file of docFiles(root)) {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  for (const occurrence of occurrences(text, PATTERNS)) {
    stated.add(occurrence.name);
    const value = measured[occurrence.name];
    if (!known.has(occurrence.name)) problems.push(`${file}: no figure is called ${occurrence.name}`);
    else if (value !== undefined && isStale(occurrence, value) && !write)
      problems.push(`${file}: ${occurrence.name} says "${occurrence.value}", measured "${value}"`);
  }
  if (write) {
    const updated = rewrite(text, measured, PATTERNS);
    if (updated !== text) {
      writeFileSync(path, updated);
      console.log(`figures: updated ${file}`);
    }
  }
}
for (const name of Object.keys(measured))
  if (!stated.has(name)) problems.push(`${name} is measured but no page states it`);

for (const [name, value] of Object.entries(measured))
  console.log(`${name.padEnd(20)} ${value.length > 60 ? `${value.slice(0, 57)}...` : value}`);
for (const problem of problems) console.error(`figures: ${problem}`);
if (problems.length > 0) {
  if (!write) console.error("bun scripts/figures.ts --write updates them");
  process.exit(1);
}
