/**
 * The per-app origin rule. A credential (the session cookie, or a bearer token) belongs to one app: the
 * app of its OAuth client. A browser request that carries it from another origin is refused with 403
 * `origin_not_allowed` and no CORS grant, before anything changes; so a page on app B's origin, in a
 * browser signed in through app A, can neither read A's data nor act, refresh, sign in over or sign out
 * A's session. Requests without an Origin header (servers, top-level navigations, same-origin GETs) and
 * same-origin requests (the Origin's host is the Host the browser addressed) are not cross-origin.
 */
import type { AppRegistry } from "../apps/registry.ts";
import { errors } from "./errors.ts";

/** Throws 403 origin_not_allowed when the request comes from an origin not registered for `appId`. */
export function checkOrigin(apps: AppRegistry, request: Request, appId: string): void {
  const origin = request.headers.get("origin");
  if (origin === null || isSameOrigin(origin, request)) return;
  if (!apps.isOriginOfApp(origin, appId)) throw errors.originNotAllowed();
}

function isSameOrigin(origin: string, request: Request): boolean {
  const host = request.headers.get("host");
  if (!host || !URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
}
