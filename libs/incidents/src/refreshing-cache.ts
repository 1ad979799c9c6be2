/**
 * Values worth recomputing at most once per `ttlMs`, each by key. Past its time a value is still
 * served, stale, while one refresh runs in the background, so no reader waits for a recount
 * after the first; concurrent first reads of a key share one load. A failed refresh keeps the
 * stale value, is reported to `onError`, and is tried again only `ttlMs` later, so a recount
 * that keeps failing (a statement timeout at scale) does not hold a connection on every read.
 * Written here because what it holds
 * is a few small values per process, and the caching libraries of the ecosystem either expire
 * entries (a reader then waits for the recount) or bring a store of their own.
 */
export class RefreshingCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number; refreshing: Promise<void> | null }>();
  private readonly loading = new Map<K, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly options: { now?: () => number; onError?: (key: K, error: unknown) => void } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (!entry) return this.firstLoad(key, load);
    if (entry.until <= this.now() && !entry.refreshing) {
      entry.refreshing = load()
        .then((value) => {
          entry.value = value;
          entry.until = this.now() + this.ttlMs;
        })
        .catch((error: unknown) => {
          entry.until = this.now() + this.ttlMs;
          this.options.onError?.(key, error);
        })
        .finally(() => {
          entry.refreshing = null;
        });
    }
    return entry.value;
  }

  /** Resolves when the refresh of `key` now running, if any, has ended. */
  async settled(key: K): Promise<void> {
    await this.entries.get(key)?.refreshing;
  }

  private firstLoad(key: K, load: () => Promise<V>): Promise<V> {
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load()
        .then((value) => {
          this.entries.set(key, { value, until: this.now() + this.ttlMs, refreshing: null });
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
