/**
 * Moving the sealing secret out of the database. Versions before the key file kept a generated secret
 * in the `settings` table, beside the refresh tokens it seals: anyone with a copy of the database could
 * unseal them. At start-up such a row is taken out of the database for good (secure_delete, then a
 * truncating checkpoint, so neither the page nor the WAL keeps it) and, with a key file, kept there as a
 * previous key, so sessions sealed with it keep working until they are re-sealed with the new key.
 */
import { eq } from "drizzle-orm";
import type { Storage } from "../db/open.ts";
import { settings } from "../db/schema.ts";
import { readKeyFile, writeKeyFile } from "./key-file.ts";

const LEGACY_KEY = "session_secret";

/** The secret an older version stored in the database, if any. */
export function legacySecret(storage: Storage): string | undefined {
  return storage.db.select().from(settings).where(eq(settings.key, LEGACY_KEY)).get()?.value;
}

/** Appends the legacy secret to the key file as a previous key (unless it is already there). */
export function keepAsPreviousKey(keyFile: string, secret: string): void {
  const secrets = readKeyFile(keyFile);
  if (!secrets.includes(secret)) writeKeyFile(keyFile, [...secrets, secret]);
}

/** Deletes the legacy secret so that no page of the database file or of its WAL still holds it. */
export function eraseLegacySecret(storage: Storage): void {
  storage.sqlite.exec("PRAGMA secure_delete = ON");
  storage.writeTx((tx) => {
    tx.delete(settings).where(eq(settings.key, LEGACY_KEY)).run();
  });
  storage.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  storage.sqlite.exec("PRAGMA secure_delete = OFF");
}
