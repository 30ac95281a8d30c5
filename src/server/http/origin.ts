/**
 * The per-app origin rule. A credential (the session cookie, or a bearer token) belongs to one app: the
 * app of its OAuth client. A browser request that carries it from another origin is refused with 403
 * `origin_not_allowed` and no CORS grant, before anything changes; so a page on app B's origin, in a
 * browser signed in through app A, can neither read A's data nor act, refresh, sign in over or sign out
 * A's session. Requests without an Origin header (servers, top-level navigations, same-origin GETs) and
 * same-origin requests (the Origin's host is the Host the browser addressed) are not cross-origin.
 *
 * A refused page cannot read the refusal (no CORS grant), so to a page it looks like a gateway that
 * could not be reached. `GET /auth/origin` lets it tell the two apart: any origin may read that answer
 * (no credential is sent or used), and it says only whether the asking page's own origin is registered
 * for a client, which that page learns anyway by being refused.
 */
import type { AppRegistry } from "../apps/registry.ts";
import { Refusal } from "../domain/refusal.ts";

/** Throws 403 origin_not_allowed when the request comes from an origin not registered for `appId`. */
export function checkOrigin(apps: AppRegistry, request: Request, appId: string): void {
  const origin = request.headers.get("origin");
  if (origin === null || isSameOrigin(origin, request)) return;
  if (!apps.isOriginOfApp(origin, appId)) throw new Refusal("origin_not_allowed");
}

function isSameOrigin(origin: string, request: Request): boolean {
  const host = request.headers.get("host");
  if (!host || !URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
}

/** What `GET /auth/origin` answers: the asking page's origin and whether `clientId`'s app accepts it. */
export function originReport(
  apps: AppRegistry,
  request: Request,
  clientId: string | undefined,
): { origin: string | null; allowed: boolean } {
  const origin = request.headers.get("origin");
  if (origin === null || isSameOrigin(origin, request)) return { origin, allowed: true };
  if (clientId === undefined) return { origin, allowed: apps.isAllowedOrigin(origin) };
  const lookup = apps.lookupClient(clientId);
  return { origin, allowed: lookup !== undefined && apps.isOriginOfApp(origin, lookup.app.id) };
}
