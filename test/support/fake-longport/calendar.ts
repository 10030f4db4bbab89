import { MARKETS, type MarketCode } from "./candles";
import { addDays, compactDate, zonedDate, zonedInstant } from "./clock";
import { TradeSession } from "./messages";

const perMarket = (): Record<MarketCode, Set<string>> => ({ US: new Set(), HK: new Set(), CN: new Set(), SG: new Set() });

/**
 * The trading calendar: weekdays are trading days except the holidays a test adds; half days
 * close early (the SDK asks for them to end a half day's bars at the right time).
 */
export class MarketCalendar {
  /** Market holidays (YYYY-MM-DD). */
  readonly holidays = perMarket();
  /** Market half days (YYYY-MM-DD). */
  readonly halfDays = perMarket();

  isTradingDay(market: MarketCode, date: string): boolean {
    const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
    return weekday !== 0 && weekday !== 6 && !this.holidays[market].has(date);
  }

  isHalfDay(market: MarketCode, ms: number): boolean {
    return this.halfDays[market].has(zonedDate(ms, MARKETS[market].timeZone));
  }

  /** The end of `market`'s last regular session before the day of `ms`. */
  lastClose(market: MarketCode, ms: number): number {
    const { timeZone, sessions } = MARKETS[market];
    let date = addDays(zonedDate(ms, timeZone), -1);
    while (!this.isTradingDay(market, date)) date = addDays(date, -1);
    return zonedInstant(date, sessions[sessions.length - 1][1], timeZone);
  }

  /** QueryMarketTradeDay's answer: the trading days and half days (YYYYMMDD) from `begin` to `end` (YYYY-MM-DD). */
  tradingDays(market: MarketCode, begin: string, end: string): { trade_day: string[]; half_trade_day: string[] } {
    const tradeDay: string[] = [];
    const halfDay: string[] = [];
    for (let date = begin; date <= end; date = addDays(date, 1)) {
      if (!this.isTradingDay(market, date)) continue;
      (this.halfDays[market].has(date) ? halfDay : tradeDay).push(compactDate(date));
    }
    return { trade_day: tradeDay, half_trade_day: halfDay };
  }

  /** QueryMarketTradePeriod's answer: each market's sessions (HHMM, session). */
  tradingSessions(): Record<string, unknown>[] {
    const hhmm = (minutes: number) => Math.floor(minutes / 60) * 100 + (minutes % 60);
    return (Object.keys(MARKETS) as MarketCode[]).map((market) => ({
      market,
      trade_session: [
        ...MARKETS[market].sessions.map(([start, end]) => ({ beg_time: hhmm(start), end_time: hhmm(end), trade_session: TradeSession.normal })),
        ...MARKETS[market].extended.map(([beg, end, session]) => ({ beg_time: beg, end_time: end, trade_session: session })),
      ],
    }));
  }
}
