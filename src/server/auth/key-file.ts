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
 *
 * Prune (`gateway keys prune`) drops a previous secret but keeps its pseudonym key, on a line
 * `pseudonym:<base64url>` (SESSION_PSEUDONYM_KEYS with SESSION_SECRET): deleted users are recorded under
 * it, and forgetting it would let them sign in again. It is one-way from the secret: it unseals nothing.
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
import {
  deriveKey,
  encodePseudonymKey,
  isPseudonymKey,
  type Keyring,
  keyringFrom,
  MIN_SECRET_LENGTH,
  newSecret,
  pseudonymKeyOf,
  type SealingKey,
} from "./keyring.ts";

export interface KeySourceConfig {
  sessionSecret: string | undefined;
  sessionSecretPrevious: string[];
  sessionPseudonymKeys: string[];
  sessionKeyFile: string | undefined;
}

/** What a key source holds: the sealing secrets (current first) and the pseudonym keys of pruned ones. */
export interface KeyFile {
  secrets: string[];
  pseudonymKeys: string[];
}

const PSEUDONYM_LINE = "pseudonym:";

const HEADER =
  "# Session sealing keys of the gateway. Keep this file secret and out of database backups.\n" +
  "# The first key seals; the others only unseal (previous keys kept during a rotation).\n" +
  "# pseudonym: lines are what pruned keys leave: they recognise deleted accounts, and unseal nothing.\n";

/** Loads the ring the configuration names, creating the key file on first start. */
export async function loadKeyring(config: KeySourceConfig): Promise<Keyring & { created: boolean }> {
  if (config.sessionSecret !== undefined) {
    const { secrets, pseudonymKeys } = environmentKeys(config);
    return { ...(await keyringFrom(secrets, "SESSION_SECRET", pseudonymKeys)), created: false };
  }
  if (config.sessionKeyFile === undefined) {
    return { ...(await keyringFrom([newSecret()], "a random key for this process")), created: false };
  }
  const path = config.sessionKeyFile;
  const created = !existsSync(path);
  if (created) writeKeyFile(path, { secrets: [newSecret()], pseudonymKeys: [] }, true);
  const { secrets, pseudonymKeys } = readKeyFileEntries(path);
  return { ...(await keyringFrom(secrets, `key file ${path}`, pseudonymKeys)), created };
}

/** The keys SESSION_SECRET, SESSION_SECRET_PREVIOUS and SESSION_PSEUDONYM_KEYS hold. */
export function environmentKeys(config: KeySourceConfig): KeyFile {
  return {
    secrets: [config.sessionSecret!, ...config.sessionSecretPrevious],
    pseudonymKeys: config.sessionPseudonymKeys,
  };
}

/** The sealing secrets of a key file, current first. */
export function readKeyFile(path: string): string[] {
  return readKeyFileEntries(path).secrets;
}

/** Every line of a key file. Refuses a file others can read, one with no secret, or a malformed line. */
export function readKeyFileEntries(path: string): KeyFile {
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
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const secrets = lines.filter((line) => !line.startsWith(PSEUDONYM_LINE));
  const pseudonymKeys = lines
    .filter((line) => line.startsWith(PSEUDONYM_LINE))
    .map((line) => line.slice(PSEUDONYM_LINE.length));
  if (secrets.length === 0) throw new ConfigError("SESSION_KEY_FILE", `${path} holds no key`);
  if (secrets.some((secret) => secret.length < MIN_SECRET_LENGTH))
    throw new ConfigError(
      "SESSION_KEY_FILE",
      `${path} holds a key shorter than ${MIN_SECRET_LENGTH} characters`,
    );
  if (!pseudonymKeys.every(isPseudonymKey))
    throw new ConfigError(
      "SESSION_KEY_FILE",
      `${path} holds a ${PSEUDONYM_LINE} line that is not 43 base64url characters`,
    );
  return { secrets, pseudonymKeys };
}

/** Writes the keys (current first) to `path` at mode 0600: in place when new, else by an atomic rename. */
export function writeKeyFile(path: string, keys: KeyFile, exclusive = false): void {
  const lines = [...keys.secrets, ...keys.pseudonymKeys.map((key) => `${PSEUDONYM_LINE}${key}`)];
  const text = `${HEADER}${lines.join("\n")}\n`;
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
  const keys = readKeyFileEntries(path);
  const secrets = [newSecret(), ...keys.secrets];
  writeKeyFile(path, { ...keys, secrets });
  return secrets;
}

/** Drops the previous keys whose ids `remove` names, keeping their pseudonym keys (see the header). */
export async function pruneKeyFile(path: string, remove: readonly string[]): Promise<void> {
  const derived = await deriveAll(readKeyFile(path));
  // Read again and written with no await between: a rotation that landed meanwhile is kept.
  const keys = readKeyFileEntries(path);
  const pruned = retire(keys, remove, derived);
  if (pruned.secrets.length !== keys.secrets.length) writeKeyFile(path, pruned);
}

/** Each secret's key (its id, and its pseudonym key through `pseudonymKeyOf`). */
export async function deriveAll(secrets: readonly string[]): Promise<Map<string, SealingKey>> {
  return new Map(
    await Promise.all(secrets.map(async (secret) => [secret, await deriveKey(secret)] as const)),
  );
}

/** `keys` without the previous secrets whose key ids `remove` names, and with their pseudonym keys. */
export function retire(
  keys: KeyFile,
  remove: readonly string[],
  derived: ReadonlyMap<string, SealingKey>,
): KeyFile {
  const [current, ...previous] = keys.secrets;
  const gone = previous.filter((secret) => remove.includes(derived.get(secret)?.id ?? ""));
  const retired = gone.map((secret) => encodePseudonymKey(pseudonymKeyOf(derived.get(secret)!.key)));
  return {
    secrets: [current!, ...previous.filter((secret) => !gone.includes(secret))],
    pseudonymKeys: [...new Set([...keys.pseudonymKeys, ...retired])],
  };
}
