/**
 * The sealing keys. One key seals (the current one); every key of the ring unseals, so a rotation
 * never signs anyone out: cookies and refresh tokens sealed with a previous key keep working until
 * they are re-sealed (a refresh re-seals the cookie; start-up re-seals the refresh tokens kept on
 * session rows) and the previous key can be dropped.
 *
 * A key is derived from a secret (HKDF-SHA-256, fixed info strings), never stored in the database.
 * Each key has a short public id, carried as the JWE `kid` header, so unsealing picks the right key
 * at once and operators can count the sessions still sealed with each key.
 *
 * Each sealing key also gives a pseudonym key (an HMAC of it: one-way, it seals and unseals nothing)
 * under which deleted users are recorded. A pruned sealing key leaves its pseudonym key behind in the
 * ring (`retired`): the accounts deleted while it sealed must stay deleted after it is gone.
 */

export interface SealingKey {
  /** Public identifier: 8 base64url characters derived from the secret (reveals nothing of it). */
  id: string;
  /** The 32-byte A256GCM content key. */
  key: Uint8Array;
}

export interface Keyring {
  current: SealingKey;
  /** Older keys, newest first: they unseal, never seal. */
  previous: SealingKey[];
  /** Pseudonym keys of pruned sealing keys: they only recognise deleted accounts. */
  retired: Uint8Array[];
  /** Where the keys come from, for logs and `gateway keys status` (never the keys themselves). */
  source: string;
}

export const MIN_SECRET_LENGTH = 32;

async function hkdf(secret: string, info: string, bits: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, [
    "deriveBits",
  ]);
  const derived = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
    material,
    bits,
  );
  return new Uint8Array(derived);
}

/** The 32-byte sealing key of a secret (the same derivation sessions have always used). */
export function deriveCookieKey(secret: string): Promise<Uint8Array> {
  return hkdf(secret, "sg-session-cookie-v1", 256);
}

export async function deriveKey(secret: string): Promise<SealingKey> {
  const [key, id] = await Promise.all([deriveCookieKey(secret), hkdf(secret, "sg-session-key-id-v1", 48)]);
  return { id: Buffer.from(id).toString("base64url"), key };
}

/**
 * A ring from secrets, current first (duplicates collapse), and the retained pseudonym keys of pruned
 * ones (base64url, as `encodePseudonymKey` writes them).
 */
export async function keyringFrom(
  secrets: string[],
  source: string,
  retired: readonly string[] = [],
): Promise<Keyring> {
  if (secrets.length === 0) throw new Error("a keyring needs at least one secret");
  const keys = await Promise.all([...new Set(secrets)].map(deriveKey));
  const decoded = [...new Set(retired)].map((text) => new Uint8Array(Buffer.from(text, "base64url")));
  return { current: keys[0]!, previous: keys.slice(1), retired: decoded, source };
}

/** A fresh random secret: 256 bits, base64url (43 characters). */
export function newSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export function allKeys(ring: Keyring): SealingKey[] {
  return [ring.current, ...ring.previous];
}

const PSEUDONYM_INFO = new TextEncoder().encode("sg-user-pseudonym-v1");

/** The pseudonym key of a sealing key: HMAC-SHA-256(key, info), one-way (it cannot seal). */
export function pseudonymKeyOf(key: Uint8Array): Uint8Array {
  return new Uint8Array(new Bun.CryptoHasher("sha256", key).update(PSEUDONYM_INFO).digest());
}

/** A pseudonym key as the key file and SESSION_PSEUDONYM_KEYS hold it: 43 base64url characters. */
export function encodePseudonymKey(key: Uint8Array): string {
  return Buffer.from(key).toString("base64url");
}

export function isPseudonymKey(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}

/** Every pseudonym key of the ring, the current sealing key's first, then the retired ones. */
export function pseudonymKeys(ring: Keyring): Uint8Array[] {
  return [...allKeys(ring).map((k) => pseudonymKeyOf(k.key)), ...ring.retired];
}
