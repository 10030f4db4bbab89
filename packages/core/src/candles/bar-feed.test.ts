import { describe, expect, it } from "vitest";
import { Buckets, type StoredPeriod } from "./buckets";
import { CandleBatches, type Candle, type CandleBatch } from "./candle-batch";
import { PriceAdjuster } from "./corporate-actions";
import type { CandleStore } from "./index";
import { TradingEngine } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import { singleStrategySetup } from "../engine/testing/setups";
import { seededRandom } from "../indicators/testing/random-bars";
import type { Bar } from "../strategies/strategy";
import type { Timeframe } from "../strategies/definition";
import { BarFeed } from "./bar-feed";

/** A candle store in memory: the buckets of one symbol's minute candles. */
function memoryStore(candles: Candle[]): CandleStore {
  const buckets = new Map<string, CandleBatch>();
  const byBucket = new Map<string, Candle[]>();
  for (const candle of candles) {
    const bucket = Buckets.of("1m", candle.timestamp);
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), candle]);
  }
  for (const [bucket, list] of byBucket) buckets.set(bucket, CandleBatches.fromCandles(list));
  const unused = () => Promise.reject(new Error("not used"));
  return {
    summaries: unused,
    upsert: unused,
    prepareUpsert: unused,
    loadBetween: async (_code: string, _period: StoredPeriod, first: string, last: string) =>
      [...buckets.keys()]
        .filter((b) => b >= first && b <= last)
        .sort()
        .map((b) => buckets.get(b)!),
  } as unknown as CandleStore;
}

/** Forty days of minute candles with pre-market and after-hours candles around the regular session. */
function candles(): Candle[] {
  const random = seededRandom(5);
  const out: Candle[] = [];
  let close = 100;
  for (let day = 0; day < 40; day++) {
    const date = Date.UTC(2024, 2, 1 + day) / 1000;
    for (let minute = -30; minute < 420; minute++) {
      const open = close;
      close = Math.round((close + (random() - 0.5) * 0.6) * 100) / 100;
      const session = minute < 0 ? "Pre" : minute < 390 ? "Intraday" : "Post";
      out.push({
        timestamp: date + 14.5 * 3600 + minute * 60,
        open,
        high: Math.max(open, close) + 0.02,
        low: Math.min(open, close) - 0.02,
        close,
        volume: 100,
        turnover: 0,
        trade_session: session,
      });
    }
  }
  return out;
}

const setup = singleStrategySetup({
  symbols: ["AAPL.US"],
  timeframe: "1m",
  parameters: { fast_period: 5, slow_period: 20 },
  execution: { commission: { model: "percent", rate: 0.001 } },
});
const feeds = [{ symbol: "AAPL.US", timeframe: "1m" as Timeframe }];
const window: [number, number] = [Date.UTC(2024, 2, 3) / 1000, Date.UTC(2024, 3, 5) / 1000];

/** Runs the whole window in chunks of `chunk` bars, each engine restored from the last snapshot. */
async function chunked(store: CandleStore, chunk: number, columns: boolean) {
  let engine = new TradingEngine(setup);
  let cursor = 0;
  const events: EngineEvent[] = [];
  const results = [];
  for (;;) {
    const feed = new BarFeed(store, feeds, window[0], window[1], cursor);
    const result = await feed.run(chunk, columns ? engine : (bar: Bar, timeframe: Timeframe) => engine.onBar(bar, timeframe));
    results.push(result);
    if (result.done) engine.endDay();
    events.push(...engine.drainEvents());
    if (result.done) return { events, results };
    cursor = result.lastCloseMs!;
    engine = TradingEngine.restore(setup, JSON.parse(JSON.stringify(engine.snapshot())));
  }
}

describe("BarFeed", () => {
  const store = memoryStore(candles());

  it("feeds only regular-session bars inside the window, in order", async () => {
    const seen: number[] = [];
    const result = await new BarFeed(store, feeds, window[0], window[1], 0).run(Number.MAX_SAFE_INTEGER, (bar) => void seen.push(bar.timestamp));
    expect(result.done).toBe(true);
    expect(seen.length).toBe(33 * 390);
    expect(seen.every((t, i) => i === 0 || t > seen[i - 1])).toBe(true);
  });

  for (const chunk of [1_000, 2_345, 390, 100_000]) {
    it(`hands a single feed over as column runs with the events and chunk cuts of bar-by-bar feeding (chunks of ${chunk})`, async () => {
      const bars = await chunked(store, chunk, false);
      const runs = await chunked(store, chunk, true);
      expect(runs.results).toEqual(bars.results);
      expect(runs.events).toEqual(bars.events);
      expect(bars.events.filter((e) => e.type === "order_filled").length).toBeGreaterThan(50);
    });
  }
});

describe("forward-adjusted feeding", () => {
  it("adjusts the bars and the intrabar minutes before an ex-date, leaving the store's batches as stored", async () => {
    const days = ["2024-06-03", "2024-06-04", "2024-06-05", "2024-06-06"];
    const traded = [500, 510, 102, 104];
    const candle = (timestamp: number, close: number): Candle => ({
      timestamp,
      open: close,
      high: close,
      low: close,
      close,
      volume: 100,
      turnover: 0,
      trade_session: "Intraday",
    });
    // Daily bars at New York midnight (EDT: 04:00 UTC), one minute at each day's open (13:30 UTC).
    const stored: Record<string, CandleBatch> = {
      "1d": CandleBatches.fromCandles(days.map((day, i) => candle(Date.parse(`${day}T04:00:00Z`) / 1000, traded[i]!))),
      "1m": CandleBatches.fromCandles(days.map((day, i) => candle(Date.parse(`${day}T13:30:00Z`) / 1000, traded[i]! + 1))),
    };
    const store = { loadBetween: async (_code: string, period: StoredPeriod) => [stored[period]!] } as unknown as CandleStore;
    const minutes: number[] = [];
    const bars: [number, number][] = [];
    const adjuster = new PriceAdjuster([{ symbol: "AAPL.US", ex_date: "2024-06-05", ratio: 0.2 }]);
    const feed = new BarFeed(
      store,
      [{ symbol: "AAPL.US", timeframe: "1d" }],
      Date.parse("2024-06-03T00:00:00Z") / 1000,
      Date.parse("2024-06-07T00:00:00Z") / 1000,
      0,
      undefined,
      (_symbol, columns) => minutes.splice(0, minutes.length, ...Array.from(columns.close)),
      adjuster,
    );
    await feed.run(100, (bar) => void bars.push([bar.close, bar.volume]));
    expect(bars.map(([close, volume]) => [Math.round(close * 1e9) / 1e9, volume])).toEqual([
      [100, 500],
      [102, 500],
      [102, 100],
      [104, 100],
    ]);
    expect(minutes.map((close) => Math.round(close * 1e9) / 1e9)).toEqual([100.2, 102.2, 103, 105]);
    expect(Array.from(stored["1d"]!.close)).toEqual(traded);
  });
});
