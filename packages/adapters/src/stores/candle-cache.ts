import type { CandleBatch, StoredPeriod } from "@tp/core/candles/index";

/** Candles a process keeps decoded by default (`CANDLE_CACHE_CANDLES`): about 57 MB, ten years of one symbol's regular-session minutes. */
export const CANDLE_CACHE_CANDLES = 1_000_000;

interface Entry {
  version: number;
  batch: CandleBatch;
}

/**
 * Buckets' regular-session candles as last read, decoded, each with the version of the bucket it
 * was read from: a later read whose bucket summaries name the same versions takes them from here
 * instead of reading the buckets again (a sweep's runs, a backtest run again, read the same year).
 * Least recently used first out, bounded by candles held; a capacity of 0 keeps nothing. Only a
 * cache: the table's versions decide what is current.
 */
export class CandleCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  constructor(readonly capacity: number) {}

  /** The bucket's candles if they were read at `version`. */
  get(code: string, period: StoredPeriod, bucket: string, version: number): CandleBatch | undefined {
    const key = keyOf(code, period, bucket);
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.batch;
  }

  /** Whether it holds the bucket's candles at any version. */
  holds(code: string, period: StoredPeriod, bucket: string): boolean {
    return this.entries.has(keyOf(code, period, bucket));
  }

  set(code: string, period: StoredPeriod, bucket: string, version: number, batch: CandleBatch): void {
    if (batch.length > this.capacity) return;
    const key = keyOf(code, period, bucket);
    this.drop(key);
    this.entries.set(key, { version, batch });
    this.held += batch.length;
    for (const oldest of this.entries.keys()) {
      if (this.held <= this.capacity) break;
      this.drop(oldest);
    }
  }

  /** Candles held now. */
  get size(): number {
    return this.held;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  private drop(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.batch.length;
  }
}

const keyOf = (code: string, period: StoredPeriod, bucket: string) => `${code}#${period}#${bucket}`;
