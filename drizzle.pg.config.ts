import { defineConfig } from "drizzle-kit";

// PostgreSQL migrations (DATABASE_URL); drizzle.config.ts has SQLite's (the embedded default).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/server/db/schema-pg.ts",
  out: "./drizzle-pg",
});
