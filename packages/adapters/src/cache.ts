import { Lru } from "./lru";
import type { Db } from "./dynamo/db";
import { Keys } from "./dynamo/keys";
import { Repository } from "./dynamo/repository";

interface CacheItem {
  cache_key: string;
  value: unknown;
  expires_at: number;
}

export interface CacheStatus {
  backend: string;
  entries: number;
  max_entries: number;
  hits: number;
  misses: number;
  hit_rate: number;
  table_hits: number;
}

/**
 * A read-through cache: an in-process LRU in front of expiring items in the table, so a cold
 * Lambda or another instance still finds what one instance computed.
 */
export class ReadThroughCache {
  private readonly local: Lru<string, { value: unknown }>;
  private readonly items: Repository<CacheItem>;
  private hits = 0;
  private misses = 0;
  private tableHits = 0;

  constructor(
    db: Db,
    private readonly now: () => number,
    private readonly maxEntries = 5000,
  ) {
    this.local = new Lru(maxEntries);
    this.items = new Repository<CacheItem>(db, {
      type: "CacheEntry",
      key: (item) => Keys.cacheEntry(item.cache_key),
      expiresAt: (item) => item.expires_at,
    });
  }

  /** The cached value, or the loader's result stored for `ttlSeconds` in both layers. */
  async get<T>(key: string, ttlSeconds: number, loader: () => Promise<T>): Promise<T> {
    const local = this.local.get(key);
    if (local) {
      this.hits++;
      return local.value as T;
    }
    const stored = await this.items.get(Keys.cacheEntry(key), { consistent: false });
    if (stored) {
      this.hits++;
      this.tableHits++;
      const remaining = stored.expires_at * 1000 - this.now();
      if (remaining > 0) this.local.set(key, { value: stored.value }, { ttl: remaining });
      return stored.value as T;
    }
    this.misses++;
    const value = await loader();
    await this.set(key, value, ttlSeconds);
    return value;
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    const expiresAt = Math.floor(this.now() / 1000) + ttlSeconds;
    await this.items.put({ cache_key: key, value, expires_at: expiresAt });
    this.local.set(key, { value }, { ttl: ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    this.local.delete(key);
    await this.items.delete(Keys.cacheEntry(key));
  }

  status(): CacheStatus {
    const lookups = this.hits + this.misses;
    return {
      backend: "lru+dynamodb",
      entries: this.local.size,
      max_entries: this.maxEntries,
      hits: this.hits,
      misses: this.misses,
      hit_rate: lookups === 0 ? 0 : Number((this.hits / lookups).toFixed(4)),
      table_hits: this.tableHits,
    };
  }

  /** A write-read-delete round trip through the table layer, timed. */
  async selfTest(): Promise<{ success: boolean; write_ms: number; read_ms: number; delete_ms: number; total_ms: number }> {
    const key = `selftest:${crypto.randomUUID()}`;
    const value = { probe: key };
    const started = performance.now();
    await this.set(key, value, 60);
    const written = performance.now();
    this.local.delete(key);
    const read = await this.items.get(Keys.cacheEntry(key));
    const readDone = performance.now();
    await this.delete(key);
    const deleted = performance.now();
    const gone = (await this.items.get(Keys.cacheEntry(key))) === undefined;
    const round = (ms: number) => Number(ms.toFixed(2));
    return {
      success: JSON.stringify(read?.value) === JSON.stringify(value) && gone,
      write_ms: round(written - started),
      read_ms: round(readDone - written),
      delete_ms: round(deleted - readDone),
      total_ms: round(deleted - started),
    };
  }
}
