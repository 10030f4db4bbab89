import { marketOf, Markets } from "../market/market";
import { isoDateOf, utcToZoned } from "../market/zoned-time";
import type { MarketData } from "../provider/market-data";
import { PERIOD_MS } from "../engine/engine";
import type { Timeframe } from "../strategies/definition";
import type { Bar } from "../strategies/strategy";

/**
 * History for a fresh simulation or live run's strategies (docs/session-worker.md "Warm-up"):
 * the last closed regular-session bars of a symbol and period, from the market data the session
 * trades on, read backwards a window of exchange days at a time.
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
      bars.push({ symbol, timestamp, open: Number(candle.open), high: Number(candle.high), low: Number(candle.low), close: Number(candle.close), volume: candle.volume });
    }
    bars.sort((a, b) => a.timestamp - b.timestamp);
    windows.unshift(bars);
    found += bars.length;
    empty = bars.length === 0 ? empty + 1 : 0;
    end = start - 1;
  }
  return windows.flat().slice(-count);
}
