/**
 * What deleting an account would do to the resources it owns, read without changing anything: each
 * passes to the heir the deletion's own rule names (`successorOf`), or is deleted. The operator's
 * confirmation says it before anything happens (the TUI's "delete user").
 */
import type { Storage } from "../db/sql.ts";
import { type Candidate, successorOf } from "./rules.ts";

export interface DeletionPreview {
  /** Owned resources that pass on, to whom. */
  transfer: Array<{ resourceId: string; name: string; to: string }>;
  /** Owned resources with nobody to inherit them: deleted with the usual cascade. */
  delete: Array<{ resourceId: string; name: string }>;
}

export async function deletionPreview(storage: Storage, userId: string): Promise<DeletionPreview> {
  const owned = await storage.all<{ id: string; name: string }>(
    "SELECT id, name FROM resources WHERE owner_kind = 'user' AND owner_id = $1 ORDER BY name, id",
    [userId],
  );
  const preview: DeletionPreview = { transfer: [], delete: [] };
  for (const resource of owned) {
    const members = await storage.all<Candidate>(
      `SELECT user_id AS "userId", role, state, created_at AS since FROM members WHERE resource_id = $1`,
      [resource.id],
    );
    const heir = successorOf(
      members.map((m) => ({ ...m, since: Number(m.since) })),
      userId,
    );
    if (heir === undefined) preview.delete.push({ resourceId: resource.id, name: resource.name });
    else preview.transfer.push({ resourceId: resource.id, name: resource.name, to: heir });
  }
  return preview;
}
