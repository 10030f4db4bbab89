import { Calendar, type SessionPosition } from "../market/calendar";
import type { TradeSession } from "../market/trade-session";
import { dayNumberOf, MS_PER_MINUTE, type IsoDate } from "../market/zoned-time";
import type { OutsideRth } from "../provider/order-types";
import type { PaperMarket } from "./types";

/**
 * When the paper broker takes and matches orders, from the exchange calendars: which sessions an
 * order trades in, the HK pre-opening window for auction orders, and when day orders end.
 */

const US_EXTENDED: readonly TradeSession[] = ["Pre", "Intraday", "Post"];
const US_OVERNIGHT: readonly TradeSession[] = ["Overnight", "Pre", "Intraday", "Post"];

/**
 * Sessions an order trades in: HK regular hours only; US regular hours unless `outside_rth`
 * says `ANY_TIME` (pre-market and after-hours too) or `OVERNIGHT` (the overnight session too).
 */
export function allowedSessions(market: PaperMarket, outsideRth: OutsideRth | null): TradeSession[] {
  if (market === "HK" || !outsideRth || outsideRth === "RTH_ONLY") return ["Intraday"];
  return [...(outsideRth === "ANY_TIME" ? US_EXTENDED : US_OVERNIGHT)];
}

/** The session running at `now` and its trading date, or null while the market is closed. */
export function sessionAt(market: PaperMarket, now: number, overnight: boolean): SessionPosition | null {
  return Calendar.for(market).sessionAt(now, { overnight: market === "US" && overnight });
}

/** The exchange-local calendar date of an instant. */
export function localDate(market: PaperMarket, now: number): IsoDate {
  return Calendar.for(market).localDateOf(now);
}

/** End (epoch ms) of the last of `sessions` on trading date `date`; null when the date does not trade. */
export function endOfTradingDate(market: PaperMarket, date: IsoDate, sessions: readonly TradeSession[]): number | null {
  const intervals = Calendar.for(market)
    .sessionsOf(date, { overnight: true })
    .filter((s) => sessions.includes(s.session));
  return intervals.length ? intervals[intervals.length - 1].end : null;
}

/** The last trading day on or before `date`, or null when there is none in the tables. */
export function tradingDayOnOrBefore(market: PaperMarket, date: IsoDate): IsoDate | null {
  const calendar = Calendar.for(market);
  return calendar.isTradingDay(date) ? date : calendar.previousTradingDay(date);
}

// HKEX pre-opening session: order input 09:00–09:15, then no changes until the 09:20 random match;
// the auction's price opens the continuous session at 09:30.
const PRE_OPENING_INPUT_FROM_MINUTES = 30;
const PRE_OPENING_INPUT_UNTIL_MINUTES = 15;

/** The HK pre-opening order-input window running at `now` (09:00–09:15 of a trading day), or null. */
export function preOpeningWindow(market: PaperMarket, now: number): { trading_date: IsoDate; opens_at: number } | null {
  if (market !== "HK") return null;
  const calendar = Calendar.for(market);
  const date = calendar.localDateOf(now);
  if (!calendar.covers(dayNumberOf(date)) || !calendar.isTradingDay(date)) return null;
  const opensAt = calendar.sessionsOf(date)[0].start;
  const from = opensAt - PRE_OPENING_INPUT_FROM_MINUTES * MS_PER_MINUTE;
  const until = opensAt - PRE_OPENING_INPUT_UNTIL_MINUTES * MS_PER_MINUTE;
  return now >= from && now < until ? { trading_date: date, opens_at: opensAt } : null;
}
