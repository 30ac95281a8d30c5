/**
 * Where a request's path begins in its URL: routes are chosen by the path alone, whatever the Host.
 * The client writes the Host header, and Bun builds the URL from it (`http://` + Host + path), so a
 * router that skips a fixed number of characters to find the path is steered by the client: Elysia's
 * default skips eleven (`http://a.bc`), and with `Host: ab` it read `/x/v1/resources/<id>/join` as a
 * join. So:
 * - the framework, the one router, is built with FRAMEWORK_HANDLER (it looks for the path right after
 *   `http://`); nothing else reads the path (the access log takes the route's label from the router),
 * - a request Bun gives only its path (an empty Host, one that is no host name, none over HTTP/1.0) is
 *   given a host by the listener (`withAbsoluteUrl`) before anything routes it.
 */
import type { ServerFetch } from "./access-log.ts";

/** Elysia's handler options: the path is found after `http://`, never after a guessed host length. */
export const FRAMEWORK_HANDLER = { standardHostname: false } as const;

const SLASH = 47;

/**
 * A listener's fetch that hands on a request Bun gave only its path with an absolute URL
 * (`http://localhost` + path); any other request as it is. The socket's address is still asked of the
 * listener with the request it received (client-address.ts).
 */
export function withAbsoluteUrl(fetch: ServerFetch): ServerFetch {
  return (request, server) => {
    if (request.url.charCodeAt(0) !== SLASH) return fetch(request, server);
    const absolute = new Request(`http://localhost${request.url}`, request);
    return fetch(absolute, server && { requestIP: () => server.requestIP(request) });
  };
}
