/**
 * The cookies the gateway owns: the sealed session cookie (whole, or chunks `<name>_<n>`) and the
 * consent nonce cookie. They hold credentials, so they never leave the gateway for an upstream (the
 * Kratos flow proxy forwards the browser's other cookies), and no upstream may set them through the
 * gateway (a relayed Set-Cookie could sign the browser out or plant a session of its choosing).
 *
 * Names compare without their `__Host-`/`__Secure-` prefix (browsers match prefixes case-insensitively),
 * so both the secure and the plain-http spelling of a gateway cookie count as the gateway's.
 */

const PREFIX = /^__(host|secure)-/i;
const base = (name: string) => name.trim().replace(PREFIX, "");
const escapeRegExp = (text: string) => text.replace(/[^A-Za-z0-9_]/g, "\\$&");

/** A predicate: is this cookie name one of the gateway's own? */
export function gatewayCookieMatcher(sessionCookieName: string, consentCookieName: string) {
  const session = base(sessionCookieName);
  const chunk = new RegExp(`^${escapeRegExp(session)}_\\d+$`);
  const consent = base(consentCookieName);
  return (name: string): boolean => {
    const bare = base(name);
    return bare === session || bare === consent || chunk.test(bare);
  };
}

export type CookieNameMatcher = ReturnType<typeof gatewayCookieMatcher>;

/** A Cookie request header without the cookies `isOwn` matches (and without nameless pairs); null when empty. */
export function withoutCookies(header: string | null, isOwn: CookieNameMatcher): string | null {
  if (!header) return null;
  const kept = header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => {
      const eq = part.indexOf("=");
      return eq > 0 && !isOwn(part.slice(0, eq));
    });
  return kept.length > 0 ? kept.join("; ") : null;
}

/** Whether a Set-Cookie from an upstream may pass to the browser: it names a cookie, not one of ours. */
export function mayRelaySetCookie(setCookie: string, isOwn: CookieNameMatcher): boolean {
  const pair = setCookie.split(";", 1)[0] ?? "";
  const eq = pair.indexOf("=");
  return eq > 0 && pair.slice(0, eq).trim() !== "" && !isOwn(pair.slice(0, eq));
}
