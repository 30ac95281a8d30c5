/**
 * A bounded map with per-entry expiry that keeps what is used and drops what is not: the bearer
 * validation cache, the sealed-cookie cache, the session-row and resource caches. Each is capped, so a
 * flood of distinct keys cannot grow memory without bound.
 *
 * Two generations instead of a strict LRU list: new and used entries go into `young`; when `young`
 * holds half the capacity it becomes `old` and the previous `old` is dropped. A read of an `old`
 * entry moves it back to `young`. So an entry read at least once per half-capacity of new keys is
 * never dropped, at most `capacity` entries are held, and a read that hits `young` (the hot set) is a
 * plain Map lookup: a strict LRU re-inserts on every read, which profiled at 40% of a cached
 * `GET /auth/session` (the Map's churn, not the lookup).
 */
interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class Lru<K, V> {
  private young = new Map<K, Entry<V>>();
  private old = new Map<K, Entry<V>>();
  private readonly half: number;

  constructor(capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: K, now = Date.now()): V | undefined {
    let entry = this.young.get(key);
    if (entry === undefined) {
      entry = this.old.get(key);
      if (entry === undefined) return undefined;
      this.old.delete(key);
      if (entry.expiresAt <= now) return undefined;
      this.addYoung(key, entry);
      return entry.value;
    }
    if (entry.expiresAt <= now) {
      this.young.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, expiresAt = Number.POSITIVE_INFINITY): void {
    const entry = { value, expiresAt };
    if (this.young.has(key)) {
      this.young.set(key, entry);
      return;
    }
    this.old.delete(key);
    this.addYoung(key, entry);
  }

  private addYoung(key: K, entry: Entry<V>): void {
    this.young.set(key, entry);
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  /**
   * Deletes every entry whose value matches, telling `deleted` each one with its expiry (a scan: for
   * rare events, never per request).
   */
  deleteWhere(matches: (value: V) => boolean, deleted?: (key: K, value: V, expiresAt: number) => void): void {
    for (const generation of [this.young, this.old])
      for (const [key, entry] of generation)
        if (matches(entry.value)) {
          generation.delete(key);
          deleted?.(key, entry.value, entry.expiresAt);
        }
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
