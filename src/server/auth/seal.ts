/**
 * The sealed session cookie (CONTRACT §2). Its value is a compact JWE (`dir` + `A256GCM`, jose) of the
 * session id, the access and refresh tokens and the access expiry, so tokens live only in an httpOnly
 * cookie the page cannot read, and a tampered or foreign value simply fails to decrypt (= no cookie).
 *
 * Browsers cap one cookie at ~4 KB including attributes, so a value over 3,800 bytes is split into
 * `<name>_0`, `<name>_1`, … chunks (oauth2-proxy and Auth.js do the same); stale chunks are cleared.
 */
import { CompactEncrypt, compactDecrypt } from "jose";

export interface SessionCookie {
  /** Session row id. */
  sid: string;
  uid: string;
  cid: string;
  at: string;
  rt: string | undefined;
  /** When the access token stops being usable, ms since the epoch. */
  aexp: number;
}

export const CHUNK_SIZE = 3800;

export class CookieSealer {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(private readonly key: Uint8Array) {
    if (key.byteLength !== 32) throw new Error("the cookie key must be 32 bytes");
  }

  seal(cookie: SessionCookie): Promise<string> {
    return new CompactEncrypt(this.encoder.encode(JSON.stringify(cookie)))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .encrypt(this.key);
  }

  /** Seals any text with the same key (the refresh token kept on the session row for operator revokes). */
  sealText(text: string): Promise<string> {
    return new CompactEncrypt(this.encoder.encode(text))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .encrypt(this.key);
  }

  async unsealText(value: string): Promise<string | null> {
    try {
      const { plaintext } = await compactDecrypt(value, this.key, {
        keyManagementAlgorithms: ["dir"],
        contentEncryptionAlgorithms: ["A256GCM"],
      });
      return this.decoder.decode(plaintext);
    } catch {
      return null;
    }
  }

  /** The cookie's contents, or null for anything that does not decrypt with our key. */
  async unseal(value: string): Promise<SessionCookie | null> {
    try {
      const { plaintext } = await compactDecrypt(value, this.key, {
        keyManagementAlgorithms: ["dir"],
        contentEncryptionAlgorithms: ["A256GCM"],
      });
      const parsed = JSON.parse(this.decoder.decode(plaintext));
      if (typeof parsed?.sid !== "string" || typeof parsed.at !== "string" || typeof parsed.uid !== "string")
        return null;
      return parsed as SessionCookie;
    } catch {
      return null;
    }
  }
}

/** Derives the 32-byte sealing key from a secret (HKDF-SHA-256 with a fixed, versioned info string). */
export async function deriveCookieKey(secret: string): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: new Uint8Array(0),
      info: new TextEncoder().encode("sg-session-cookie-v1"),
    },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/** Splits a sealed value into cookie (name, value) pairs: one cookie, or indexed chunks. */
export function chunkCookie(name: string, value: string): Array<[string, string]> {
  if (value.length <= CHUNK_SIZE) return [[name, value]];
  const chunks: Array<[string, string]> = [];
  for (let i = 0, n = 0; i < value.length; i += CHUNK_SIZE, n++)
    chunks.push([`${name}_${n}`, value.slice(i, i + CHUNK_SIZE)]);
  return chunks;
}

/**
 * Reads the sealed value(s) back from a raw Cookie header: each whole cookie of that name, then the
 * chunks joined in order. Parsing the raw header (not a name→value map) keeps duplicates of one name
 * (e.g. a stale cookie from another Domain), so the caller can try each; the first that unseals wins.
 */
export function readSealedValues(cookieHeader: string | null, name: string): string[] {
  if (!cookieHeader) return [];
  const values: string[] = [];
  let chunks: string[] | undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    if (!key.startsWith(name)) continue;
    const value = part.slice(eq + 1).trim();
    if (key === name) {
      if (value) values.push(value);
    } else if (key.charCodeAt(name.length) === 95 /* _ */) {
      const index = Number(key.slice(name.length + 1));
      if (Number.isInteger(index) && index >= 0 && index < 16) {
        chunks ??= [];
        chunks[index] = value;
      }
    }
  }
  if (chunks && chunks.length > 0 && Array.from(chunks).every(Boolean)) values.push(chunks.join(""));
  return values;
}

/** Names of every session cookie (whole or chunk) present in a Cookie header. */
export function presentCookieNames(cookieHeader: string | null, name: string): string[] {
  if (!cookieHeader) return [];
  const names = new Set<string>();
  for (const part of cookieHeader.split(";")) {
    const key = part.slice(0, part.indexOf("=")).trim();
    if (key === name || new RegExp(`^${name.replace(/[^A-Za-z0-9_]/g, "\\$&")}_\\d+$`).test(key))
      names.add(key);
  }
  return [...names];
}
