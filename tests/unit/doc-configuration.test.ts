/**
 * The configuration page's table names exactly the environment variables the configuration module
 * reads (config-variables.ts, which `gateway --help` prints): a variable added to the code and not to
 * the page, or one the page still lists after the code dropped it, fails here.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/figures/docs.ts";
import { VARIABLES } from "../../src/server/config-variables.ts";

/** The names in the table's first column: `A` / `B`, and `X_ID` / `_SECRET` for X_ID and X_SECRET. */
function tableVariables(page: string): string[] {
  const names: string[] = [];
  for (const row of page.split("\n").filter((line) => line.startsWith("| `"))) {
    for (const [, name] of row.split("|")[1]!.matchAll(/`([A-Z_]+)`/g)) {
      const previous = names.at(-1);
      names.push(name!.startsWith("_") && previous ? previous.replace(/_[A-Z]+$/, name!) : name!);
    }
  }
  return names;
}

test("docs/configuration.md lists every variable the gateway reads, and no other", () => {
  const listed = tableVariables(readFileSync(join(ROOT, "docs/configuration.md"), "utf8"));
  expect([...listed].sort()).toEqual(Object.keys(VARIABLES).sort());
});

test("the table's shorthand is read as the page means it", () => {
  const page = "| `PORT` / `HOST` | x |\n| `IDP_INTROSPECTION_CLIENT_ID` / `_SECRET` | unset |\n";
  expect(tableVariables(page)).toEqual([
    "PORT",
    "HOST",
    "IDP_INTROSPECTION_CLIENT_ID",
    "IDP_INTROSPECTION_CLIENT_SECRET",
  ]);
});
