/**
 * The client's address: the socket's (never a header a client could write), unless the socket is a
 * trusted proxy (TRUSTED_PROXIES), whose X-Forwarded-For then names the client (trusted-proxies.ts).
 * serve.ts keeps the listener with the request's facts (request-context.ts), and the address is asked
 * of it only when a handler needs it (the bearer check limit): asking costs about a microsecond, too
 * much for every request. A request handled in process (`app.handle`, tests) has no socket and so no
 * address: undefined.
 */
import { requestServer } from "./request-context.ts";
import type { TrustedProxies } from "./trusted-proxies.ts";

export function clientAddress(request: Request, trusted?: TrustedProxies): string | undefined {
  const peer = requestServer(request)?.requestIP(request)?.address;
  if (peer === undefined || trusted === undefined) return peer;
  return trusted.clientOf(peer, request.headers.get("x-forwarded-for"));
}
