/**
 * Kratos' admin API, for account deletion only: `DELETE /admin/identities/{id}` (204; 404 when the
 * identity is already gone, which is the same outcome). Best effort and bounded: a deletion never waits
 * on it for long and never fails because of it; a refusal is logged for the operator.
 */
import { IdpUnavailable } from "./hydra.ts";
import { fetchText } from "./provider-fetch.ts";

export type IdentityDeletion = "deleted" | "not_configured" | "failed";

export class KratosAdmin {
  constructor(
    readonly adminUrl: string | undefined,
    private readonly timeoutMs = 5000,
  ) {}

  async deleteIdentity(id: string): Promise<{ outcome: IdentityDeletion; cause?: string }> {
    if (this.adminUrl === undefined) return { outcome: "not_configured" };
    const url = `${this.adminUrl.replace(/\/+$/, "")}/admin/identities/${encodeURIComponent(id)}`;
    try {
      const { status } = await fetchText(url, { method: "DELETE" }, this.timeoutMs);
      if (status === 204 || status === 404) return { outcome: "deleted" };
      return { outcome: "failed", cause: `kratos answered ${status}` };
    } catch (error) {
      return { outcome: "failed", cause: error instanceof IdpUnavailable ? error.message : "request failed" };
    }
  }
}
