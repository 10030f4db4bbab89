import { CandleBatches, type BucketSummary, type CandleBatch, type CandleStore, type PreparedUpsert, type StoredPeriod } from "@tp/core/candles/index";
import { inParallel } from "@tp/core/util/in-parallel";
import { Buckets } from "@tp/core/candles/buckets";
import { retrying } from "@tp/core/util/backoff";
import { DomainError } from "@tp/core/errors";
import { TradeSessionByCode, TradeSessionCode, type TradeSession } from "@tp/core/market/trade-session";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transactGroups } from "../dynamo/transactions";
import { CANDLE_CACHE_CANDLES, CandleCache } from "./candle-cache";

interface CandleBucket {
  code: string;
  period: StoredPeriod;
  bucket: string;
  count: number;
  sessions: Partial<Record<TradeSession, number>>;
  /** CandleBatches.pack of the bucket's regular-session candles (`Intraday`); of all its candles in a bucket written before `split`. */
  data: Uint8Array;
  /** CandleBatches.pack of its extended-hours candles (`Pre`, `Post`, `Overnight`), absent when it has none. */
  extended?: Uint8Array;
  /** Its candles are kept apart by session (`data` and `extended`): a regular-session read leaves the extended hours unread. */
  split?: boolean;
  /** Optimistic concurrency: every rewrite requires the version it read. */
  version: number;
}

/** A bucket's counts without its candles: what coverage, totals and pages look at. */
interface CandleSummary {
  code: string;
  period: StoredPeriod;
  bucket: string;
  count: number;
  sessions: Partial<Record<TradeSession, number>>;
  /** The version of the bucket it counts (an emptied bucket's summary counts 0). */
  version: number;
}

/** Marks a symbol and period whose every bucket has its summary item. */
interface SummariesComplete {
  code: string;
  period: StoredPeriod;
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

const INTRADAY = TradeSessionCode.Intraday;
/** What a regular-session read takes of a bucket (DynamoDB returns only these attributes). */
const REGULAR_ATTRIBUTES = ["bucket", "count", "sessions", "data", "split", "version"];

/** Buckets kept as this process last wrote them (a session worker's step writes one per feed: its day's bucket). */
const WRITTEN_BUCKETS = 256;

const bucketKey = (code: string, period: StoredPeriod, bucket: string) => `${code}#${period}#${bucket}`;

/** Every candle of a bucket, in time order. */
function candlesOf(item: CandleBucket): CandleBatch {
  const data = CandleBatches.unpack(item.data);
  return item.extended ? CandleBatches.merge(data, CandleBatches.unpack(item.extended)).batch : data;
}

/** The regular-session candles of a bucket: its `data`, filtered in a bucket written before the sessions were kept apart. */
function regularOf(item: Pick<CandleBucket, "data" | "split" | "count" | "sessions">): CandleBatch {
  const data = CandleBatches.unpack(item.data);
  if (item.split || item.sessions.Intraday === item.count) return data;
  return CandleBatches.filter(data, (index) => data.session[index] === INTRADAY);
}

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
 * retried, so concurrent writers never lose each other's candles. Each bucket's counts are also
 * a small summary item of their own, written after the bucket: coverage checks and totals
 * query those (a year of minute buckets is one query of 25 KB, not 2.5 MB of candles).
 *
 * The buckets this process wrote last are kept, decoded (`written`, the newest `WRITTEN_BUCKETS`):
 * an upsert into one of them (the session worker's step, a bar a minute into today's bucket) merges
 * into what it wrote without reading the bucket again, still conditional on the version it wrote,
 * so a bucket another writer changed since is read and merged as before.
 */
export class DynamoCandleStore implements CandleStore {
  private readonly buckets: Repository<CandleBucket>;
  private readonly summaryItems: Repository<CandleSummary>;
  private readonly completeMarks: Repository<SummariesComplete>;
  private readonly codeItems: Repository<StockCode>;
  private readonly knownCodes = new Set<string>();
  /** Symbols and periods seen with their summaries complete (a marker is never taken back). */
  private readonly knownComplete = new Set<string>();
  /** The buckets this process wrote last, as written and decoded, oldest first (at most `WRITTEN_BUCKETS`). */
  private readonly written = new Map<string, { item: CandleBucket; candles: CandleBatch }>();
  /** Symbols and periods this process has looked at for `markIfNew` (a partition found with buckets is left to `writeSummaries`). */
  private readonly lookedAt = new Set<string>();

  /** Buckets' regular-session candles as last read, by version (`loadBetween`'s regular reads). */
  readonly cache: CandleCache;

