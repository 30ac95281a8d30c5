/**
 * Each aggregate owns its tables: only its store's files name them in SQL, so a cache over a store
 * cannot be bypassed (accounts/deletion.ts updating `members` behind the resource cache was the bug
 * this prevents) and a column is described in one place. Everyone else goes through the store.
 *
 * A file names a table when its source has `FROM t`, `JOIN t`, `INTO t`, `UPDATE t` (DELETE FROM
 * included) or `TABLE t` with a table of db/schema.ts (or the search index), when it imports the
 * table's drizzle object from db/schema.ts, or, where it builds SQL around an interpolated name
 * (`FROM ${table}`), when a string literal in it is a table's name. The schema files themselves are
 * the tables' definition, not a use. OWNERS is the README's map ("Which module owns which table");
 * KNOWN_VIOLATIONS the file → table pairs outside it today, which may only shrink.
 */
import { expect, test } from "bun:test";
import { expectOnlyShrinks, readServerFile, serverFiles } from "../helpers/source-scan.ts";

/** Table → the files of the store that owns it (the README's "Which module owns which table"). */
const SESSIONS = [
  "auth/session-store.ts",
  "auth/session-touches.ts",
  "auth/session-reads.ts",
  "auth/session-upkeep.ts",
];
/**
 * The membership aggregate (resources/): resources, their members, ownership offers and the rows linked
 * to them are one aggregate's tables, each file of its store free to join the others (one user's rows for
 * the deletion and the export, the links' resource).
 */
const MEMBERSHIP = [
  "resources/store.ts",
  "resources/rows.ts",
  "resources/browse-queries.ts",
  "resources/user-rows.ts",
  "resources/operator-rows.ts",
  "resources/offer-store.ts",
  "resources/link-rows.ts",
];
const OWNERS: Record<string, string[]> = {
  sessions: SESSIONS,
  resources: MEMBERSHIP,
  members: MEMBERSHIP,
  resources_fts: MEMBERSHIP,
  ownership_offers: MEMBERSHIP,
  resource_links: MEMBERSHIP,
  retained_rows: MEMBERSHIP,
  credits: ["credits/ledger.ts"],
  events: ["events/log.ts", "events/reads.ts"],
  deployments: ["apps/deploy.ts"],
  budget_windows: ["apps/budget-windows.ts"],
  budget_shares: ["apps/budget-windows.ts"],
  consent_bindings: ["auth/consent-binding.ts"],
  gateway_processes: ["auth/heartbeat.ts"],
  settings: ["auth/legacy-secret.ts"],
  deleted_users: ["accounts/pseudonym.ts"],
  logout_tokens: ["auth/logout-token-jtis.ts"],
  subject_logouts: ["idp/subject-logouts.ts"],
};

/** Today's file → table pairs outside the owners (none: the list may only shrink, and it is empty). */
const KNOWN_VIOLATIONS: string[] = [];

const SCHEMA_FILES = new Set(["db/schema.ts", "db/schema-pg.ts"]);

/** The schema's tables: drizzle export name → table name (plus the search index, made by a migration). */
function schemaTables(): Map<string, string> {
  const schema = readServerFile("db/schema.ts");
  const tables = new Map(
    [...schema.matchAll(/export const (\w+) = sqliteTable\(\s*"(\w+)"/g)].map((m) => [m[1]!, m[2]!]),
  );
  tables.set("resourcesFts", "resources_fts");
  return tables;
}

/** The tables a source names (see the header). */
function tablesNamed(code: string, tables: Map<string, string>): Set<string> {
  const names = [...tables.values()].sort((a, b) => b.length - a.length).join("|");
  const named = new Set<string>();
  for (const m of code.matchAll(new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+"?(${names})\\b`, "g")))
    named.add(m[1]!);
  for (const m of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"[./]*db\/schema(?:-pg)?\.ts"/g))
    for (const imported of m[1]!.split(",")) {
      const table = tables.get(
        imported
          .replace(/\btype\b/, "")
          .trim()
          .split(/\s+as\s+/)[0]!,
      );
      if (table) named.add(table);
    }
  if (/\b(?:FROM|JOIN|INTO|UPDATE)\s+\$\{/.test(code))
    for (const m of code.matchAll(new RegExp(`["'\`](${names})["'\`]`, "g"))) named.add(m[1]!);
  return named;
}

function violations(): string[] {
  const tables = schemaTables();
  const found: string[] = [];
  for (const file of serverFiles()) {
    if (SCHEMA_FILES.has(file)) continue;
    for (const table of tablesNamed(readServerFile(file), tables))
      if (!OWNERS[table]?.includes(file)) found.push(`${file} → ${table}`);
  }
  return found;
}

test("every table of the schema has an owner, and every owner is a file", () => {
  const files = new Set(serverFiles());
  expect([...schemaTables().values()].sort()).toEqual(Object.keys(OWNERS).sort());
  for (const owners of Object.values(OWNERS))
    for (const file of owners) expect(files.has(file), file).toBe(true);
});

test("the scan sees SQL, a drizzle import and an interpolated table name", () => {
  const tables = schemaTables();
  const seen = (code: string) => [...tablesNamed(code, tables)].sort();
  expect(seen("`SELECT 1 FROM members m JOIN resources r ON r.id = m.resource_id`")).toEqual([
    "members",
    "resources",
  ]);
  expect(seen('"DELETE FROM sessions WHERE id = $1"; "INSERT INTO credits (x) VALUES (1)"')).toEqual([
    "credits",
    "sessions",
  ]);
  expect(seen('import type { members as m } from "../db/schema.ts";')).toEqual(["members"]);
  const interpolated = ["const q = `UPDATE ", "$", '{table} SET x = 1`; q("budget_windows");'].join("");
  expect(seen(interpolated)).toEqual(["budget_windows"]);
  expect(seen("// rows come from members; members_fts, FROM resources_fts")).toEqual(["resources_fts"]);
});

test("no module outside a table's store names it, but the known ones, each still there", () => {
  expectOnlyShrinks(violations(), KNOWN_VIOLATIONS, "table uses outside the owning store");
});
