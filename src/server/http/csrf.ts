/**
 * The CSRF rule: a state-changing call that a cookie could authenticate carries `X-Service-Csrf: 1`,
 * else 403 `csrf_required`. A custom header forces a CORS preflight, which only registered origins pass.
 * Two places apply it: every POST of /auth (a transform hook of those route plugins, before the body is
 * validated or anything runs) and, on /v1, a cookie-authenticated call whose method is not GET, HEAD or
 * OPTIONS (principal.ts; a bearer token needs no header). Neither re-parses the URL, which a malformed
 * Host header can make disagree with the router.
 */
import { Refusal } from "../domain/refusal.ts";

export function hasCsrfHeader(request: Request): boolean {
  return request.headers.get("x-service-csrf") === "1";
}

/** A transform hook: refuses a POST without the CSRF header. */
export function requireCsrfOnPost({ request }: { request: Request }): void {
  if (request.method === "POST" && !hasCsrfHeader(request)) throw new Refusal("csrf_required");
}
