/**
 * Which key each running gateway process seals with. A process reads its keys once, at start-up, so
 * after `gateway keys rotate` the key file's first key is not what running processes seal with until
 * they restart: only they can say. Each writes a row (host, pid, key id) at start-up and every 30 s,
 * and deletes it when it stops cleanly. A row not refreshed for 90 s belongs to a process that died
 * (kill -9, a lost host): it no longer counts, and the next heartbeat of any process deletes it.
 * Only this module touches `gateway_processes`.
 */
import { hostname } from "node:os";
import type { Storage } from "../db/sql.ts";
import { randomId } from "../lib/crypto.ts";
import type { Logger } from "../lib/log.ts";

export const HEARTBEAT_MS = 30_000;
/** Three heartbeats missed: the process is gone. */
export const STALE_MS = 90_000;

export interface RunningProcess {
  host: string;
  pid: number;
  keyId: string;
  startedAt: number;
  seenAt: number;
}

export interface Heartbeat {
  /** Deletes this process's row (a clean stop) and stops the timer. */
  stop(): Promise<void>;
}

/** Records that this process seals with `keyId` now and every HEARTBEAT_MS (the timer keeps nothing alive). */
export async function startHeartbeat(storage: Storage, keyId: string, log: Logger): Promise<Heartbeat> {
  const id = randomId();
  const startedAt = Date.now();
  const beat = async () => {
    const now = Date.now();
    await storage.transaction(async (tx) => {
      tx.write("DELETE FROM gateway_processes WHERE seen_at < $1", [now - STALE_MS]);
      tx.write(
        `INSERT INTO gateway_processes (id, host, pid, key_id, started_at, seen_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
        [id, hostname(), process.pid, keyId, startedAt, now],
      );
    });
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch((error) => log("warn", "heartbeat failed", { error: String(error) }));
  }, HEARTBEAT_MS);
  timer.unref?.();
  return {
    async stop() {
      clearInterval(timer);
      await storage.run("DELETE FROM gateway_processes WHERE id = $1", [id]);
    },
  };
}

/** The processes that reported in the last STALE_MS, oldest first. */
export function runningProcesses(storage: Storage, now = Date.now()): Promise<RunningProcess[]> {
  return storage.all<RunningProcess>(
    `SELECT host, pid, key_id AS "keyId", started_at AS "startedAt", seen_at AS "seenAt"
     FROM gateway_processes WHERE seen_at >= $1 ORDER BY started_at, pid`,
    [now - STALE_MS],
  );
}
