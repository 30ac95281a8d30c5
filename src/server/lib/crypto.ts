/** Small Web-Crypto-flavoured helpers shared by sessions, the token cache and the admin API. */
import { timingSafeEqual } from "node:crypto";

/** SHA-256 of a string, base64url. Used to key caches and store refresh-token fingerprints. */
export function sha256(text: string): string {
  return Bun.CryptoHasher.hash("sha256", text, "base64url");
}

/** 128 random bits, base64url (22 characters). */
export function randomId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
}

/** Constant-time string comparison (hashes first so lengths never leak). */
export function safeEqual(a: string, b: string): boolean {
  const ha = new Bun.CryptoHasher("sha256").update(a).digest();
  const hb = new Bun.CryptoHasher("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}
