/**
 * The README shows each SDK example as the file a test runs: a change to one that the README does not
 * carry (or the other way round) fails here.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]);

test.each(readdirSync(join(root, "examples/sdk")).filter((name) => /\.(ts|tsx|mjs|html)$/.test(name)))(
  "examples/sdk/%s is in the README as it is",
  (name) => {
    const source = readFileSync(join(root, "examples/sdk", name), "utf8");
    expect(blocks).toContain(source);
  },
);
