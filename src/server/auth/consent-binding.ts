/**
 * Binds a consent request to the browser that loaded it. The challenge travels in a URL (history,
 * logs, Referer), so it must not be enough to decide: the first load of a challenge mints a random
 * nonce, stores SHA-256(challenge) → SHA-256(nonce) for 10 minutes and hands the nonce to the browser
 * in an httpOnly, SameSite=Strict cookie on Path=/auth. Accept and reject need it. A later load
 * presenting the bound nonce reuses it (reloads); any other browser gets nothing.
 *
 * The binding lives in the database (one write transaction), so it survives a restart and holds
 * across processes sharing it; hashes only, so a database reader cannot decide either. Expired rows
 * are purged on every write. The cookie keeps the last few nonces, so consent requests open in two
 * tabs of one browser can both be decided; each challenge still gets a nonce of its own, minted here,
 * so a nonce planted in the browser (cookie tossing) never becomes a new challenge's binding.
 */
import type { Config } from "../config.ts";
import type { Storage } from "../db/sql.ts";
import { randomId, safeEqual, sha256 } from "../lib/crypto.ts";

export const CONSENT_BINDING_SECONDS = 600;
/** Nonces kept in one cookie (consent requests open at once in one browser). */
const MAX_NONCES = 4;
const NONCE = /^[A-Za-z0-9_-]{22}$/;

export function consentCookieName(config: Pick<Config, "cookieSecure">): string {
  return config.cookieSecure ? "__Secure-sg_consent" : "sg_consent";
}

/**
 * Every nonce a request presents, from the raw Cookie header: each cookie of that name (duplicates
 * from another Domain or Path included), each holding up to MAX_NONCES nonces joined by ".".
 */
export function presentedNonces(cookieHeader: string | null, name: string): string[] {
  if (!cookieHeader) return [];
  const nonces: string[] = [];
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    for (const nonce of part
      .slice(eq + 1)
      .trim()
      .split(".")
      .slice(0, MAX_NONCES))
      if (NONCE.test(nonce) && !nonces.includes(nonce)) nonces.push(nonce);
  }
  return nonces;
}

export type ConsentBinding =
  /** `setCookie`: the Set-Cookie header to send when a nonce was minted by this load. */
  { bound: true; setCookie: string | undefined } | { bound: false };

/** On a load of the consent request: binds an unbound challenge to a new nonce, or checks the binding. */
export async function bindConsent(
  storage: Storage,
  config: Pick<Config, "cookieSecure">,
  challenge: string,
  presented: string[],
  now = Date.now(),
): Promise<ConsentBinding> {
  const challengeHash = sha256(challenge);
  const minted = randomId();
  const outcome = await storage.transaction(async (tx) => {
    await tx.run("DELETE FROM consent_bindings WHERE expires_at <= $1", [now]);
    const inserted = await tx.run(
      `INSERT INTO consent_bindings (challenge_hash, nonce_hash, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [challengeHash, sha256(minted), now + CONSENT_BINDING_SECONDS * 1000],
    );
    if (inserted > 0) return "minted" as const;
    const row = await tx.get<{ nonceHash: string }>(
      'SELECT nonce_hash AS "nonceHash" FROM consent_bindings WHERE challenge_hash = $1',
      [challengeHash],
    );
    return row && matches(row.nonceHash, presented) ? ("bound" as const) : ("elsewhere" as const);
  });
  if (outcome === "elsewhere") return { bound: false };
  if (outcome === "bound") return { bound: true, setCookie: undefined };
  const nonces = [minted, ...presented].slice(0, MAX_NONCES);
  return { bound: true, setCookie: consentCookie(config, nonces.join(".")) };
}

/** Whether one of the presented nonces is the live binding of this challenge (accept and reject). */
export async function isConsentBound(
  storage: Storage,
  challenge: string,
  presented: string[],
  now = Date.now(),
): Promise<boolean> {
  if (presented.length === 0) return false;
  const row = await storage.get<{ nonceHash: string }>(
    'SELECT nonce_hash AS "nonceHash" FROM consent_bindings WHERE challenge_hash = $1 AND expires_at > $2',
    [sha256(challenge), now],
  );
  return row !== undefined && matches(row.nonceHash, presented);
}

function matches(nonceHash: string, presented: string[]): boolean {
  let found = false;
  for (const nonce of presented) if (safeEqual(sha256(nonce), nonceHash)) found = true;
  return found;
}

function consentCookie(config: Pick<Config, "cookieSecure">, value: string): string {
  const secure = config.cookieSecure ? " Secure;" : "";
  return `${consentCookieName(config)}=${value}; Max-Age=${CONSENT_BINDING_SECONDS}; Path=/auth; HttpOnly;${secure} SameSite=Strict`;
}
