/**
 * The documentation (README.md and docs/*.md) shows each SDK example as the file a test runs: a change
 * to one that the documentation does not carry (or the other way round) fails here.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { docFiles, ROOT as root } from "../../scripts/figures/docs.ts";

const blocks = docFiles()
  .map((file) => readFileSync(join(root, file), "utf8"))
  .flatMap((text) => [...text.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]));

test.each(readdirSync(join(root, "examples/sdk")).filter((name) => /\.(ts|tsx|mjs|html)$/.test(name)))(
  "examples/sdk/%s is in the documentation as it is",
  (name) => {
    const source = readFileSync(join(root, "examples/sdk", name), "utf8");
    expect(blocks).toContain(source);
  },
);
