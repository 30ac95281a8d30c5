/**
 * Start-up failures told in one line: what could not start, why, and which variable to change.
 * `main.ts` prints the message of a `StartupError` (or a configuration error) and exits 1; no stack
 * trace, no source.
 */

export class StartupError extends Error {}

/** The variables that chose a listener's address, named in its failure. */
export interface ListenerNames {
  port: string;
  host: string;
}

/** Runs `listen`, turning the runtime's refusals into one line that names the variable to change. */
export async function listening<T>(
  names: ListenerNames,
  port: number,
  host: string,
  listen: () => T | Promise<T>,
): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    throw listenFailure(error, names, port, host) ?? error;
  }
}

function listenFailure(
  error: unknown,
  names: ListenerNames,
  port: number,
  host: string,
): StartupError | undefined {
  const code = (error as { code?: unknown })?.code;
  const where = `${host}:${port}`;
  if (code === "EADDRINUSE")
    return new StartupError(
      `gateway: cannot listen on ${where}: the port is in use. Stop what uses it, or set ${names.port} to another port.`,
    );
  if (code === "EACCES")
    return new StartupError(
      `gateway: cannot listen on ${where}: the port needs privileges. Set ${names.port} to a port above 1023.`,
    );
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EINVAL" || code === "EAI_AGAIN")
    return new StartupError(
      `gateway: cannot listen on ${where}: "${host}" is not an address of this machine. Set ${names.host} to one (127.0.0.1, 0.0.0.0, ::1 or ::).`,
    );
  return undefined;
}

/** Opening the database failed: one line naming the variable that points at it. */
export function databaseFailure(target: string, error: unknown): StartupError {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (/^postgres(ql)?:\/\//.test(target)) {
    const url = new URL(target);
    return new StartupError(
      `gateway: cannot use PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname} (DATABASE_URL): ${reason}. Check that it runs, and that this user may connect and create tables.`,
    );
  }
  return new StartupError(
    `gateway: cannot open the database at ${target} (DATABASE_PATH): ${reason}. Set DATABASE_PATH to a file in a folder the gateway's user may write.`,
  );
}
