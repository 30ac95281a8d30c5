/**
 * The figures README.md and docs/*.md state about the build (the SDK's tarball, the binaries' sizes and
 * memory, the OpenAPI documents' operations, the error codes, versions) are the ones
 * `bun scripts/figures.ts` measures now, as a real process: it packs the SDK, builds both binaries and
 * starts them. A stale figure is named on stderr with exit code 1, and `--write` puts the measured value
 * in its place (on a copy of the pages here, `--root`). The figures do not depend on the suite's
 * engine, so this runs in the SQLite pass only.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { docFiles, ROOT } from "../../scripts/figures/docs.ts";
import { BUILD_PLATFORM, GROUPS } from "../../scripts/figures/measure.ts";
import { testEngine } from "../helpers/postgres.ts";
import { tempDir } from "../helpers/temp.ts";

function figures(...args: string[]) {
  const done = Bun.spawnSync(["bun", "scripts/figures.ts", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: done.exitCode, out: done.stdout.toString(), err: done.stderr.toString() };
}

describe.if(testEngine === "sqlite")("the documentation's figures", () => {
  test("every figure the documentation states is the one measured now", () => {
    const checked = figures();
    expect(checked.err).toBe("");
    expect(checked.code).toBe(0);
    const measured = checked.out.split("\n").map((line) => line.split(" ")[0]);
    const expected = GROUPS.filter((group) => group.cost === "cheap" || BUILD_PLATFORM).flatMap(
      (group) => group.names,
    );
    expect(measured).toEqual(expect.arrayContaining(expected));
  }, 180_000);

  test("a stale figure is named with exit code 1, and --write puts the measured one in its place", () => {
    const root = tempDir("sg-figures-docs-");
    mkdirSync(join(root, "docs"));
    for (const file of docFiles()) copyFileSync(join(ROOT, file), join(root, file));
    const page = join(root, "docs/openapi.md");
    const original = readFileSync(page, "utf8");
    const stale = original.replace(
      /(<!-- figure:public-operations -->)\d+(<!-- \/figure -->)/,
      "$1" + "0" + "$2",
    );
    expect(stale).not.toBe(original);
    writeFileSync(page, stale);

    const checked = figures("--cheap", "--root", root);
    expect(checked.code).toBe(1);
    expect(checked.err).toContain('docs/openapi.md: public-operations says "0", measured "');
    expect(readFileSync(page, "utf8")).toBe(stale);

    const written = figures("--cheap", "--write", "--root", root);
    expect(written.code).toBe(0);
    expect(written.out).toContain("updated docs/openapi.md");
    expect(readFileSync(page, "utf8")).toBe(original);
    expect(figures("--cheap", "--root", root).code).toBe(0);
  }, 120_000);

  test("a marker naming no figure, and a measured figure no page states, fail the check", () => {
    const root = tempDir("sg-figures-docs-");
    mkdirSync(join(root, "docs"));
    for (const file of docFiles()) copyFileSync(join(ROOT, file), join(root, file));
    const page = join(root, "docs/sdk.md");
    const text = readFileSync(page, "utf8");
    writeFileSync(
      page,
      text.replace(
        /<!-- figure:sdk-tarball -->([^<]*)<!-- \/figure -->/,
        "$1 <!-- figure:sdk-size -->1<!-- /figure -->",
      ),
    );

    const checked = figures("--cheap", "--root", root);
    expect(checked.code).toBe(1);
    expect(checked.err).toContain("docs/sdk.md: no figure is called sdk-size");
    expect(checked.err).toContain("sdk-tarball is measured but no page states it");
  }, 120_000);
});