  constructor(db: Db, { cacheCandles = CANDLE_CACHE_CANDLES }: { cacheCandles?: number } = {}) {
    this.cache = new CandleCache(cacheCandles);
    this.buckets = new Repository<CandleBucket>(db, {
      type: "CandleBucket",
      key: (item) => Keys.candleBucket(item.code, item.period, item.bucket),
    });
    this.summaryItems = new Repository<CandleSummary>(db, {
      type: "CandleSummary",
      key: (item) => Keys.candleSummary(item.code, item.period, item.bucket),
    });
    this.completeMarks = new Repository<SummariesComplete>(db, {
      type: "CandleSummariesComplete",
      key: (item) => Keys.candleSummariesComplete(item.code, item.period),
    });
    this.codeItems = new Repository<StockCode>(db, { type: "StockCode", key: (item) => Keys.stockCode(item.code) });
  }

  async summaries(code: string, period: StoredPeriod, range?: [string, string]): Promise<BucketSummary[]> {
    const [complete, items] = await Promise.all([
      this.summariesComplete(code, period),
      this.summaryItems.queryAll(Keys.candleSummaryPartition(code, period), { between: range }),
    ]);
    const summaries = complete ? items : await this.writeSummaries(code, period, range);
    // Without a range the marker is among the items: it has no count, as tombstones have none.
    return summaries.filter((item) => item.count > 0).map((item) => ({ bucket: item.bucket, count: item.count, sessions: item.sessions }));
  }

  private async summariesComplete(code: string, period: StoredPeriod): Promise<boolean> {
    const key = `${code}#${period}`;
    if (this.knownComplete.has(key)) return true;
    if (!(await this.completeMarks.get(Keys.candleSummariesComplete(code, period)))) return false;
    this.knownComplete.add(key);
    return true;
  }

  /**
   * Candles stored before summary items existed: writes a summary of every bucket of the symbol
   * and period from their counts (never over a newer one: a write since the read wrote its own),
   * then the marker; answers the summaries inside `range`.
   */
  private async writeSummaries(code: string, period: StoredPeriod, range?: [string, string]): Promise<CandleSummary[]> {
    const counted = await this.buckets.queryAll(Keys.candlePartition(code, period), { projection: ["bucket", "count", "sessions", "version"] });
    const summaries = counted.map((item) => ({ code, period, bucket: item.bucket, count: item.count, sessions: item.sessions, version: item.version }));
    await this.writeSummaryItems(summaries);
    await this.completeMarks.put({ code, period });
    this.knownComplete.add(`${code}#${period}`);
    return range ? summaries.filter((summary) => summary.bucket >= range[0] && summary.bucket <= range[1]) : summaries;
  }

  async load(code: string, period: StoredPeriod, buckets: string[]): Promise<Map<string, CandleBatch>> {
    const items = await this.buckets.getMany(buckets.map((bucket) => Keys.candleBucket(code, period, bucket)));
    return new Map(items.filter((item) => item.count > 0).map((item) => [item.bucket, candlesOf(item)]));
  }

  async loadBetween(code: string, period: StoredPeriod, first: string, last: string, sessions: "all" | "regular" = "all"): Promise<CandleBatch[]> {
    // A query of the range reads its buckets in one pass (DynamoDB Local serves a year of minute
    // buckets this way in a third of the time of BatchGetItem's look-up per key); a regular-session
    // read leaves the extended hours' blocks out of the answer.
    const regular = sessions === "regular";
    if (regular) {
      const cached = await this.cachedBetween(code, period, first, last);
      if (cached) return cached;
    }
    const items = await this.buckets.queryAll(Keys.candlePartition(code, period), {
      between: [first, last],
      consistent: true,
      projection: regular ? REGULAR_ATTRIBUTES : undefined,
    });
    return items
      .filter((item) => item.count > 0)
      .map((item) => {
        if (!regular) return candlesOf(item);
        const batch = regularOf(item);
        this.cache.set(code, period, item.bucket, item.version, batch);
        return batch;
      });
  }

