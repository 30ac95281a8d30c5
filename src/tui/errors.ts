/** Admin API failures: the HTTP status (0 when the gateway was not reached) and the contract's error code. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "AdminApiError";
  }
}

/** A short reason for the header: the contract code, or what went wrong on the wire. */
export function describeError(error: unknown): string {
  if (error instanceof AdminApiError) return error.code;
  if (error instanceof Error) return error.message;
  return String(error);
}

export async function toApiError(response: Response): Promise<AdminApiError> {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { code?: unknown; error?: unknown };
    if (typeof body.code === "string") code = body.code;
    if (typeof body.error === "string") message = body.error;
  } catch {
    // Not JSON (a proxy's page, say): the status is all we have.
  }
  return new AdminApiError(response.status, code, message);
}

/**
 * A refusal no retry can fix: the token is wrong (401) or the admin API is disabled (503
 * `admin_disabled`). The TUI stops and says so instead of retrying behind "loading…".
 */
export function isRefusal(error: unknown): error is AdminApiError {
  return (
    error instanceof AdminApiError &&
    (error.status === 401 || error.status === 403 || error.code === "admin_disabled")
  );
}

/** One line for the operator about a refusal, naming where the token came from. */
export function refusalMessage(url: string, code: string, tokenFrom: string): string {
  return code === "admin_disabled"
    ? `the admin API at ${url} is disabled (admin_disabled): start the gateway with ADMIN_TOKEN set`
    : `the admin API at ${url} refused the token (${code}): check ${tokenFrom}`;
}
