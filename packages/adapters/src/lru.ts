/**
 * A bounded map that forgets its least recently used entry first; an entry set with a `ttl` (ms,
 * on the monotonic clock) is gone once it has lived that long. Map keeps insertion order, so a
 * read moves the entry to the end and the first key is the least recently used.
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();

  constructor(
    private readonly max: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= this.clock()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, options: { ttl?: number } = {}): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: options.ttl !== undefined ? this.clock() + options.ttl : Infinity });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** The live values, least recently used first. */
  *values(): IterableIterator<V> {
    const now = this.clock();
    for (const entry of this.entries.values()) if (entry.expires > now) yield entry.value;
  }
}
