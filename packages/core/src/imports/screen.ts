/**
 * Screening of the provider's candlesticks before they are stored: each becomes a row of a candle
 * batch unless it falls outside the requested window or the exchange's sessions, or its prices and
 * volume are inconsistent (those are counted as filtered). The import worker and the session worker's
 * bars both screen through it.
 */
import { CandleBatches, type CandleBatch, type StoredPeriod } from "../candles/index";
import type { Calendar } from "../market/calendar";
import { TradeSessionCode } from "../market/trade-session";
import type { Candlestick } from "../provider/quote-types";

const PERIOD_SECONDS: Record<StoredPeriod, number> = { "1m": 60, "5m": 300, "1h": 3600, "1d": 86_400 };

/**
 * Converts provider candlesticks to a batch, dropping (and counting) those outside the
 * requested window, outside the exchange's sessions, or with inconsistent values.
 */
export function screenCandles(
  candles: readonly Candlestick[],
  period: StoredPeriod,
  calendar: Calendar,
  window: [number, number],
): { batch: CandleBatch; filtered: number } {
  const batch = CandleBatches.empty(candles.length);
  let kept = 0;
  let filtered = 0;
  // Candles come in time order: the session the last one fell in answers most of the next ones.
  let known: { start: number; end: number } | null = null;
  const inSession = (ms: number) => {
    if (known !== null && ms >= known.start && ms < known.end) return true;
    const session = calendar.sessionAt(ms, { overnight: true });
    if (session !== null) known = session;
    return session !== null;
  };
  for (const candle of candles) {
    const timestamp = Math.floor(Date.parse(candle.timestamp) / 1000);
    if (timestamp < window[0] || timestamp > window[1]) continue;
    const open = Number(candle.open);
    const high = Number(candle.high);
    const low = Number(candle.low);
    const close = Number(candle.close);
    const turnover = Number(candle.turnover);
    const consistent =
      open > 0 &&
      low > 0 &&
      Number.isFinite(high) &&
      Number.isFinite(turnover) &&
      turnover >= 0 &&
      high >= Math.max(open, close) &&
      low <= Math.min(open, close) &&
      Number.isInteger(candle.volume) &&
      candle.volume >= 0;
    const traded =
      period === "1d"
        ? calendar.isTradingDay(calendar.localDateOf(timestamp * 1000))
        : inSession(timestamp * 1000) ||
          // Bars stamped at their close end exactly on a session's end.
          inSession(timestamp * 1000 - PERIOD_SECONDS[period] * 1000);
    if (!consistent || !traded) {
      filtered++;
      continue;
    }
    batch.timestamp[kept] = timestamp;
    batch.open[kept] = open;
    batch.high[kept] = high;
    batch.low[kept] = low;
    batch.close[kept] = close;
    batch.volume[kept] = candle.volume;
    batch.turnover[kept] = turnover;
    batch.session[kept] = TradeSessionCode[candle.trade_session];
    kept++;
  }
  return { batch: CandleBatches.slice(batch, 0, kept), filtered };
}
