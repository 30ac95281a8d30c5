/**
 * What deleting an account would do to the resources it owns, read without changing anything: each
 * passes to the heir the deletion's own rule names (`successorOf`), or is deleted. The operator's
 * confirmation says it before anything happens (the TUI's "delete user").
 */
import type { Storage } from "../db/sql.ts";
import { resourcesOwnedBy, successionCandidates } from "../resources/user-rows.ts";
import { successorOf } from "./rules.ts";

export interface DeletionPreview {
  /** Owned resources that pass on, to whom. */
  transfer: Array<{ resourceId: string; name: string; to: string }>;
  /** Owned resources with nobody to inherit them: deleted with the usual cascade. */
  delete: Array<{ resourceId: string; name: string }>;
}

export async function deletionPreview(storage: Storage, userId: string): Promise<DeletionPreview> {
  const owned = await resourcesOwnedBy(storage, userId);
  const preview: DeletionPreview = { transfer: [], delete: [] };
  for (const resource of owned) {
    const heir = successorOf(await successionCandidates(storage, resource.id), userId);
    if (heir === undefined) preview.delete.push({ resourceId: resource.id, name: resource.name });
    else preview.transfer.push({ resourceId: resource.id, name: resource.name, to: heir });
  }
  return preview;
}
