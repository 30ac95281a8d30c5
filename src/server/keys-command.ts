/**
 * `gateway keys status|rotate|prune`: the operator's view of the sealing keys. Status lists each key's
 * id and how many live sessions still hold a browser cookie sealed with it; rotate adds a new sealing
 * key to the key file (restart the gateway to use it; the old key keeps unsealing); prune drops the
 * previous keys no live session needs any more. With SESSION_SECRET the environment holds the keys, so
 * rotate and prune only say what to change.
 */
import { pruneKeyFile, readKeyFile, rotateKeyFile } from "./auth/key-file.ts";
import { deriveKey, keyringFrom } from "./auth/keyring.ts";
import { SessionStore } from "./auth/session-store.ts";
import type { Config } from "./config.ts";
import { databaseTarget, openStorage } from "./db/open.ts";

const USAGE = "usage: gateway keys status|rotate|prune";

export async function runKeys(config: Config, argv: string[], print = console.log): Promise<number> {
  const command = argv[0] ?? "status";
  if (!["status", "rotate", "prune"].includes(command)) {
    print(USAGE);
    return 2;
  }
  const keyFile = config.sessionSecret === undefined ? config.sessionKeyFile : undefined;
  if (command === "rotate") {
    if (keyFile === undefined) {
      print(
        "keys: the keys come from SESSION_SECRET: set SESSION_SECRET to a new secret of 32+ characters, " +
          "put the old one first in SESSION_SECRET_PREVIOUS, and restart",
      );
      return 2;
    }
    const [secret] = rotateKeyFile(keyFile);
    print(
      `keys: new sealing key ${(await deriveKey(secret!)).id} in ${keyFile}; restart the gateway to use it`,
    );
    return 0;
  }
  const secrets = keyFile ? readKeyFile(keyFile) : [config.sessionSecret!, ...config.sessionSecretPrevious];
  if (keyFile === undefined && config.sessionSecret === undefined) {
    print("keys: an in-memory database has a random key per process; nothing to show");
    return 0;
  }
  const ring = await keyringFrom(secrets, keyFile ? `key file ${keyFile}` : "SESSION_SECRET");
  const storage = await openStorage(databaseTarget(config));
  const counts = new Map(
    (await new SessionStore(storage).liveByCookieKey()).map(
      (row) => [row.keyId, Number(row.sessions)] as const,
    ),
  );
  await storage.close();
  const ids = [ring.current.id, ...ring.previous.map((key) => key.id)];
  if (command === "status") {
    print(`keys from ${ring.source}`);
    ids.forEach((id, i) => {
      print(`  ${id}  ${i === 0 ? "seals  " : "unseals"}  ${counts.get(id) ?? 0} live sessions`);
    });
    const unknown = counts.get(null) ?? 0;
    if (unknown > 0) print(`  (${unknown} live sessions were sealed before key ids were recorded)`);
    return 0;
  }
  const stillNeeded = (i: number) => (counts.get(ids[i]!) ?? 0) > 0 || (counts.get(null) ?? 0) > 0;
  if (keyFile === undefined) {
    const droppable = ids.slice(1).filter((_, i) => !stillNeeded(i + 1));
    print(
      droppable.length === 0
        ? "keys: every previous key is still needed"
        : `keys: remove the secrets of keys ${droppable.join(", ")} from SESSION_SECRET_PREVIOUS`,
    );
    return 0;
  }
  const removed = pruneKeyFile(keyFile, (_secret, i) => stillNeeded(i));
  print(`keys: removed ${removed} previous key(s) no live session needs from ${keyFile}`);
  return 0;
}
