import { z } from "zod";
import { ValidationError, forbidden, notFound, type ValidationIssue } from "../errors";
import type { Actor } from "../users";
import { TradeSession } from "../market/trade-session";
import { TradeSessionCode } from "../market/trade-session";
import { DateInput, Instants, TimeZone } from "../util/time";
import { Buckets, StoredPeriod, StoredPeriods } from "./buckets";
import { CandleBatches, type Candle, type CandleBatch } from "./candle-batch";

export { Buckets, StoredPeriod, StoredPeriods } from "./buckets";
export { CandleBatches, type Candle, type CandleBatch } from "./candle-batch";

const Symbol = z
  .string()
  .trim()
  .min(1)
  .max(32)
  .regex(/^[A-Za-z0-9.]+$/, "letters, digits and '.' only (LongPort format such as 700.HK or AAPL.US)")
  .transform((code) => code.toUpperCase());

/** A stored candle. Prices stay numbers (as the interface says); `timestamp` is UNIX seconds. */
export const StockData = z
  .object({
    code: z.string(),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number().int(),
    turnover: z.number(),
    timestamp: z.number().int(),
    trade_session: TradeSession,
  })
  .meta({ id: "StockData" });
export type StockData = z.infer<typeof StockData>;

const price = z.number().positive().finite();
const pricesParsed = (payload: { value: unknown }) =>
  ["open", "high", "low", "close"].every((field) => {
    const value = (payload.value as Record<string, unknown> | null)?.[field];
    return typeof value === "number" && value > 0 && Number.isFinite(value);
  });

export const StockDataCreate = z
  .object({
    code: Symbol,
    open: price,
    high: price,
    low: price,
    close: price,
    volume: z.number().int().nonnegative(),
    turnover: z.number().nonnegative().finite(),
    timestamp: z.number().int().nonnegative(),
    trade_session: TradeSession,
    /** An addition to the interface: which period the candle belongs to (default 1h, the list default). */
    period: StoredPeriod.default("1h"),
  })
  // `when` lets the OHLC checks run even if another field (volume, say) failed, so one 422 lists every problem.
  .refine((candle) => candle.high >= Math.max(candle.open, candle.close), {
    path: ["high"],
    message: "high must be at least open and close",
    when: pricesParsed,
  })
  .refine((candle) => candle.low <= Math.min(candle.open, candle.close), {
    path: ["low"],
    message: "low must be at most open and close",
    when: pricesParsed,
  })
  .refine((candle) => candle.high >= candle.low, { path: ["low"], message: "low must not exceed high", when: pricesParsed })
  .meta({ id: "StockDataCreate" });
export type StockDataCreate = z.infer<typeof StockDataCreate>;

export const SortField = z.enum(["timestamp", "open", "high", "low", "close", "volume", "turnover"]);
export const MAX_PAGE_SIZE = 1000;
/** Sorting by a field other than timestamp reads the whole range; above this it must be narrowed. */
export const MAX_SORTED_CANDLES = 200_000;

export const StockDataQuery = z.object({
  code: Symbol.optional(),
  start_date: DateInput.optional(),
  end_date: DateInput.optional(),
  trade_session: TradeSession.optional(),
  period: StoredPeriod.default("1h"),
  sort_by: SortField.default("timestamp"),
  sort_order: z.enum(["asc", "desc"]).default("asc"),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(100),
  timezone: TimeZone.default("UTC"),
});
export type StockDataQuery = z.infer<typeof StockDataQuery>;

export const StockDataResponse = z
  .object({
    data: z.array(StockData),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    total_pages: z.number().int(),
  })
  .meta({ id: "StockDataResponse" });

export const StockDataDeleteQuery = z.object({
  start_date: DateInput,
  end_date: DateInput,
  period: StoredPeriod.optional(),
  timezone: TimeZone.default("UTC"),
});

