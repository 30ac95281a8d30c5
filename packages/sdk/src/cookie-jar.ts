/**
 * The server-side cookie forwarder behind `createServerClient`: of the incoming request's cookies it
 * keeps only the gateway's session cookie (none of the app's own cookies ever reach the gateway),
 * sends it with each call, takes the gateway's `Set-Cookie`s (a refreshed session, or its clearing)
 * for the following calls, and keeps them for the app to add to its response.
 */

/** The gateway's cookie: `__Host-sg_session` over HTTPS, `sg_session` with COOKIE_SECURE=false. */
const GATEWAY_COOKIES = new Set(["__Host-sg_session", "sg_session"]);

/** An incoming request: a Fetch `Request` (Bun, Deno, Next.js…) or Node's `IncomingMessage`. */
export interface IncomingRequest {
  headers: { get(name: string): string | null } | Record<string, string | string[] | undefined>;
}

function cookieHeaderOf(request: IncomingRequest): string {
  const headers = request.headers;
  if (typeof headers.get === "function")
    return (headers.get as (name: string) => string | null)("cookie") ?? "";
  const value = (headers as Record<string, string | string[] | undefined>).cookie;
  return Array.isArray(value) ? value.join("; ") : (value ?? "");
}

function pair(text: string): [string, string] | undefined {
  const at = text.indexOf("=");
  return at > 0 ? [text.slice(0, at).trim(), text.slice(at + 1).trim()] : undefined;
}

export class CookieJar {
  private readonly values = new Map<string, string>();
  private readonly received = new Map<string, string>();

  constructor(request: IncomingRequest) {
    for (const part of cookieHeaderOf(request).split(";")) {
      const found = pair(part);
      if (found && GATEWAY_COOKIES.has(found[0])) this.values.set(found[0], found[1]);
    }
  }

  /** The Cookie header for a call to the gateway ("" when the request carried no gateway cookie). */
  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** The gateway's answer set or cleared its cookie: later calls use it, and the response passes it on. */
  take(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const found = pair(line.split(";")[0] ?? "");
      if (!found || !GATEWAY_COOKIES.has(found[0])) continue;
      const [name, value] = found;
      const cleared = value === "" || /;\s*max-age=0\s*(;|$)/i.test(line);
      if (cleared) this.values.delete(name);
      else this.values.set(name, value);
      this.received.set(name, line);
    }
  }

  /** The `Set-Cookie` values to add to the app's response (empty when nothing changed). */
  setCookies(): string[] {
    return [...this.received.values()];
  }
}
