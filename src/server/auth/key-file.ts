/**
 * Where the sealing secrets live: never in the database file, so a copy of the database (a backup, a
 * support bundle, a shared host) unseals nothing.
 *
 * - `SESSION_SECRET` (and `SESSION_SECRET_PREVIOUS`, comma-separated, for a rotation) when set;
 * - otherwise a key file, `SESSION_KEY_FILE` (default `session.key` beside the database), created on
 *   first start with mode 0600. One secret per line, the first seals, the others only unseal; `#`
 *   starts a comment. A key file that group or others can read stops start-up (like ssh's key check);
 * - an in-memory database with neither gets a random key for the life of the process.
 *
 * Rotation (`gateway keys rotate`) writes a new first line and keeps the old ones; the file is always
 * replaced atomically (written beside it at 0600, then renamed).
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { ConfigError } from "../config.ts";
import { type Keyring, keyringFrom, MIN_SECRET_LENGTH, newSecret } from "./keyring.ts";

export interface KeySourceConfig {
  sessionSecret: string | undefined;
  sessionSecretPrevious: string[];
  sessionKeyFile: string | undefined;
}

const HEADER =
  "# Session sealing keys of the gateway. Keep this file secret and out of database backups.\n" +
  "# The first key seals; the others only unseal (previous keys kept during a rotation).\n";

/** Loads the ring the configuration names, creating the key file on first start. */
export async function loadKeyring(config: KeySourceConfig): Promise<Keyring & { created: boolean }> {
  if (config.sessionSecret !== undefined) {
    const ring = await keyringFrom([config.sessionSecret, ...config.sessionSecretPrevious], "SESSION_SECRET");
    return { ...ring, created: false };
  }
  if (config.sessionKeyFile === undefined) {
    return { ...(await keyringFrom([newSecret()], "a random key for this process")), created: false };
  }
  const path = config.sessionKeyFile;
  const created = !existsSync(path);
  if (created) writeKeyFile(path, [newSecret()], true);
  const secrets = readKeyFile(path);
  return { ...(await keyringFrom(secrets, `key file ${path}`)), created };
}

/** The secrets of a key file, current first. Refuses a file others can read, or one with no key. */
export function readKeyFile(path: string): string[] {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    throw new ConfigError("SESSION_KEY_FILE", `cannot read ${path} (${(error as Error).message})`);
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      "SESSION_KEY_FILE",
      `${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}): chmod 600 ${path}`,
    );
  }
  const secrets = readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (secrets.length === 0) throw new ConfigError("SESSION_KEY_FILE", `${path} holds no key`);
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH)
      throw new ConfigError(
        "SESSION_KEY_FILE",
        `${path} holds a key shorter than ${MIN_SECRET_LENGTH} characters`,
      );
  }
  return secrets;
}

/** Writes the secrets (current first) to `path` at mode 0600: in place when new, else by an atomic rename. */
export function writeKeyFile(path: string, secrets: string[], exclusive = false): void {
  const text = `${HEADER}${secrets.join("\n")}\n`;
  const target = exclusive ? path : `${path}.${process.pid}.tmp`;
  const fd = openSync(target, "wx", 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  chmodSync(target, 0o600);
  if (!exclusive) renameSync(target, path);
}

/** Adds a new current key, keeping the old ones to unseal. Returns the new ring's secrets. */
export function rotateKeyFile(path: string): string[] {
  const secrets = [newSecret(), ...readKeyFile(path)];
  writeKeyFile(path, secrets);
  return secrets;
}

/** Keeps the current key and the previous keys `keep` says are still needed. Returns how many went. */
export function pruneKeyFile(path: string, keep: (secret: string, index: number) => boolean): number {
  const secrets = readKeyFile(path);
  const kept = secrets.filter((secret, i) => i === 0 || keep(secret, i));
  if (kept.length !== secrets.length) writeKeyFile(path, kept);
  return secrets.length - kept.length;
}
