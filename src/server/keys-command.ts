/**
 * `gateway keys status|rotate|prune [--dev] [--force]`: the operator's view of the sealing keys, read
 * from the key source and the database of the gateway it serves (`--dev`: gateway dev's own, which
 * differ from serve's), so it never counts sessions in one database against keys another one needs.
 * A database that does not exist is an error, never created: it would show zero sessions and let prune
 * drop keys the real one needs.
 *
 * Status lists each key, the live sessions whose cookie is sealed with it, and what every running
 * process seals with (heartbeat.ts): after a rotation the processes still seal with the old key until
 * they restart. Prune drops only what nothing needs (key-usage.ts) and exits 1 naming what it kept.
 * A dropped key's pseudonym key stays (key-file.ts), so the accounts deleted under it stay deleted.
 * With SESSION_SECRET the environment holds the keys, so rotate and prune only say what to change:
 * prune prints the SESSION_PSEUDONYM_KEYS value that keeps the dropped secrets' pseudonym keys.
 */
import { existsSync } from "node:fs";
import { deployedSecretKeys } from "./apps/deploy.ts";
import { type RunningProcess, runningProcesses, STALE_MS } from "./auth/heartbeat.ts";
import {
  deriveAll,
  environmentKeys,
  pruneKeyFile,
  readKeyFileEntries,
  retire,
  rotateKeyFile,
} from "./auth/key-file.ts";
import { decidePrune, type KeyFacts, type KeyNeed, keyNeeds } from "./auth/key-usage.ts";
import { deriveKey, keyringFrom } from "./auth/keyring.ts";
import { liveByCookieKey } from "./auth/session-upkeep.ts";
import type { Config } from "./config.ts";
import { databaseTarget, openStorage } from "./db/open.ts";

