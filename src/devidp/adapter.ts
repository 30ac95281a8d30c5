// In-memory storage adapter for oidc-provider, one store per dev IdP instance.
// Mimics what Hydra's SQL store guarantees for our purposes: tokens expire, a
// grant's tokens can be revoked together (refresh-token reuse, revocation), and
// nothing leaks between two providers running in the same process. It also
// avoids oidc-provider's "development-only in-memory adapter" warning.
import type { Adapter, AdapterPayload } from "oidc-provider";

interface Entry {
  payload: AdapterPayload;
  expiresAt: number; // epoch ms, Infinity = never
}

const GRANTABLE = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
]);

export class MemoryStore {
  private readonly entries = new Map<string, Entry>();
  private readonly grants = new Map<string, Set<string>>();
  private readonly sessionUids = new Map<string, string>();

  get(key: string): AdapterPayload | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  set(key: string, payload: AdapterPayload, expiresInSeconds?: number): void {
    const expiresAt = typeof expiresInSeconds === "number" ? Date.now() + expiresInSeconds * 1000 : Infinity;
    this.entries.set(key, { payload, expiresAt });
    if (payload.grantId && GRANTABLE.has(key.slice(0, key.indexOf(":")))) {
      const members = this.grants.get(payload.grantId) ?? new Set<string>();
      members.add(key);
      this.grants.set(payload.grantId, members);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    const grantId = entry?.payload.grantId;
    if (grantId) this.grants.get(grantId)?.delete(key);
  }

  revokeGrant(grantId: string): void {
    for (const key of this.grants.get(grantId) ?? []) this.entries.delete(key);
    this.grants.delete(grantId);
  }

  /** The id of a live session whose payload matches (a scan: development only). */
  findSessionId(match: (payload: AdapterPayload) => boolean): string | undefined {
    for (const key of this.entries.keys()) {
      if (!key.startsWith("Session:")) continue;
      const payload = this.get(key);
      if (payload && match(payload)) return key.slice("Session:".length);
    }
    return undefined;
  }

  setSessionUid(uid: string, id: string): void {
    this.sessionUids.set(uid, id);
  }

  sessionIdForUid(uid: string): string | undefined {
    return this.sessionUids.get(uid);
  }
}

/** Returns an adapter factory bound to one store (pass as `adapter` in the provider config). */
export function memoryAdapterFactory(store: MemoryStore): (model: string) => Adapter {
  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        store.set(key(id), payload, expiresIn);
        if (model === "Session" && payload.uid) store.setSessionUid(payload.uid, id);
      },
      async find(id) {
        return store.get(key(id));
      },
      async findByUid(uid) {
        const id = store.sessionIdForUid(uid);
        return id ? store.get(key(id)) : undefined;
      },
      async findByUserCode() {
        return undefined;
      },
      async consume(id) {
        const payload = store.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        store.revokeGrant(grantId);
      },
    };
  };
}
