/**
 * Every relative link and image in README.md and docs/*.md points at a file (or folder) of the
 * repository, and a `#anchor` into a Markdown page names one of its headings, slugged as GitHub does
 * (github-slugger). Moving a section or renaming a page breaks a link here, not in a reader's browser.
 * Links are read by Bun's Markdown parser, so code blocks and code spans are not links.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import GithubSlugger from "github-slugger";
import { docFiles, ROOT } from "../../scripts/figures/docs.ts";

interface Parsed {
  targets: string[];
  anchors: Set<string>;
}

function parse(markdown: string): Parsed {
  const targets: string[] = [];
  const anchors = new Set<string>();
  const slugger = new GithubSlugger();
  Bun.markdown.render(markdown, {
    link: (children: string, meta: { href: string }) => {
      targets.push(meta.href);
      return children;
    },
    image: (children: string, meta: { src: string }) => {
      targets.push(meta.src);
      return children;
    },
    heading: (children: string) => {
      anchors.add(slugger.slug(children));
      return children;
    },
  });
  return { targets, anchors };
}

const parsed = new Map(docFiles().map((file) => [file, parse(readFileSync(join(ROOT, file), "utf8"))]));

/** What is wrong with `target` linked from `file`, or undefined when it resolves. */
function problem(file: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#", 2);
  const resolved = path === "" ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
  const name = relative(ROOT, resolved);
  if (name.startsWith("..")) return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: no file ${name}`;
  if (anchor === undefined || !name.endsWith(".md")) return undefined;
  const page = parsed.get(name) ?? parse(readFileSync(resolved, "utf8"));
  return page.anchors.has(anchor) ? undefined : `${target}: no heading #${anchor} in ${name}`;
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe("relative links in the documentation resolve", () => {
  for (const [file, { targets }] of parsed)
    test(file, () => {
      const problems = targets
        .filter((target) => !external(target))
        .map((target) => problem(file, target))
        .filter(Boolean);
      expect(problems).toEqual([]);
    });
});

test("the README links every page under docs/", () => {
  const linked = new Set(
    parsed
      .get("README.md")!
      .targets.filter((target) => !external(target))
      .map((target) => target.split("#")[0]),
  );
  expect(docFiles().filter((file) => file !== "README.md" && !linked.has(file))).toEqual([]);
});

test("a broken link, a missing anchor and a code span are told apart", () => {
  const sample = parse("# A title\n\n[ok](#a-title) [gone](#nowhere) `[code](nowhere.md)`\n");
  expect(sample.targets).toEqual(["#a-title", "#nowhere"]);
  expect(sample.anchors).toEqual(new Set(["a-title"]));
  expect(problem("README.md", "docs/nowhere.md")).toBe("docs/nowhere.md: no file docs/nowhere.md");
  expect(problem("README.md", "docs/sdk.md#nowhere")).toBe(
    "docs/sdk.md#nowhere: no heading #nowhere in docs/sdk.md",
  );
  expect(problem("docs/sdk.md", "../README.md#the-commands")).toBeUndefined();
});