export interface KeysOptions {
  action: "status" | "rotate" | "prune";
  /** prune: drop keys live sessions need too (signing them out). */
  force?: boolean;
  /** The configuration is gateway dev's (named in messages). */
  dev?: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`;
const are = (n: number) => (n === 1 ? "is" : "are");

export async function runKeys(
  config: Config,
  { action, force = false, dev = false }: KeysOptions,
  print: (line: string) => void = console.log,
): Promise<number> {
  const keyFile = config.sessionSecret === undefined ? config.sessionKeyFile : undefined;
  if (action === "rotate") {
    if (keyFile === undefined) {
      print(
        "keys: the keys come from SESSION_SECRET: set SESSION_SECRET to a new secret of 32+ characters, " +
          "put the old one first in SESSION_SECRET_PREVIOUS, and restart",
      );
      return 2;
    }
    const [secret] = rotateKeyFile(keyFile);
    print(
      `keys: new sealing key ${(await deriveKey(secret!)).id} in ${keyFile}; running processes seal with it once restarted`,
    );
    return 0;
  }
  if (keyFile === undefined && config.sessionSecret === undefined) {
    print("keys: an in-memory database has a random key per process; nothing to show");
    return 0;
  }
  if (config.databaseUrl === undefined && !existsSync(config.databasePath)) {
    print(
      `keys: no database at ${config.databasePath} (DATABASE_PATH): start the gateway first` +
        (dev ? "" : ", or for gateway dev's keys run gateway keys --dev"),
    );
    return 1;
  }
  const keys = keyFile ? readKeyFileEntries(keyFile) : environmentKeys(config);
  const ring = await keyringFrom(keys.secrets, keyFile ? `key file ${keyFile}` : "SESSION_SECRET");
  const facts = await gatherFacts(config, [ring.current.id, ...ring.previous.map((key) => key.id)]);
  const database = config.databaseUrl ? "DATABASE_URL" : config.databasePath;
  if (action === "status") {
    print(`keys from ${ring.source}; sessions in ${database}${dev ? " (gateway dev)" : ""}`);
    for (const line of statusLines(facts, keys.pseudonymKeys.length)) print(line);
    return 0;
  }
  const decision = decidePrune(facts, force);
  for (const need of decision.kept) print(`keys: kept ${need.id}: ${neededBy(need, decision.unknown)}`);
  if (decision.remove.length > 0) {
    const signedOut = signedOutText(decision.signedOut, force ? decision.unknown : 0);
    if (keyFile === undefined) {
      const { pseudonymKeys } = retire(keys, decision.remove, await deriveAll(keys.secrets));
      print(
        `keys: remove the secrets of keys ${decision.remove.join(", ")} from SESSION_SECRET_PREVIOUS${signedOut}`,
      );
      print(
        `keys: and set SESSION_PSEUDONYM_KEYS=${pseudonymKeys.join(",")} (their pseudonym keys: accounts deleted while they sealed stay deleted; these unseal nothing)`,
      );
    } else {
      await pruneKeyFile(keyFile, decision.remove);
      print(
        `keys: removed ${plural(decision.remove.length, "previous key")} (${decision.remove.join(", ")}) from ${keyFile}${signedOut}`,
      );
    }
  } else if (decision.kept.length === 0) print("keys: no previous key to remove");
  return decision.kept.length > 0 ? 1 : 0;
}

async function gatherFacts(config: Config, ring: string[]): Promise<KeyFacts> {
  const storage = await openStorage(databaseTarget(config));
  try {
    const live = await liveByCookieKey(storage);
    return {
      ring,
      sessions: new Map(live.map((row) => [row.keyId, Number(row.sessions)] as const)),
      processes: await runningProcesses(storage),
      deployments: await deployedSecretKeys(storage),
    };
  } finally {
    await storage.close();
  }
}

/** What a forced prune signs out: the sessions sealed with the keys removed, and maybe older ones. */
function signedOutText(sessions: number, unknown: number): string {
  const parts = [
    ...(sessions > 0
      ? [`${plural(sessions, "live session")} sealed with them ${are(sessions)} signed out`]
      : []),
    ...(unknown > 0 ? [`up to ${plural(unknown, "live session")} sealed before key ids were recorded`] : []),
  ];
  return parts.length > 0 ? `; ${parts.join(", and ")}` : "";
}

/** Why prune kept a key, and what settles it. */
function neededBy(need: KeyNeed, unknown: number): string {
  const them = (n: number) => (n === 1 ? "it" : "them");
  const reasons: string[] = [];
  if (need.processes > 0)
    reasons.push(
      `${plural(need.processes, "running process")} still seal${need.processes === 1 ? "s" : ""} with it (restart ${them(need.processes)} first)`,
    );
  if (need.deployments > 0)
    reasons.push(
      `${plural(need.deployments, "deployed client secret")} sealed with it (a restart re-seals ${them(need.deployments)})`,
    );
  if (need.sessions > 0)
    reasons.push(
      `${plural(need.sessions, "live session")} sealed with it (--force signs ${them(need.sessions)} out)`,
    );
  if (unknown > 0)
    reasons.push(
      `${plural(unknown, "live session")} sealed before key ids were recorded may need it (--force signs ${them(unknown)} out)`,
    );
  return reasons.join("; ");
}

function statusLines(facts: KeyFacts, retired: number): string[] {
  const lines = keyNeeds(facts).map((need, i) => {
    const role = i === 0 ? "current" : facts.ring.includes(need.id) ? "previous" : "missing";
    return `  ${need.id}  ${role.padEnd(8)}  ${plural(need.sessions, "live session").padEnd(17)}  ${sealing(need, role, facts.processes.length)}`;
  });
  const unknown = facts.sessions.get(null) ?? 0;
  if (unknown > 0) lines.push(`  (${plural(unknown, "live session")} sealed before key ids were recorded)`);
  lines.push(
    `pseudonym keys kept from pruned keys: ${retired} (they recognise accounts deleted while those keys sealed; they unseal nothing)`,
  );
  lines.push(
    facts.processes.length === 0
      ? `running processes: none reported in the last ${STALE_MS / 1000} s`
      : `running processes (reported in the last ${STALE_MS / 1000} s):`,
  );
  const now = Date.now();
  for (const p of facts.processes) lines.push(`  ${processLine(p, now)}`);
  return lines;
}

/** Who seals with the key now: what `status` must not guess from the key file's order. */
function sealing(need: KeyNeed, role: string, running: number): string {
  const by = `${plural(need.processes, "running process")} seal${need.processes === 1 ? "s" : ""} with it`;
  if (role === "current")
    return need.processes > 0 || running === 0
      ? `${need.processes > 0 ? by : "processes seal with it from their next start"}`
      : "no running process seals with it yet: they use it once restarted";
  if (role === "previous")
    return need.processes > 0 ? `unseals; ${by} (started before the rotation)` : "unseals only";
  return `not in the key source: ${need.processes > 0 ? by : "its sessions are signed out"}`;
}

function processLine(p: RunningProcess, now: number): string {
  const seen = Math.max(0, Math.round((now - p.seenAt) / 1000));
  return `${p.host} pid ${p.pid}  seals with ${p.keyId}  started ${new Date(p.startedAt).toISOString()}, seen ${seen} s ago`;
}
