/**
 * A connection of a postgres.js pool reserved for one holder (a transaction, a held lock), that knows
 * when the server or the network has ended it. postgres.js does not: a statement written to an ended
 * reserved connection fails outside any promise (an uncaught error that would stop the process), and
 * releasing it puts the ended connection back among the open ones. So every statement goes through
 * `query`, which refuses once the connection has ended (503 `database_unavailable` upstream), and
 * `release` gives it back only while it is alive (an ended one is already counted closed by the pool).
 *
 * The end is learnt the way postgres.js's own `begin` learns it: the first statement's `onexecute`
 * hands over the connection, whose `onclose` slot the pool calls when its socket ends.
 */
import type postgres from "postgres";
import type { Param } from "./sql.ts";

type Pool = postgres.Sql<Record<string, never>>;
type Reserved = postgres.ReservedSql<Record<string, never>>;
interface PoolConnection {
  onclose: ((error?: unknown) => void) | null;
}

function ended(cause?: unknown): Error {
  const error = new Error("the connection to the database ended", { cause }) as Error & { code: string };
  error.code = "CONNECTION_CLOSED";
  return error;
}

export class OwnConnection {
  private connection: PoolConnection | undefined;
  private endedWith: Error | undefined;
  private released = false;

  private constructor(private readonly sql: Reserved) {}

  static async reserve(pool: Pool): Promise<OwnConnection> {
    return new OwnConnection(await pool.reserve());
  }

  get alive(): boolean {
    return this.endedWith === undefined;
  }

  /** Sends a statement (prepared once per connection); rejected at once if the connection has ended. */
  query(text: string, params: readonly Param[] = []): Promise<postgres.RowList<postgres.Row[]>> {
    if (this.endedWith) return Promise.reject(this.endedWith);
    const options: Record<string, unknown> = { prepare: true };
    if (!this.connection)
      options.onexecute = (connection: PoolConnection) => {
        this.connection = connection;
        connection.onclose = (cause) => {
          this.endedWith = ended(cause);
        };
        return true; // keep pipelining
      };
    return this.sql.unsafe(text, params as Param[], options as { prepare: boolean }).execute();
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.connection) this.connection.onclose = null;
    if (this.alive) this.sql.release();
  }
}