  /**
   * The regular-session candles of the range from the cache, when the buckets' summaries (one query
   * of small items) name for every bucket the version its cached candles were read at; else
   * undefined, and the caller reads the buckets. A summary is written right after its bucket and
   * never over a newer one, so a bucket written since it was cached has a summary of another
   * version by the time its writer answers.
   */
  private async cachedBetween(code: string, period: StoredPeriod, first: string, last: string): Promise<CandleBatch[] | undefined> {
    // Not one of the range's buckets held: the buckets are read at once, without asking their summaries first.
    const candidates = Buckets.between(period, Buckets.range(period, first)[0], Buckets.range(period, last)[1] - 1);
    if (!candidates.some((bucket) => this.cache.holds(code, period, bucket))) return undefined;
    if (!(await this.summariesComplete(code, period))) return undefined;
    const summaries = await this.summaryItems.queryAll(Keys.candleSummaryPartition(code, period), { between: [first, last], consistent: true });
    const batches: CandleBatch[] = [];
    for (const summary of summaries) {
      if (summary.count === 0) continue;
      const batch = this.cache.get(code, period, summary.bucket, summary.version);
      if (!batch) return undefined;
      batches.push(batch);
    }
    return batches;
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
    // The buckets this process wrote last are merged into as it wrote them; the others are read.
    const kept = new Map<string, { item: CandleBucket; candles: CandleBatch }>();
    for (const bucket of groups.keys()) {
      const last = this.written.get(bucketKey(code, period, bucket));
      if (last) kept.set(bucket, last);
    }
    const unknown = [...groups.keys()].filter((bucket) => !kept.has(bucket));
    const existing = unknown.length > 0 ? await this.buckets.getMany(unknown.map((bucket) => Keys.candleBucket(code, period, bucket))) : [];
    const stored = new Map(existing.map((item) => [item.bucket, item]));
    const merges = [...groups].map(([bucket, incoming]) => {
      const last = kept.get(bucket);
      const current = last?.item ?? stored.get(bucket);
      const merged = current ? CandleBatches.merge(last?.candles ?? candlesOf(current), incoming) : { batch: incoming, added: incoming.length, overwritten: 0 };
      return { bucket, incoming, current, merged: merged.batch, added: merged.added, overwritten: merged.overwritten };
    });
    return {
      added: merges.reduce((sum, merge) => sum + merge.added, 0),
      overwritten: merges.reduce((sum, merge) => sum + merge.overwritten, 0),
      commit: async () => {
        await this.registerCode(code);
        await this.markIfNew(code, period);
        const written: CandleSummary[] = [];
        await inParallel(merges, WRITE_CONCURRENCY, async ({ bucket, incoming, current, merged }) => {
          await retrying(async (attempt) => {
            if (attempt > 1) {
              // Someone wrote the bucket since it was read: merge into what is there now.
              current = await this.buckets.get(Keys.candleBucket(code, period, bucket), { consistent: true });
              merged = current ? CandleBatches.merge(candlesOf(current), incoming).batch : incoming;
            }
            written.push(await this.write(code, period, bucket, merged, current));
          }, RACE_RETRY);
        });
        await this.writeSummaryItems(written);
      },
    };
  }

  async replace(code: string, period: StoredPeriod, bucket: string, batch: CandleBatch) {
    // An emptied bucket stays, without candles, so its version (and its summary's) keeps counting up.
    await retrying(async () => {
      const current = await this.buckets.get(Keys.candleBucket(code, period, bucket), { consistent: true });
      if (batch.length > 0 || (current && current.count > 0)) await this.writeSummaryItems([await this.write(code, period, bucket, batch, current)]);
    }, RACE_RETRY);
  }

  async codes(): Promise<string[]> {
    const items = await this.codeItems.queryAll(Keys.stockCodesPartition);
    return items.map((item) => item.code);
  }

  /** Writes a bucket conditionally on the version read; answers its summary, for the caller to write after it. */
  private async write(code: string, period: StoredPeriod, bucket: string, batch: CandleBatch, current?: CandleBucket): Promise<CandleSummary> {
    const [regular, extended] = CandleBatches.partition(batch, (index) => batch.session[index] === INTRADAY);
    const item: CandleBucket = {
      code,
      period,
      bucket,
      count: batch.length,
      sessions: sessionCounts(batch),
      data: CandleBatches.pack(regular),
      ...(extended.length > 0 && { extended: CandleBatches.pack(extended) }),
      split: true,
      version: (current?.version ?? 0) + 1,
    };
    const key = bucketKey(code, period, bucket);
    // Until written, it is not known as this process last wrote it (a lost race reads it again).
    this.written.delete(key);
    if (current) await this.buckets.replaceIf(item, "version", current.version, staleBucket);
    else await this.buckets.put(item, { ifAbsent: true, conflict: staleBucket });
    this.written.set(key, { item, candles: batch });
    if (this.written.size > WRITTEN_BUCKETS) this.written.delete(this.written.keys().next().value!);
    return { code, period, bucket, count: item.count, sessions: item.sessions, version: item.version };
  }

  /**
   * Summaries after their buckets, together in as few transactions as hold them, each never over
   * a later writer's (that one lost its condition and is left). A crash before leaves them one
   * write behind until their buckets' next write (an import task's retry writes them again).
   */
  private async writeSummaryItems(summaries: CandleSummary[]) {
    const written = await transactGroups(
      this.summaryItems.db,
      summaries.map((summary) => [{ put: this.summaryItems.toItem(summary), ifOlder: summary.version }]),
    );
    for (const outcome of written) if (outcome.status === "rejected") throw outcome.reason;
  }

  /**
   * The first write of a symbol and period with no buckets yet marks its summaries complete (there
   * is nothing stored before summaries to count); asked once per process.
   */
  private async markIfNew(code: string, period: StoredPeriod) {
    const key = `${code}#${period}`;
    if (this.lookedAt.has(key)) return;
    this.lookedAt.add(key);
    if (await this.summariesComplete(code, period)) return;
    const any = await this.buckets.query(Keys.candlePartition(code, period), { limit: 1, projection: ["bucket"] });
    if (any.items.length > 0) return;
    await this.completeMarks.put({ code, period });
    this.knownComplete.add(key);
  }

  private async registerCode(code: string) {
    if (this.knownCodes.has(code)) return;
    await this.codeItems.put({ code });
    this.knownCodes.add(code);
  }
}
