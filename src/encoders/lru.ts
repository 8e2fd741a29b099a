/**
 * A small least-recently-used map: `get` refreshes an entry, `set` evicts the oldest entry once
 * `capacity` is exceeded. Capacity 0 stores nothing.
 *
 * @example
 * ```ts
 * const cache = new LruCache<string, number>(2);
 * cache.set("a", 1); cache.set("b", 2); cache.get("a"); cache.set("c", 3); // evicts "b"
 * ```
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  private hitCount = 0;
  private missCount = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`LruCache capacity must be a non-negative integer, got ${capacity}`);
    }
  }

  /** The value for `key`, marking it most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) {
      this.missCount++;
      return undefined;
    }
    this.hitCount++;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores `value` as the most recently used entry, evicting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  /** The value for `key` without counting a hit or a miss (and without marking it recently used). */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Lookups answered from the cache / not found, since creation. */
  get stats(): { hits: number; misses: number; size: number; capacity: number } {
    return { hits: this.hitCount, misses: this.missCount, size: this.entries.size, capacity: this.capacity };
  }
}
