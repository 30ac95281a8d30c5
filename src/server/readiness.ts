/**
 * `GET /readyz`, for load balancers and Kubernetes: ready when the database answers and carries this
 * program's latest migration, and, when an issuer is configured, the provider's discovery document is
 * loaded. Each check is bounded at 1 s. Discovery, once loaded, is kept: a provider that goes away
 * later makes sign-in fail (502) but not the replicas unready, because every replica would leave at once
 * and the session reads and the membership API, which need no provider, would go down with them.
 * Until discovery has loaded (the provider unreachable since start-up), each check retries it.
 */

import sqliteJournal from "../../drizzle/meta/_journal.json";
import pgJournal from "../../drizzle-pg/meta/_journal.json";
import type { Storage } from "./db/sql.ts";
import type { HydraClient } from "./idp/hydra.ts";

export type DatabaseState = "ok" | "unreachable" | "not_migrated";
export type ProviderState = "ok" | "unreachable" | "not_configured";

export interface Readiness {
  ready: boolean;
  checks: { database: DatabaseState; provider: ProviderState };
}

const BOUND_MS = 1000;

const latest = (journal: { entries: Array<{ when: number }> }) =>
  Math.max(...journal.entries.map((entry) => entry.when));
const LATEST_MIGRATION = { sqlite: latest(sqliteJournal), postgres: latest(pgJournal) };
const MIGRATIONS_TABLE = { sqlite: "__drizzle_migrations", postgres: "drizzle.__drizzle_migrations" };

export async function readiness(storage: Storage, hydra: HydraClient): Promise<Readiness> {
  const [database, provider] = await Promise.all([databaseState(storage), providerState(hydra)]);
  return { ready: database === "ok" && provider !== "unreachable", checks: { database, provider } };
}

async function databaseState(storage: Storage): Promise<DatabaseState> {
  const query = storage
    .get<{ at: unknown }>(`SELECT max(created_at) AS at FROM ${MIGRATIONS_TABLE[storage.dialect]}`)
    .then(
      (row): DatabaseState => (Number(row?.at) >= LATEST_MIGRATION[storage.dialect] ? "ok" : "not_migrated"),
      (): DatabaseState => "unreachable",
    );
  return bounded(query, "unreachable");
}

async function providerState(hydra: HydraClient): Promise<ProviderState> {
  if (!hydra.configured) return "not_configured";
  const loaded = hydra.discover().then(
    (): ProviderState => "ok",
    (): ProviderState => "unreachable",
  );
  return bounded(loaded, "unreachable");
}

async function bounded<T>(work: Promise<T>, late: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), BOUND_MS);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