/** What one bucket item holds, without its candles: enough to count exactly and plan a page. */
export interface BucketSummary {
  bucket: string;
  count: number;
  /** Candles per TradeSession. */
  sessions: Partial<Record<TradeSession, number>>;
}

/** An upsert whose counts are known before it writes. */
export interface PreparedUpsert {
  added: number;
  overwritten: number;
  commit(): Promise<void>;
}

/** Storage port for candles, kept in buckets (see `Buckets`). */
export interface CandleStore {
  /** Bucket summaries of one symbol and period between two buckets (inclusive), in order. */
  summaries(code: string, period: StoredPeriod, range?: [string, string]): Promise<BucketSummary[]>;
  /** The candles of the given buckets (missing buckets are absent from the map). */
  load(code: string, period: StoredPeriod, buckets: string[]): Promise<Map<string, CandleBatch>>;
  /**
   * The candles of every stored bucket from `first` to `last` (inclusive), in order: one range read,
   * not a look-up per bucket. `regular`: only the regular-session (`Intraday`) candles, without
   * reading the extended hours' (what backtests feed).
   */
  loadBetween(code: string, period: StoredPeriod, first: string, last: string, sessions?: "all" | "regular"): Promise<CandleBatch[]>;
  /** Merges candles (of any buckets) into storage: an existing timestamp is overwritten. */
  upsert(code: string, period: StoredPeriod, batch: CandleBatch): Promise<{ added: number; overwritten: number }>;
  /**
   * Reads the buckets a batch touches once and says how many candles are new and how many
   * would overwrite, before anything is written; `commit` then writes the merge (re-reading a
   * bucket only if someone changed it meanwhile).
   */
  prepareUpsert(code: string, period: StoredPeriod, batch: CandleBatch): Promise<PreparedUpsert>;
  /** Replaces one bucket's candles; an empty batch deletes the bucket. */
  replace(code: string, period: StoredPeriod, bucket: string, batch: CandleBatch): Promise<void>;
  /** Every symbol with stored candles. */
  codes(): Promise<string[]>;
}

interface Range {
  start: number;
  end: number;
}

function rangeOf(start: string | undefined, end: string | undefined, timeZone: string): Range {
  const range = {
    start: start ? Instants.parseSeconds(start, timeZone) : 0,
    end: end ? Instants.parseSeconds(end, timeZone, { endOfDay: true }) : 8_640_000_000_000,
  };
  if (range.start > range.end) {
    throw new ValidationError([{ loc: ["query", "end_date"], msg: "end_date is before start_date", type: "value_error" }]);
  }
  return range;
}

function bucketRange(period: StoredPeriod, range: Range): [string, string] {
  const last = Math.min(range.end, 253_402_300_799); // 9999-12-31T23:59:59Z
  return [Buckets.of(period, Math.max(0, range.start)), Buckets.of(period, last)];
}

function covers(period: StoredPeriod, bucket: string, range: Range) {
  const [start, end] = Buckets.range(period, bucket);
  return start >= range.start && end - 1 <= range.end;
}

/** The candles of a batch inside the range and session. */
function select(batch: CandleBatch, range: Range, session?: TradeSession): CandleBatch {
  const code = session === undefined ? -1 : TradeSessionCode[session];
  const from = CandleBatches.lowerBound(batch, range.start);
  const to = CandleBatches.lowerBound(batch, range.end + 1);
  const inRange = CandleBatches.slice(batch, from, to);
  return code < 0 ? inRange : CandleBatches.filter(inRange, (index) => inRange.session[index] === code);
}

const toStockData = (code: string, candle: Candle): StockData => ({ code, ...candle });

