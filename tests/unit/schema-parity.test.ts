/**
 * The two schema descriptions (SQLite's schema.ts, PostgreSQL's schema-pg.ts) describe the same
 * tables: the same columns (name, not-null, primary key) and the same indexes, except the few that
 * belong to one engine (PostgreSQL's trigram index and event cursor column and index).
 */
import { expect, test } from "bun:test";
import { getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import * as sqlite from "../../src/server/db/schema.ts";
import * as pg from "../../src/server/db/schema-pg.ts";

const ONLY_POSTGRES = { columns: ["events.xid"], indexes: ["resources_name_trgm", "events_cursor"] };

function describe(config: {
  name: string;
  columns: Array<{ name: string; notNull: boolean; primary: boolean }>;
  indexes: Array<{ config: { name?: string; unique?: boolean } }>;
  primaryKeys: Array<{ columns: Array<{ name: string }> }>;
}) {
  return {
    columns: config.columns
      .filter((c) => !ONLY_POSTGRES.columns.includes(`${config.name}.${c.name}`))
      .map((c) => `${c.name}${c.notNull ? " not null" : ""}${c.primary ? " primary" : ""}`)
      .sort(),
    indexes: config.indexes
      .map((i) => `${i.config.name}${i.config.unique ? " unique" : ""}`)
      .filter((name) => !ONLY_POSTGRES.indexes.includes(name))
      .sort(),
    primaryKeys: config.primaryKeys.map((k) => k.columns.map((c) => c.name).join(",")),
  };
}

test("every table has the same columns and indexes on SQLite and PostgreSQL", () => {
  const tables = (module: Record<string, unknown>, config: (t: any) => any) =>
    Object.fromEntries(
      Object.values(module)
        .filter((value) => typeof value === "object" && value !== null && Symbol.for("drizzle:Name") in value)
        .map((table) => {
          const c = config(table);
          return [c.name, describe(c)];
        }),
    );
  const onSqlite = tables(sqlite, sqliteConfig);
  const onPostgres = tables(pg, pgConfig);
  expect(Object.keys(onPostgres).sort()).toEqual(Object.keys(onSqlite).sort());
  expect(Object.keys(onSqlite).length).toBeGreaterThanOrEqual(11);
  expect(onPostgres).toEqual(onSqlite);
});
