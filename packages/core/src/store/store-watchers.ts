/**
 * The watchers of a store's changes (`WatchableTaskStore.watch`): each told in turn, and one that throws
 * does not keep the others from being told (`client.watchTasks` reports its own listener's failures).
 */
export class StoreWatchers {
  private readonly watchers = new Set<() => void>();

  get size(): number {
    return this.watchers.size;
  }

  /** Adds `onChange`; returns the function that removes it. */
  add(onChange: () => void): () => void {
    const own = (): void => onChange();
    this.watchers.add(own);
    return () => void this.watchers.delete(own);
  }

  tell(): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher();
      } catch {
        // The watcher's own failure.
      }
    }
  }
}