export const Candles = {
  /**
   * Upserts one candle (keyed by code, period and timestamp). Candles are shared by every user:
   * adding one is open, overwriting a stored one is for administrators (403 otherwise).
   */
  async create(store: CandleStore, input: StockDataCreate, actor: Actor) {
    const { period, code, ...candle } = input;
    const prepared = await store.prepareUpsert(code, period, CandleBatches.fromCandles([candle]));
    if (prepared.overwritten > 0 && actor.user_type !== "admin") {
      throw forbidden(`A ${period} candle of ${code} at ${candle.timestamp} is stored already; overwriting shared candles is for administrators`);
    }
    await prepared.commit();
    const added = prepared.added;
    return {
      success: true,
      message: added ? "Candle created" : "Candle overwritten",
      created: added === 1,
      period,
      data: toStockData(code, candle),
    };
  },

  /** Candles of one symbol and period in [fromSeconds, toSeconds], in time order: what backtests read. */
  async read(store: CandleStore, code: string, period: StoredPeriod, fromSeconds: number, toSeconds: number): Promise<CandleBatch> {
    const range = { start: fromSeconds, end: toSeconds };
    const [first, last] = bucketRange(period, range);
    const batches = await store.loadBetween(code, period, first, last);
    return CandleBatches.concat(batches.map((batch) => select(batch, range, undefined)));
  },

  /** One page of candles with exact totals, reading only the buckets the page needs. */
  async list(store: CandleStore, query: StockDataQuery) {
    const range = rangeOf(query.start_date, query.end_date, query.timezone);
    const codes = query.code ? [query.code] : await store.codes();
    const descending = query.sort_order === "desc";
    // Plan: every bucket in range with its exact matching count (only the two edge buckets are decoded).
    const plan: { code: string; bucket: string; count: number; batch?: CandleBatch }[] = [];
    for (const code of codes) {
      const summaries = await store.summaries(code, query.period, bucketRange(query.period, range));
      const edges = summaries.filter((summary) => !covers(query.period, summary.bucket, range));
      const edgeBatches = await store.load(
        code,
        query.period,
        edges.map((edge) => edge.bucket),
      );
      for (const summary of summaries) {
        const edge = edgeBatches.get(summary.bucket);
        if (edge) {
          const batch = select(edge, range, query.trade_session);
          plan.push({ code, bucket: summary.bucket, count: batch.length, batch });
        } else {
          const count = query.trade_session ? (summary.sessions[query.trade_session] ?? 0) : summary.count;
          plan.push({ code, bucket: summary.bucket, count });
        }
      }
    }
    const total = plan.reduce((sum, entry) => sum + entry.count, 0);
    const offset = (query.page - 1) * query.page_size;
    const totalPages = Math.ceil(total / query.page_size);
    const page = { total, page: query.page, page_size: query.page_size, total_pages: totalPages };

    const materialise = async (entries: typeof plan) => {
      const byCode = new Map<string, typeof plan>();
      for (const entry of entries) if (!entry.batch) byCode.set(entry.code, [...(byCode.get(entry.code) ?? []), entry]);
      for (const [code, missing] of byCode) {
        const loaded = await store.load(
          code,
          query.period,
          missing.map((entry) => entry.bucket),
        );
        for (const entry of missing) entry.batch = select(loaded.get(entry.bucket) ?? CandleBatches.empty(), range, query.trade_session);
      }
      return entries.flatMap((entry) =>
        Array.from({ length: entry.batch!.length }, (_, index) => toStockData(entry.code, CandleBatches.get(entry.batch!, index))),
      );
    };

    if (query.sort_by !== "timestamp") {
      if (total > MAX_SORTED_CANDLES) {
        throw new ValidationError([
          {
            loc: ["query", "sort_by"],
            msg: `sorting by ${query.sort_by} reads the whole range: narrow it to at most ${MAX_SORTED_CANDLES} candles (found ${total})`,
            type: "value_error",
          },
        ]);
      }
      const all = await materialise(plan.filter((entry) => entry.count > 0));
      const field = query.sort_by;
      all.sort((a, b) => (a[field] - b[field] || a.timestamp - b.timestamp || a.code.localeCompare(b.code)) * (descending ? -1 : 1));
      return { ...page, data: all.slice(offset, offset + query.page_size) };
    }

    // Time order: walk buckets, skipping whole ones by count, and load only the page's buckets.
    const ordered = descending ? [...plan].reverse() : plan;
    let skip = offset;
    const needed: { entry: (typeof plan)[number]; skip: number }[] = [];
    let remaining = query.page_size;
    for (const entry of ordered) {
      if (remaining <= 0) break;
      if (skip >= entry.count) {
        skip -= entry.count;
        continue;
      }
      needed.push({ entry, skip });
      remaining -= entry.count - skip;
      skip = 0;
    }
    await materialise(needed.map((item) => item.entry));
    const data: StockData[] = [];
    for (const { entry, skip: from } of needed) {
      const batch = entry.batch!;
      const indexes = Array.from({ length: batch.length }, (_, index) => (descending ? batch.length - 1 - index : index));
      for (const index of indexes.slice(from)) {
        if (data.length >= query.page_size) break;
        data.push(toStockData(entry.code, CandleBatches.get(batch, index)));
      }
    }
    return { ...page, data };
  },

  /**
   * One candle by code and timestamp. With `period` only that period is searched; otherwise the
   * finest stored period that has a candle at exactly that time answers (1m, then 5m, 1h, 1d).
   */
  async get(store: CandleStore, code: string, timestamp: number, period?: StoredPeriod) {
    for (const candidate of period ? [period] : StoredPeriods) {
      const bucket = Buckets.of(candidate, timestamp);
      const batch = (await store.load(code, candidate, [bucket])).get(bucket);
      if (!batch) continue;
      const index = CandleBatches.lowerBound(batch, timestamp);
      if (index < batch.length && batch.timestamp[index] === timestamp) {
        return { ...toStockData(code, CandleBatches.get(batch, index)), period: candidate };
      }
    }
    throw notFound("CANDLE_NOT_FOUND", `No candle for ${code} at ${timestamp}${period ? ` (${period})` : ""}`);
  },

  /** Deletes the candles of a date range, for one period or all; answers how many went. */
  async remove(store: CandleStore, code: string, query: z.infer<typeof StockDataDeleteQuery>) {
    const range = rangeOf(query.start_date, query.end_date, query.timezone);
    const deletedByPeriod: Partial<Record<StoredPeriod, number>> = {};
    for (const period of query.period ? [query.period] : StoredPeriods) {
      const summaries = await store.summaries(code, period, bucketRange(period, range));
      let deleted = 0;
      const partial = summaries.filter((summary) => !covers(period, summary.bucket, range));
      const loaded = await store.load(
        code,
        period,
        partial.map((summary) => summary.bucket),
      );
      for (const summary of summaries) {
        const batch = loaded.get(summary.bucket);
        if (!batch) {
          deleted += summary.count;
          await store.replace(code, period, summary.bucket, CandleBatches.empty());
          continue;
        }
        const kept = CandleBatches.filter(batch, (index) => batch.timestamp[index]! < range.start || batch.timestamp[index]! > range.end);
        if (kept.length === batch.length) continue;
        deleted += batch.length - kept.length;
        await store.replace(code, period, summary.bucket, kept);
      }
      deletedByPeriod[period] = deleted;
    }
    const total = Object.values(deletedByPeriod).reduce((sum, count) => sum + count, 0);
    return {
      success: true,
      message: `Deleted ${total} candles of ${code}`,
      code,
      deleted_count: total,
      deleted_by_period: deletedByPeriod,
    };
  },

  /** Issues for candles that break OHLC consistency (for imports that filter rather than fail). */
  problems(candle: Candle): ValidationIssue[] {
    const parsed = StockDataCreate.safeParse({ ...candle, code: "X", period: "1m" });
    return parsed.success ? [] : parsed.error.issues.map((issue) => ({ loc: issue.path.map(String), msg: issue.message, type: issue.code }));
  },
};
