/**
 * What still needs each sealing key, and what `gateway keys prune` may therefore drop. Pure: the
 * command gathers the facts (the key source's ids, live sessions per cookie key, running processes,
 * deployed client secrets per key) and prints the answer.
 *
 * A previous key is needed while a live session's cookie is sealed with it (dropping it signs that
 * session out), while a running process still seals with it (it read its keys before a rotation: every
 * session it starts or refreshes needs the key), or while a deployed client secret is sealed with it
 * (the app's secret could no longer be opened). `--force` overrides the first only, and says how many
 * sessions it signs out; a restart settles the other two (start-up re-seals deployed secrets).
 */
import type { RunningProcess } from "./heartbeat.ts";

export interface KeyFacts {
  /** The key source's ids, the current (sealing) one first. */
  ring: string[];
  /** Live sessions per id of the key their cookie is sealed with; null: sealed before ids were recorded. */
  sessions: ReadonlyMap<string | null, number>;
  processes: readonly RunningProcess[];
  /** Deployed client secrets per id of the key they are sealed with; null: an older version's clear one. */
  deployments: ReadonlyMap<string | null, number>;
}

export interface KeyNeed {
  id: string;
  sessions: number;
  processes: number;
  deployments: number;
}

export interface PruneDecision {
  /** Previous keys to drop. */
  remove: string[];
  /** Previous keys kept, with what needs them. */
  kept: KeyNeed[];
  /** Live sessions the removal signs out (with --force). */
  signedOut: number;
  /** Live sessions sealed before key ids were recorded: they may need any previous key. */
  unknown: number;
}

/** What needs each key of the source (current first), and each key something uses that the source lacks. */
export function keyNeeds(facts: KeyFacts): KeyNeed[] {
  const ids = new Set(facts.ring);
  for (const id of facts.sessions.keys()) if (id !== null) ids.add(id);
  for (const process of facts.processes) ids.add(process.keyId);
  return [...ids].map((id) => ({
    id,
    sessions: facts.sessions.get(id) ?? 0,
    processes: facts.processes.filter((p) => p.keyId === id).length,
    deployments: facts.deployments.get(id) ?? 0,
  }));
}

export function decidePrune(facts: KeyFacts, force: boolean): PruneDecision {
  const unknown = facts.sessions.get(null) ?? 0;
  const previous = keyNeeds(facts).filter((need) => facts.ring.slice(1).includes(need.id));
  const droppable = (need: KeyNeed) =>
    need.processes === 0 && need.deployments === 0 && (force || (need.sessions === 0 && unknown === 0));
  const remove = previous.filter(droppable);
  return {
    remove: remove.map((need) => need.id),
    kept: previous.filter((need) => !droppable(need)),
    signedOut: remove.reduce((sum, need) => sum + need.sessions, 0),
    unknown,
  };
}
