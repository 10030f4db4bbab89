import { addDays, zonedDate, zonedInstant, zonedParts } from "./clock";

/**
 * Markets, their regular sessions and how a trade's time maps to a candlestick's start, the way
 * the SDK's candlestick builder does it (rust/crates/candlesticks: `Market::candlestick_time`):
 * a minute period counts from the start of the session the trade falls in (so US 60-minute bars
 * start 09:30, 10:30, ...), a day starts at local midnight, a week on Monday, and so on. The fake
 * builds its stored candlesticks with the same rule, so the history it answers and the bars the
 * SDK builds from its pushes line up.
 */

export type MarketCode = "US" | "HK" | "CN" | "SG";

/** [start, end) in minutes after local midnight, and the minutes after `end` whose trades still land on the `end` bar (closing auctions). */
type Session = [number, number, number?];

interface MarketSpec {
  timeZone: string;
  /** Regular (intraday) sessions. */
  sessions: Session[];
  halfDaySessions: Session[];
  /** Extended sessions as the quote protocol's trading-session answer lists them (HHMM, session). */
  extended: [number, number, number][];
}

const hm = (h: number, m = 0) => h * 60 + m;

export const MARKETS: Record<MarketCode, MarketSpec> = {
  US: {
    timeZone: "America/New_York",
    sessions: [[hm(9, 30), hm(16)]],
    halfDaySessions: [[hm(9, 30), hm(13)]],
    extended: [
      [400, 930, 1],
      [1600, 2000, 2],
      [2000, 400, 3],
    ],
  },
  HK: {
    timeZone: "Asia/Hong_Kong",
    sessions: [
      [hm(9, 30), hm(12)],
      [hm(13), hm(16), 10],
    ],
    halfDaySessions: [[hm(9, 30), hm(12), 10]],
    extended: [],
  },
  CN: {
    timeZone: "Asia/Shanghai",
    sessions: [
      [hm(9, 30), hm(11, 30)],
      [hm(13), hm(15), 10],
    ],
    halfDaySessions: [],
    extended: [],
  },
  SG: {
    timeZone: "Asia/Singapore",
    sessions: [
      [hm(9), hm(12)],
      [hm(13), hm(17, 15), 5],
    ],
    halfDaySessions: [[hm(9), hm(12, 15), 5]],
    extended: [],
  },
};

/** The market of a symbol by its suffix (`AAPL.US`, `700.HK`, `600519.SH`, `D05.SG`). */
export function marketOf(symbol: string): MarketCode | undefined {
  const suffix = symbol.slice(symbol.lastIndexOf(".") + 1).toUpperCase();
  if (suffix === "SH" || suffix === "SZ") return "CN";
  return suffix === "US" || suffix === "HK" || suffix === "SG" ? suffix : undefined;
}

/** quote/api.proto `Period` values. */
export const Period = { min1: 1, day: 1000, week: 2000, month: 3000, quarter: 3500, year: 4000 } as const;
const MINUTE_PERIODS = new Set([1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 120, 180, 240]);
export const isKnownPeriod = (period: number) => MINUTE_PERIODS.has(period) || [1000, 2000, 3000, 3500, 4000].includes(period);

/** The start (ms) of the `period` candlestick that a regular-session trade at `ms` belongs to; undefined outside the sessions. */
export function candleStart(market: MarketCode, period: number, ms: number, halfDay = false): number | undefined {
  const spec = MARKETS[market];
  const date = zonedDate(ms, spec.timeZone);
  if (MINUTE_PERIODS.has(period)) {
    const p = zonedParts(ms, spec.timeZone);
    let minute = p.hour * 60 + p.minute;
    const sessions = halfDay ? spec.halfDaySessions : spec.sessions;
    let session = sessions.find(([start, end]) => minute >= start && minute < end);
    // A trade in a session's grace period (HK's closing auction until 16:10) lands on the bar at the session's end.
    const grace = sessions.find(([, end, timeout = 0]) => minute >= end && minute < end + timeout);
    if (!session && grace) [session, minute] = [grace, grace[1]];
    if (!session) return undefined;
    return zonedInstant(date, session[0] + Math.floor((minute - session[0]) / period) * period, spec.timeZone);
  }
  const [year, month] = date.split("-").map(Number);
  switch (period) {
    case Period.day:
      return zonedInstant(date, 0, spec.timeZone);
    case Period.week:
      return zonedInstant(addDays(date, -((zonedParts(ms, spec.timeZone).weekday + 6) % 7)), 0, spec.timeZone);
    case Period.month:
      return zonedInstant(`${year}-${String(month).padStart(2, "0")}-01`, 0, spec.timeZone);
    case Period.quarter:
      return zonedInstant(`${year}-${String(Math.floor((month - 1) / 3) * 3 + 1).padStart(2, "0")}-01`, 0, spec.timeZone);
    case Period.year:
      return zonedInstant(`${year}-01-01`, 0, spec.timeZone);
    default:
      return undefined;
  }
}

export interface Bar {
  /** Start of the bar (ms). */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  turnover: number;
}

export interface Tick {
  price: number;
  volume: number;
  at: number;
  /** LongPort's trade type ("" for a normal trade). */
  tradeType: string;
}

const ALL = { price: true, volume: true };
const VOLUME = { price: false, volume: true };
const NONE = { price: false, volume: false };

/**
 * What a regular-session trade of `tradeType` moves in a bar, by the SDK's table (rust/src/quote/store.rs
 * `merge_trade`): US odd lots ("I") and some conditions add volume only, "M" and "P" nothing; HK
 * "D", "M", "P", "X", "Y" add volume only; any type not listed moves nothing. CN and SG trades move all.
 */
export function tradeMoves(market: MarketCode, tradeType: string): { price: boolean; volume: boolean } {
  if (market === "US") {
    if (["", "A", "B", "D", "E", "F", "K", "S", "X", "1"].includes(tradeType)) return ALL;
    return ["C", "G", "H", "I", "V", "W"].includes(tradeType) ? VOLUME : NONE;
  }
  if (market === "HK") {
    if (tradeType === "" || tradeType === "U") return ALL;
    return ["D", "M", "P", "X", "Y"].includes(tradeType) ? VOLUME : NONE;
  }
  return ALL;
}

/**
 * Bars of `period` from seeded bars and ticks: ticks merge into the bar of their bucket (a seeded
 * one or a new one), in time order, moving what their trade type moves (a volume-only trade opens
 * no bar). Ticks outside the regular sessions make no bar.
 */
export function buildBars(market: MarketCode, period: number, seeded: Bar[], ticks: Tick[], isHalfDay: (ms: number) => boolean): Bar[] {
  const bars = new Map<number, Bar>();
  for (const bar of seeded) bars.set(bar.time, { ...bar });
  for (const tick of [...ticks].sort((a, b) => a.at - b.at)) {
    const time = candleStart(market, period, tick.at, isHalfDay(tick.at));
    if (time === undefined) continue;
    const moves = tradeMoves(market, tick.tradeType);
    const bar = bars.get(time);
    const turnover = tick.price * tick.volume;
    if (!bar) {
      if (moves.price) bars.set(time, { time, open: tick.price, high: tick.price, low: tick.price, close: tick.price, volume: tick.volume, turnover });
      continue;
    }
    if (moves.price) {
      bar.high = Math.max(bar.high, tick.price);
      bar.low = Math.min(bar.low, tick.price);
      bar.close = tick.price;
    }
    if (moves.volume) {
      bar.volume += tick.volume;
      bar.turnover += turnover;
    }
  }
  return [...bars.values()].sort((a, b) => a.time - b.time);
}
