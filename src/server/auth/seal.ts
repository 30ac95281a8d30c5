/**
 * The sealed session cookie. Its value is a compact JWE (`dir` + `A256GCM`, jose) of the
 * session id, the access and refresh tokens and the access expiry, so tokens live only in an httpOnly
 * cookie the page cannot read, and a tampered or foreign value simply fails to decrypt (= no cookie).
 *
 * Browsers cap one cookie at ~4 KB including attributes, so a value over 3,800 bytes is split into
 * `<name>_0`, `<name>_1`, … chunks (oauth2-proxy and Auth.js do the same); stale chunks are cleared.
 *
 * Sealing uses the keyring's current key and names it in the JWE `kid` header; unsealing accepts every
 * key of the ring, so rotating the key signs nobody out (keyring.ts).
 */
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from "jose";
import { allKeys, type Keyring } from "./keyring.ts";

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
  private readonly byId = new Map<string, Uint8Array>();

  constructor(private readonly ring: Keyring) {
    for (const { id, key } of allKeys(ring)) {
      if (key.byteLength !== 32) throw new Error("a sealing key must be 32 bytes");
      this.byId.set(id, key);
    }
  }

  /** The id of the key that seals now. */
  get currentKeyId(): string {
    return this.ring.current.id;
  }

  seal(cookie: SessionCookie): Promise<string> {
    return this.sealText(JSON.stringify(cookie));
  }

  /** Seals any text with the current key (the refresh token kept on the session row for operator revokes). */
  sealText(text: string): Promise<string> {
    return new CompactEncrypt(this.encoder.encode(text))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: this.ring.current.id })
      .encrypt(this.ring.current.key);
  }

  async unsealText(value: string): Promise<string | null> {
    const plaintext = await this.open(value);
    return plaintext === null ? null : this.decoder.decode(plaintext);
  }

  /** The cookie's contents, or null for anything that does not decrypt with a key of the ring. */
  async unseal(value: string): Promise<SessionCookie | null> {
    const text = await this.unsealText(value);
    if (text === null) return null;
    try {
      const parsed = JSON.parse(text);
      if (typeof parsed?.sid !== "string" || typeof parsed.at !== "string" || typeof parsed.uid !== "string")
        return null;
      return parsed as SessionCookie;
    } catch {
      return null;
    }
  }

  /** Decrypts with the key its `kid` names; values sealed before key ids existed try every key. */
  private async open(value: string): Promise<Uint8Array | null> {
    const kid = keyIdOf(value);
    const candidates = kid === undefined ? [...this.byId.values()] : [this.byId.get(kid)];
    for (const key of candidates) {
      if (!key) continue;
      try {
        const { plaintext } = await compactDecrypt(value, key, {
          keyManagementAlgorithms: ["dir"],
          contentEncryptionAlgorithms: ["A256GCM"],
        });
        return plaintext;
      } catch {}
    }
    return null;
  }
}

/** The `kid` a sealed value names, or undefined (no header, no kid, or not a JWE at all). */
export function keyIdOf(value: string): string | undefined {
  try {
    const kid = decodeProtectedHeader(value).kid;
    return typeof kid === "string" ? kid : undefined;
  } catch {
    return undefined;
  }
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
