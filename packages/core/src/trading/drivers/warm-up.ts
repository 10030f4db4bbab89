import { BarFeed } from "../../candles/bar-feed";
import type { StoredPeriod } from "../../candles/buckets";
import type { PriceAdjuster } from "../../candles/corporate-actions";
import type { CandleStore } from "../../candles/index";
import { Calendar } from "../../market/calendar";
import { marketOf, Markets } from "../../market/market";
import { dayNumberOf, isoDateOf, utcToZoned, zonedTimeToUtc } from "../../market/zoned-time";
import type { MarketData } from "../../provider/market-data";
import { PERIOD_MS, type TradingEngine, type WarmupNeed } from "../../engine/engine";
import type { Timeframe } from "../../strategies/definition";
import type { Bar } from "../../strategies/strategy";

/**
 * History for a fresh run's strategies. A simulation or live run reads the last closed
 * regular-session bars from the market data the session trades on, backwards a window of
 * exchange days at a time (docs/session-worker.md "Warm-up"); a run over stored candles (a
 * replay, a historical MTF session, a backtest with `execution.warm_up`) reads the stored bars
 * before its range (docs/mtf-and-replay.md "Warm-up").
 */

/** Exchange days per history call: at most about 1,000 bars of any session mix (LongPort's most per call). */
const WINDOW_DAYS: Readonly<Record<Timeframe, number>> = { "1m": 1, "5m": 4, "1h": 40, "1d": 900 };
/** Empty windows (weekends, holidays, a symbol that stopped trading) tolerated before giving up on more. */
const EMPTY_WINDOWS = 7;

/**
 * The last `count` bars of `symbol` and `timeframe` that closed at or before `beforeMs`, oldest
 * first (fewer when the market has fewer): regular-session candles as the session worker feeds
 * them (open time as timestamp, unadjusted prices).
 */
export async function recentBars(data: MarketData, symbol: string, timeframe: Timeframe, count: number, beforeMs: number): Promise<Bar[]> {
  if (count <= 0) return [];
  const periodMs = PERIOD_MS[timeframe];
  const windowDays = WINDOW_DAYS[timeframe];
  const windows: Bar[][] = [];
  let found = 0;
  let empty = 0;
  let end = utcToZoned(Markets[marketOf(symbol)].timeZone, beforeMs).dayNumber;
  while (found < count && empty < EMPTY_WINDOWS) {
    const start = end - windowDays + 1;
    const candles = await data.historyCandlesticksByDate(symbol, timeframe, "NoAdjust", isoDateOf(start), isoDateOf(end), "Intraday");
    const bars: Bar[] = [];
    for (const candle of candles) {
      const timestamp = Date.parse(candle.timestamp);
      if (candle.trade_session !== "Intraday" || timestamp + periodMs > beforeMs) continue;
      bars.push({
        symbol,
        timestamp,
        open: Number(candle.open),
        high: Number(candle.high),
        low: Number(candle.low),
        close: Number(candle.close),
        volume: candle.volume,
      });
    }
    bars.sort((a, b) => a.timestamp - b.timestamp);
    windows.unshift(bars);
    found += bars.length;
    empty = bars.length === 0 ? empty + 1 : 0;
    end = start - 1;
  }
  return windows.flat().slice(-count);
}

/** Regular-session bars of a period on the shortest trading day (a US half day, 3.5 hours): how many days warm-up history spans at most. */
const BARS_PER_SHORT_DAY: Record<StoredPeriod, number> = { "1m": 210, "5m": 42, "1h": 3, "1d": 1 };

/**
 * Each feed's warm-up need and where its stored history starts (UNIX seconds): enough trading
 * days before the window for the bars its strategies want.
 */
export function warmupWindows(engine: TradingEngine, windowStart: number): { need: WarmupNeed; from: number }[] {
  return engine.warmupNeeds().map((need) => {
    const calendar = Calendar.for(marketOf(need.symbol));
    let day: string = calendar.localDateOf(windowStart * 1000);
    for (let days = Math.ceil(need.bars / BARS_PER_SHORT_DAY[need.timeframe as StoredPeriod]); days > 0; days--) {
      const previous = calendar.previousTradingDay(day);
      if (previous === null) break;
      day = previous;
    }
    return { need, from: Math.min(windowStart, zonedTimeToUtc(calendar.timeZone, dayNumberOf(day), 0) / 1000) };
  });
}

/**
 * Warms `engine`'s strategies up on the stored regular-session bars before `windowStart` (UNIX
 * seconds) that each of its feeds wants; fewer where fewer are stored (the warm-up's log line
 * says how many). Its events are the engine's to drain. A backtest's `adjust` forward-adjusts them
 * as its bars are (docs/backtests.md "Prices and corporate actions").
 */
export async function warmUpFromStore(candles: CandleStore, engine: TradingEngine, windowStart: number, adjust?: PriceAdjuster): Promise<void> {
  for (const { need, from } of warmupWindows(engine, windowStart)) {
    const bars: Bar[] = [];
    await new BarFeed(candles, [need], from, windowStart - 1, 0, undefined, undefined, adjust).run(
      Number.MAX_SAFE_INTEGER,
      (bar) => void bars.push({ ...bar }),
    );
    engine.warmUp(need, bars.slice(-need.bars));
  }
}
