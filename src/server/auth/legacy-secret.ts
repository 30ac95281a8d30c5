/**
 * Moving the sealing secret out of the database. Versions before the key file kept a generated secret
 * in the `settings` table, beside the refresh tokens it seals: anyone with a copy of the database could
 * unseal them. At start-up such a row is taken out of the database for good (secure_delete, then a
 * truncating checkpoint, so neither the page nor the WAL keeps it) and, with a key file, kept there as a
 * previous key, so sessions sealed with it keep working until they are re-sealed with the new key.
 */
import type { Storage } from "../db/sql.ts";
import { readKeyFileEntries, writeKeyFile } from "./key-file.ts";

const LEGACY_KEY = "session_secret";

/** The secret an older version stored in the database, if any. */
export async function legacySecret(storage: Storage): Promise<string | undefined> {
  const row = await storage.get<{ value: string }>("SELECT value FROM settings WHERE key = $1", [LEGACY_KEY]);
  return row?.value;
}

/** Appends the legacy secret to the key file as a previous key (unless it is already there). */
export function keepAsPreviousKey(keyFile: string, secret: string): void {
  const keys = readKeyFileEntries(keyFile);
  if (!keys.secrets.includes(secret)) writeKeyFile(keyFile, { ...keys, secrets: [...keys.secrets, secret] });
}

/** Deletes the legacy secret so that no page of the database file or of its WAL still holds it. */
export async function eraseLegacySecret(storage: Storage): Promise<void> {
  await storage.transaction(
    async (tx) => {
      await tx.run("DELETE FROM settings WHERE key = $1", [LEGACY_KEY]);
    },
    { erase: true },
  );
}
