/**
 * Why a browser call got no answer. A gateway refuses a page whose origin is not registered for the
 * client without a CORS grant, so the browser hides the refusal and the call fails exactly as if the
 * gateway could not be reached. After such a failure the SDK asks `GET /auth/origin`, which any origin
 * may read and which sends no credential: when the gateway answers that this page's origin is not
 * accepted, the call is reported as `origin_not_allowed` naming the origin and where to add it; when the
 * probe gets no answer either, the gateway really is unreachable.
 */
import type { FetchLike } from "./types.ts";
import { web } from "./web.ts";

/** The page's origin when the gateway says it does not accept it for `clientId`; else undefined. */
export async function refusedOrigin(
  fetchImpl: FetchLike,
  base: string,
  clientId: string | undefined,
  timeoutMs: number,
): Promise<string | undefined> {
  const origin = typeof web.location === "object" ? web.location?.origin : undefined;
  if (!origin || origin === "null" || base.startsWith(`${origin}/`) || base === origin) return undefined;
  const query = clientId ? `?${new web.URLSearchParams({ client_id: clientId })}` : "";
  try {
    const response = await fetchImpl(`${base}/auth/origin${query}`, {
      method: "GET",
      headers: { accept: "application/json" },
      credentials: "omit",
      signal: web.AbortSignal.timeout(timeoutMs),
    });
    const report = JSON.parse(await response.text()) as { allowed?: unknown };
    return response.ok && report.allowed === false ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** What to tell the developer: the origin, and where it must be registered. */
export function originRefusalMessage(base: string, origin: string, clientId: string | undefined): string {
  const client = clientId ? `client "${clientId}"` : "your app's client";
  return (
    `The gateway at ${base} does not accept calls from this page's origin, ${origin}: ` +
    `add "${origin}" to the "origins" of ${client} in the apps file (with gateway dev: gateway dev --app ${origin}).`
  );
}
