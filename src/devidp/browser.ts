// A tiny scriptable "browser" for tests and `gateway token` over real HTTP: a cookie jar plus
// fetch with manual redirect handling, so a test can walk an OAuth/OIDC flow hop by
// hop (authorize → login → consent → callback), inspect every Location, and stop
// before a URL it wants to handle itself (e.g. the app's redirect_uri).
//
// Cookies are stored per origin host:port (stricter than a real browser, which shares
// cookies across ports of one host). `Path`, `Max-Age`, `Expires` and deletion are
// honoured; `Secure` is ignored for http://127.0.0.1 / localhost; `Domain` and
// `SameSite` are recorded but not enforced.
//
//   const browser = new Browser();
//   const { url, chain } = await browser.follow(authorizeUrl, {
//     until: (u) => u.pathname === "/callback",
//   });
//   url.searchParams.get("code");

export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expiresAt: number; // epoch ms; Infinity for session cookies
  httpOnly: boolean;
  secure: boolean;
  sameSite?: string;
  domain?: string;
}

export interface FollowOptions {
  /** Stop (without requesting it) at the first redirect target for which this returns true. */
  until?: (url: URL) => boolean;
  /** Options of the first request (method, body, headers); later hops are GETs except after 307/308. */
  init?: RequestInit;
  /** Safety limit; default 20. */
  maxRedirects?: number;
}

export interface FollowResult {
  /** The last URL: either the one `until` matched (not requested) or the one that answered non-3xx. */
  url: URL;
  /** The last response actually received (a 3xx when `until` stopped the walk). */
  response: Response;
  /** Every URL visited or reached, starting with the first, ending with `url`. */
  chain: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function originKey(url: URL): string {
  return url.host; // host:port (port omitted when default)
}

function defaultPath(url: URL): string {
  const path = url.pathname;
  if (!path.startsWith("/") || path.lastIndexOf("/") === 0) return "/";
  return path.slice(0, path.lastIndexOf("/"));
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/";
}

export function parseSetCookie(header: string, url: URL, now = Date.now()): StoredCookie | undefined {
  const [pair = "", ...attributes] = header.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return undefined;
  const cookie: StoredCookie = {
    name: pair.slice(0, eq).trim(),
    value: pair.slice(eq + 1).trim(),
    path: defaultPath(url),
    expiresAt: Infinity,
    httpOnly: false,
    secure: false,
  };
  let maxAgeSeen = false;
  for (const attribute of attributes) {
    const i = attribute.indexOf("=");
    const key = (i === -1 ? attribute : attribute.slice(0, i)).trim().toLowerCase();
    const value = i === -1 ? "" : attribute.slice(i + 1).trim();
    if (key === "path" && value.startsWith("/")) cookie.path = value;
    else if (key === "max-age" && /^-?\d+$/.test(value)) {
      maxAgeSeen = true;
      cookie.expiresAt = Number(value) <= 0 ? 0 : now + Number(value) * 1000;
    } else if (key === "expires" && !maxAgeSeen) {
      const at = Date.parse(value);
      if (!Number.isNaN(at)) cookie.expiresAt = at;
    } else if (key === "httponly") cookie.httpOnly = true;
    else if (key === "secure") cookie.secure = true;
    else if (key === "samesite") cookie.sameSite = value;
    else if (key === "domain") cookie.domain = value;
  }
  return cookie;
}

export class Browser {
  private readonly jar = new Map<string, StoredCookie[]>();

  /** Cookies that would be sent to `url` (expired ones are dropped). */
  cookies(url: string | URL): StoredCookie[] {
    const target = new URL(url);
    const now = Date.now();
    const list = (this.jar.get(originKey(target)) ?? []).filter((c) => c.expiresAt > now);
    this.jar.set(originKey(target), list);
    return list
      .filter((c) => pathMatches(target.pathname, c.path))
      .sort((a, b) => b.path.length - a.path.length);
  }

  /** The `Cookie` header value this browser would send to `url` ("" when none). */
  cookieHeader(url: string | URL): string {
    return this.cookies(url)
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }

  /** Value of one cookie visible at `url`. */
  cookie(url: string | URL, name: string): string | undefined {
    return this.cookies(url).find((c) => c.name === name)?.value;
  }

  /** Stores a `Set-Cookie` header value as if `url` had answered it. */
  setCookie(url: string | URL, header: string): void {
    const target = new URL(url);
    const cookie = parseSetCookie(header, target);
    if (!cookie) return;
    const key = originKey(target);
    const list = (this.jar.get(key) ?? []).filter((c) => !(c.name === cookie.name && c.path === cookie.path));
    if (cookie.expiresAt > Date.now()) list.push(cookie);
    this.jar.set(key, list);
  }

  clearCookies(): void {
    this.jar.clear();
  }

  /** One request, no redirect following; sends and stores cookies. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const jarCookies = this.cookieHeader(target);
    if (jarCookies) {
      const explicit = headers.get("cookie");
      headers.set("cookie", explicit ? `${explicit}; ${jarCookies}` : jarCookies);
    }
    const response = await fetch(target, { ...init, headers, redirect: "manual" });
    for (const header of response.headers.getSetCookie()) this.setCookie(target, header);
    return response;
  }

  /**
   * Requests `url` and follows redirects itself, hop by hop, until a non-redirect answer,
   * or until `until(nextUrl)` is true (that URL is then NOT requested).
   */
  async follow(url: string | URL, options: FollowOptions = {}): Promise<FollowResult> {
    let current = new URL(url);
    let init: RequestInit = options.init ?? {};
    const chain = [current.toString()];
    const max = options.maxRedirects ?? 20;
    for (let hop = 0; ; hop++) {
      const response = await this.fetch(current, init);
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || !location) return { url: current, response, chain };
      const next = new URL(location, current);
      chain.push(next.toString());
      if (options.until?.(next)) return { url: next, response, chain };
      if (hop + 1 >= max) throw new Error(`Browser.follow: more than ${max} redirects: ${chain.join(" → ")}`);
      await response.body?.cancel();
      if (response.status !== 307 && response.status !== 308)
        init = { headers: stripBodyHeaders(init.headers) };
      current = next;
    }
  }
}

function stripBodyHeaders(headers: HeadersInit | undefined): Headers {
  const copy = new Headers(headers);
  copy.delete("content-type");
  copy.delete("content-length");
  return copy;
}
