// Shared in-memory state of the Hydra-compatible layer: what Hydra keeps in its
// flow table (challenge status, the admin's accept/reject decision), remembered
// consents (Hydra's `remember: true` → `skip: true` next time), per-grant session
// data (`session.id_token` claims, `session.access_token` → introspection `ext`),
// and the request counters the gateway's tests assert on.

export type LoginDecision = { kind: "login"; subject: string; remember: boolean };
export type ConsentDecision = {
  kind: "consent";
  grantScope: string[];
  audience: string[];
  remember: boolean;
  rememberFor: number; // seconds, 0 = forever (Hydra)
  idToken: Record<string, unknown>;
  accessToken: Record<string, unknown>;
};
export type RejectDecision = { kind: "reject"; error: string; errorDescription: string };
export type Decision = LoginDecision | ConsentDecision | RejectDecision;

export interface ChallengeRecord {
  kind: "login" | "consent";
  /** The original authorization URL (Hydra's `request_url`). */
  requestUrl: string;
  decision?: Decision;
}

export interface GrantExtras {
  idToken: Record<string, unknown>;
  accessToken: Record<string, unknown>;
  audience: string[];
}

interface Remembered {
  scopes: Set<string>;
  expiresAt: number; // epoch ms, Infinity = forever
}

export class DevIdpState {
  readonly calls: Record<string, number> = {};
  readonly challenges = new Map<string, ChallengeRecord>();
  readonly grantExtras = new Map<string, GrantExtras>();
  /** interaction `cid` (shared by the login and consent steps of one authorization) → login challenge */
  readonly loginChallengeByCid = new Map<string, string>();
  private readonly remembered = new Map<string, Remembered>();

  count(key: string): void {
    this.calls[key] = (this.calls[key] ?? 0) + 1;
  }

  resetCalls(): void {
    for (const key of Object.keys(this.calls)) delete this.calls[key];
    for (const key of COUNTER_KEYS) this.calls[key] = 0;
  }

  remember(subject: string, clientId: string, scopes: string[], rememberForSeconds: number): void {
    const expiresAt = rememberForSeconds > 0 ? Date.now() + rememberForSeconds * 1000 : Infinity;
    const key = `${subject}\n${clientId}`;
    const previous = this.remembered.get(key);
    const merged = new Set([...(previous?.scopes ?? []), ...scopes]);
    this.remembered.set(key, { scopes: merged, expiresAt });
  }

  /** Hydra's consent `skip`: a remembered, unexpired consent covers every requested scope. */
  covered(subject: string, clientId: string, requested: string[]): boolean {
    const entry = this.remembered.get(`${subject}\n${clientId}`);
    if (!entry || entry.expiresAt <= Date.now()) return false;
    return requested.every((scope) => entry.scopes.has(scope));
  }
}

export const COUNTER_KEYS = [
  "token:authorization_code",
  "token:refresh_token",
  "revoke",
  "userinfo",
  "introspect",
  "login:get",
  "login:accept",
  "consent:get",
  "consent:accept",
  "consent:reject",
  "kratos:flow",
  "kratos:browser",
  "kratos:errors",
  "kratos:delete-identity",
] as const;
