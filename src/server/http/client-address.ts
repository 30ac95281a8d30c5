/**
 * The client's address, as the socket saw it (never a header a client could write): serve.ts records
 * it for each request in a side channel keyed by the Request object, and handlers read it back. A
 * request handled in process (`app.handle`, tests) has no socket and so no address: undefined.
 */
const addresses = new WeakMap<Request, string>();

export function rememberAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address);
}

export function clientAddress(request: Request): string | undefined {
  return addresses.get(request);
}
