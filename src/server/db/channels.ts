/**
 * In-process listeners of notification channels, woken at most once per task however many
 * notifications arrive (a burst of commits costs one read by each listener).
 */
export class Channels {
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly pending = new Set<string>();

  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  channels(): string[] {
    return [...this.listeners.keys()];
  }

  /** Adds a listener; `first` runs when the channel gets its first one. Returns the unsubscribe. */
  add(channel: string, listener: () => void, first?: () => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      first?.();
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Wakes the channel's listeners after the current task. */
  wake(channel: string): void {
    if (this.pending.has(channel) || !this.listeners.get(channel)?.size) return;
    this.pending.add(channel);
    setTimeout(() => {
      this.pending.delete(channel);
      for (const listener of [...(this.listeners.get(channel) ?? [])]) listener();
    }, 0);
  }

  wakeAll(): void {
    for (const channel of this.listeners.keys()) this.wake(channel);
  }
}
