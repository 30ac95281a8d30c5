/**
 * The migrations embedded in the program as drizzle's migrator expects them (what its folder reader
 * would build from drizzle/ or drizzle-pg/), so the binary migrates with no files beside it.
 */
import { createHash } from "node:crypto";

interface Journal {
  entries: Array<{ when: number; breakpoints: boolean }>;
}

export function migrationMetas(journal: Journal, sql: string[]) {
  return journal.entries.map((entry, i) => {
    const text = sql[i] ?? "";
    return {
      sql: text.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(text).digest("hex"),
    };
  });
}
