import { CandleBatches, type BucketSummary, type CandleBatch, type CandleStore, type PreparedUpsert, type StoredPeriod } from "@tp/core/candles/index";
import { inParallel } from "@tp/core/in-parallel";
import { Buckets } from "@tp/core/candles/buckets";
import { retrying } from "@tp/core/backoff";
import { DomainError } from "@tp/core/errors";
import { TradeSessionByCode, type TradeSession } from "@tp/core/market/trade-session";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

interface CandleBucket {
  code: string;
  period: StoredPeriod;
  bucket: string;
  count: number;
  sessions: Partial<Record<TradeSession, number>>;
  /** CandleBatches.pack of the bucket's candles. */
  data: Uint8Array;
  /** Optimistic concurrency: every rewrite requires the version it read. */
  version: number;
}

interface StockCode {
  code: string;
}

const WRITE_CONCURRENCY = 16;
const staleBucket = () => new DomainError(409, "CONCURRENT_CANDLE_WRITE", "Candle bucket changed while writing");
/** A writer that lost the race re-reads the bucket, merges again and retries, spread out by jitter. */
const RACE_RETRY = {
  attempts: 10,
  baseMs: 5,
  maxMs: 250,
  retryable: (error: unknown) => error instanceof DomainError && error.code === "CONCURRENT_CANDLE_WRITE",
};

function sessionCounts(batch: CandleBatch): Partial<Record<TradeSession, number>> {
  const counts: Partial<Record<TradeSession, number>> = {};
  for (let index = 0; index < batch.length; index++) {
    const name = TradeSessionByCode[batch.session[index]!]!;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/**
 * Candles packed into one binary item per symbol, period and bucket, with counts kept
 * alongside so totals need no decoding. Rewrites are conditioned on the version read, and
 * retried, so concurrent writers never lose each other's candles.
 */
export class DynamoCandleStore implements CandleStore {
  private readonly buckets: Repository<CandleBucket>;
  private readonly codeItems: Repository<StockCode>;
  private readonly knownCodes = new Set<string>();

  constructor(db: Db) {
    this.buckets = new Repository<CandleBucket>(db, {
      type: "CandleBucket",
      key: (item) => Keys.candleBucket(item.code, item.period, item.bucket),
    });
    this.codeItems = new Repository<StockCode>(db, { type: "StockCode", key: (item) => Keys.stockCode(item.code) });
  }

  async summaries(code: string, period: StoredPeriod, range?: [string, string]): Promise<BucketSummary[]> {
    const items = await this.buckets.queryAll(Keys.candlePartition(code, period), {
      between: range,
      projection: ["bucket", "count", "sessions"],
    });
    return items.map((item) => ({ bucket: item.bucket, count: item.count, sessions: item.sessions }));
  }

  async load(code: string, period: StoredPeriod, buckets: string[]): Promise<Map<string, CandleBatch>> {
    const items = await this.buckets.getMany(buckets.map((bucket) => Keys.candleBucket(code, period, bucket)));
    return new Map(items.map((item) => [item.bucket, CandleBatches.unpack(item.data)]));
  }

  async upsert(code: string, period: StoredPeriod, batch: CandleBatch) {
    const prepared = await this.prepareUpsert(code, period, batch);
    await prepared.commit();
    return { added: prepared.added, overwritten: prepared.overwritten };
  }

  async prepareUpsert(code: string, period: StoredPeriod, batch: CandleBatch): Promise<PreparedUpsert> {
    if (batch.length === 0) return { added: 0, overwritten: 0, commit: async () => {} };
    // The batch is sorted: each bucket is a run of it, found by comparing with the bucket's end.
    const groups = new Map<string, CandleBatch>();
    for (let start = 0; start < batch.length; ) {
      const bucket = Buckets.of(period, batch.timestamp[start]!);
      const end = Buckets.range(period, bucket)[1];
      let index = start + 1;
      while (index < batch.length && batch.timestamp[index]! < end) index++;
      groups.set(bucket, CandleBatches.slice(batch, start, index));
      start = index;
    }
    const existing = await this.buckets.getMany([...groups.keys()].map((bucket) => Keys.candleBucket(code, period, bucket)));
    const stored = new Map(existing.map((item) => [item.bucket, item]));
    const merges = [...groups].map(([bucket, incoming]) => {
      const current = stored.get(bucket);
      const merged = current ? CandleBatches.merge(CandleBatches.unpack(current.data), incoming) : { batch: incoming, added: incoming.length, overwritten: 0 };
      return { bucket, incoming, current, merged: merged.batch, added: merged.added, overwritten: merged.overwritten };
    });
    return {
      added: merges.reduce((sum, merge) => sum + merge.added, 0),
      overwritten: merges.reduce((sum, merge) => sum + merge.overwritten, 0),
      commit: async () => {
        await this.registerCode(code);
        await inParallel(merges, WRITE_CONCURRENCY, async ({ bucket, incoming, current, merged }) => {
          await retrying(async (attempt) => {
            if (attempt > 1) {
              // Someone wrote the bucket since it was read: merge into what is there now.
              current = await this.buckets.get(Keys.candleBucket(code, period, bucket), { consistent: true });
              merged = current ? CandleBatches.merge(CandleBatches.unpack(current.data), incoming).batch : incoming;
            }
            await this.write(code, period, bucket, merged, current);
          }, RACE_RETRY);
        });
      },
    };
  }

  async replace(code: string, period: StoredPeriod, bucket: string, batch: CandleBatch) {
    if (batch.length === 0) {
      await this.buckets.delete(Keys.candleBucket(code, period, bucket));
      return;
    }
    await retrying(async () => {
      const current = await this.buckets.get(Keys.candleBucket(code, period, bucket), { consistent: true });
      await this.write(code, period, bucket, batch, current);
    }, RACE_RETRY);
  }

  async codes(): Promise<string[]> {
    const items = await this.codeItems.queryAll(Keys.stockCodesPartition);
    return items.map((item) => item.code);
  }

  private async write(code: string, period: StoredPeriod, bucket: string, batch: CandleBatch, current?: CandleBucket) {
    const item: CandleBucket = {
      code,
      period,
      bucket,
      count: batch.length,
      sessions: sessionCounts(batch),
      data: CandleBatches.pack(batch),
      version: (current?.version ?? 0) + 1,
    };
    if (current) await this.buckets.replaceIf(item, "version", current.version, staleBucket);
    else await this.buckets.put(item, { ifAbsent: true, conflict: staleBucket });
  }

  private async registerCode(code: string) {
    if (this.knownCodes.has(code)) return;
    await this.codeItems.put({ code });
    this.knownCodes.add(code);
  }
}
