/**
 * The one way the gateway calls its identity provider (Hydra, Kratos): a single time bound covers the
 * headers AND the body, because reading the body is part of the call (the abort signal also ends a
 * body read in progress). Whatever goes wrong on the way, before or during the body (refused
 * connection, timeout, a connection reset mid-body), is `IdpUnavailable`: 502 `idp_unavailable`.
 */

/** What an operator needs to find a failed provider call: which endpoint, what happened, how long it took. */
export interface ProviderCall {
  /** The URL called, without its query string. */
  endpoint: string;
  /** The provider's HTTP status, when it answered. */
  status?: number;
  /** The network error (ConnectionRefused, TimeoutError, …), when it did not. */
  error?: string;
  durationMs?: number;
}

export class IdpUnavailable extends Error {
  constructor(
    message: string,
    readonly call?: ProviderCall,
  ) {
    super(message);
  }
}

export function endpointOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/** Milliseconds since `started` (a performance.now() reading), to 0.1 ms. */
export function since(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** An answer the caller cannot use: the endpoint, its status and how long it took, in the message too. */
export function unusableAnswer(
  what: string,
  url: string,
  status: number,
  durationMs: number | undefined,
): IdpUnavailable {
  return new IdpUnavailable(what, { endpoint: endpointOf(url), status, durationMs });
}

/**
 * One provider call, headers and body under the same time bound (the signal aborts the body read
 * too). Any failure, before or during the body, is `IdpUnavailable` naming the endpoint and the error.
 */
export async function fetchText(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; headers: Headers; text: string; durationMs: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, headers: res.headers, text: await res.text(), durationMs: since(started) };
  } catch (error) {
    const durationMs = since(started);
    const name = networkError(error);
    throw new IdpUnavailable(
      `${init.method ?? "GET"} ${endpointOf(url)} failed: ${name} after ${durationMs} ms`,
      {
        endpoint: endpointOf(url),
        error: name,
        durationMs,
      },
    );
  }
}

/** Bun's error code (ConnectionRefused, ECONNRESET, …) or the error's name (TimeoutError, AbortError). */
function networkError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^\w{1,40}$/.test(code)) return code;
  const name = (error as Error)?.name;
  return typeof name === "string" && /^\w{1,40}$/.test(name) ? name : "Error";
}
