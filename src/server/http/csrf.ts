/**
 * The CSRF rule of /auth: every POST carries `X-Service-Csrf: 1`, else 403 `csrf_required`. A custom
 * header forces a CORS preflight, which only registered origins pass. It is checked where the route is
 * known (a transform hook of the route plugin, before the body is validated or anything runs), never by
 * re-parsing the URL, which a malformed Host header can make disagree with the router.
 */
import { errors } from "./errors.ts";

export function hasCsrfHeader(request: Request): boolean {
  return request.headers.get("x-service-csrf") === "1";
}

/** A transform hook: refuses a POST without the CSRF header. */
export function requireCsrfOnPost({ request }: { request: Request }): void {
  if (request.method === "POST" && !hasCsrfHeader(request)) throw errors.csrf();
}
