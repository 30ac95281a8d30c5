/**
 * The one way the gateway calls its identity provider (Hydra, Kratos): a single time bound covers the
 * headers AND the body, because reading the body is part of the call (the abort signal also ends a
 * body read in progress). Whatever goes wrong on the way, before or during the body (refused
 * connection, timeout, a connection reset mid-body), is `IdpUnavailable`: 502 `idp_unavailable`.
 */

export class IdpUnavailable extends Error {}

/**
 * One provider call, headers and body under the same time bound (the signal aborts the body read
 * too). Any failure, before or during the body, is `IdpUnavailable`.
 */
export async function fetchText(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; headers: Headers; text: string }> {
  try {
    const res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (error) {
    throw new IdpUnavailable(`provider call failed: ${(error as Error)?.name ?? "Error"}`);
  }
}
