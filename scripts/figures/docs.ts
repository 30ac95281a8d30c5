/**
 * The project's documentation: README.md and the pages under docs/ it links. The figures script and
 * the documentation tests read the same list, so a new page is checked the day it is added.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");

/** README.md and every docs/*.md page, as paths relative to `root`. */
export function docFiles(root = ROOT): string[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages];
}
