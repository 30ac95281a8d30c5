/**
 * Writing the session cookie through Elysia's built-in cookie jar (`@elysiajs/cookie` 0.8 fails at run
 * time on Elysia 1.4, whose built-in support replaced it). Attributes: HttpOnly, Path=/, SameSite per
 * config, Secure unless COOKIE_SECURE=false (then the name loses its `__Host-` prefix), Max-Age = what
 * is left of the session's absolute lifetime. Clearing repeats the same attributes: a browser ignores a
 * `__Host-` Set-Cookie without Secure, so a bare "remove" would never clear it.
 */
import type { Cookie } from "elysia";
import type { Config } from "../config.ts";
import { chunkCookie, presentCookieNames } from "./seal.ts";

type Jar = Record<string, Cookie<unknown>>;

function attributes(config: Config, maxAge: number) {
  return {
    httpOnly: true,
    secure: config.cookieSecure,
    sameSite: config.cookieSameSite,
    path: "/",
    maxAge,
  } as const;
}

export function writeSessionCookie(
  jar: Jar,
  config: Config,
  name: string,
  sealed: string,
  maxAge: number,
  requestCookies: string | null,
): void {
  const chunks = chunkCookie(name, sealed);
  const written = new Set(chunks.map(([chunkName]) => chunkName));
  for (const [chunkName, value] of chunks) jar[chunkName]!.set({ value, ...attributes(config, maxAge) });
  for (const stale of presentCookieNames(requestCookies, name)) {
    if (!written.has(stale)) jar[stale]!.set({ value: "", ...attributes(config, 0) });
  }
}

export function clearSessionCookies(
  jar: Jar,
  config: Config,
  name: string,
  requestCookies: string | null,
): void {
  const names = new Set([name, ...presentCookieNames(requestCookies, name)]);
  for (const cookieName of names) jar[cookieName]!.set({ value: "", ...attributes(config, 0) });
}
