/**
 * The client's address, as the socket saw it (never a header a client could write). serve.ts keeps the
 * listener with the request's facts (request-context.ts), and the address is asked of it only when a
 * handler needs it (the bearer check limit): asking costs about a microsecond, too much for every
 * request. A request handled in process (`app.handle`, tests) has no socket and so no address: undefined.
 */
import { requestServer } from "./request-context.ts";

export function clientAddress(request: Request): string | undefined {
  return requestServer(request)?.requestIP(request)?.address;
}
