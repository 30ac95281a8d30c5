/**
 * The database failing is not a bug of ours: another process holds the write lock past the wait, or
 * PostgreSQL gave up on a lock (503 `database_busy`); the disk is full, the file read-only or
 * unreadable, the server unreachable or shutting down (503 `database_unavailable`). Both say when to
 * retry; reads that still work are still served, since only the failing statement fails. Text
 * PostgreSQL cannot store (a NUL character) is the caller's: 400. Anything else stays a 500.
 */
import { Refusal } from "../domain/refusal.ts";

/** The refusal a driver's error is answered with, or undefined when it is not the database's failure. */
export function databaseRefusal(error: unknown): Refusal | undefined {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return undefined;
  const name = (error as { name?: unknown })?.name;
  const kind = name === "SQLiteError" ? sqliteKind(code) : postgresKind(code, name === "PostgresError");
  if (kind === "busy") return new Refusal("database_busy", { retryAfterSeconds: 1 });
  if (kind === "unavailable") return new Refusal("database_unavailable", { retryAfterSeconds: 5 });
  if (kind === "bad_text")
    return new Refusal("invalid_request", { field: "text", why: "must not contain a NUL character" });
  return undefined;
}

/** The database cannot serve now (busy or unavailable), as opposed to a statement it refused. */
export function isDatabaseDown(error: unknown): boolean {
  const code = databaseRefusal(error)?.code;
  return code === "database_busy" || code === "database_unavailable";
}

type DatabaseFailure = "busy" | "unavailable" | "bad_text" | undefined;

function sqliteKind(code: string): DatabaseFailure {
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
  if (/^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|NOMEM|PROTOCOL)/.test(code)) return "unavailable";
  return undefined;
}

/** SQLSTATE classes from the server; the driver's own codes for a connection that failed or closed. */
function postgresKind(code: string, fromServer: boolean): DatabaseFailure {
  if (!fromServer)
    return /^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|CONNECT_TIMEOUT|CONNECTION_)/.test(code)
      ? "unavailable"
      : undefined;
  if (code === "40001" || code === "40P01" || code === "55P03") return "busy";
  // Connection refused or lost, the server out of resources or shutting down, the database not
  // accepting connections (55000) or gone (3D000), our login refused (28): the database is unavailable.
  if (/^(08|53|57P0[1234]|25006|55000|3D000|28)/.test(code)) return "unavailable";
  if (code === "22021" || code === "22P05") return "bad_text";
  return undefined;
}
