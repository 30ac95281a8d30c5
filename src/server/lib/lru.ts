/**
 * A bounded least-recently-used map with per-entry expiry. Used for the bearer validation cache,
 * the sealed-cookie cache and the session-row cache; each is capped so a flood of distinct keys
 * cannot grow memory without bound.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, { value: V; expiresAt: number }>();

  constructor(private readonly capacity: number) {}

  get(key: K, now = Date.now()): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.map.delete(key);
      return undefined;
    }
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, expiresAt = Number.POSITIVE_INFINITY): void {
    this.map.delete(key);
    this.map.set(key, { value, expiresAt });
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  /** Removes every entry whose value matches (e.g. all cookies of an ended session). */
  deleteWhere(predicate: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.map) if (predicate(entry.value, key)) this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
