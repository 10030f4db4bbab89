import { TradeSessionByCode, TradeSessionCode, type TradeSession } from "@tp/core/market/trade-session";
import type { CalcIndex } from "@tp/core/provider/quote-enums";
import { CalcIndexField, DERIVATIVE_CALC_INDEXES } from "@tp/core/provider/quote-enums";
import type {
  Candlestick,
  Depth,
  IntradayLine,
  PrePostQuote,
  PushQuote,
  RealtimeQuote,
  SecurityCalcIndex,
  SecurityDepth,
  SecurityQuote,
  SecurityStaticInfo,
  Trade,
} from "@tp/core/provider/quote-types";
import { MASK_INTRADAY, type MarketTimeline, type MinutePosition } from "./day-layout";
import { mixKeys, KeyedRandom } from "./random";
import { splitLots, type SimulatedBarColumns, type InstrumentState, type SimulationEngine } from "./simulation-engine";
import type { InstrumentSpec } from "./universe";

/**
 * Turns engine state into LongPort-shaped JSON: quotes, depth, trades, intraday lines,
 * candlesticks and calc indexes. Everything here reads the same minute bars, which is what
 * keeps a quote, the last 1-minute close and the last trade equal at every instant.
 */

const MS_PER_MINUTE = 60_000;

/** Price as LongPort prints it: three decimals (four for US prices under $1). */
export function formatPrice(spec: InstrumentSpec, price: number): string {
  return price.toFixed(spec.market === "US" && price < 1 ? 4 : 3);
}

/** Money (turnover, market value) with three decimals. */
export function formatMoney(value: number): string {
  return value.toFixed(3);
}

/** A percentage with two decimals, or null when undefined (no base). */
function formatRate(value: number): string | null {
  return Number.isFinite(value) ? value.toFixed(2) : null;
}

let isoDay = Number.NaN;
let isoPrefix = "";
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * ISO 8601 UTC string of an instant, as `Date#toISOString` gives it. Hot paths format thousands
 * of timestamps of the same day, so the date part is cached and only the time is assembled.
 */
export function isoOf(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  if (day !== isoDay) {
    isoDay = day;
    isoPrefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  let rest = ms - day * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${isoPrefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}

/** Reference data of an instrument. */
export function staticInfoOf(spec: InstrumentSpec): SecurityStaticInfo {
  return {
    symbol: spec.symbol,
    name_cn: spec.nameCn,
    name_en: spec.nameEn,
    name_hk: spec.nameHk,
    exchange: spec.exchange,
    currency: spec.currency,
    lot_size: spec.lotSize,
    total_shares: spec.totalShares,
    circulating_shares: spec.circulatingShares,
    hk_shares: spec.hkShares,
    eps: spec.eps.toFixed(4),
    eps_ttm: spec.epsTtm.toFixed(4),
    bps: spec.bps.toFixed(4),
    dividend_yield: spec.dividendPerShare.toFixed(4),
    stock_derivatives: [...spec.derivatives],
    board: spec.board,
  };
}

/** A session's state at its last completed minute. */
export interface SessionState {
  position: MinutePosition;
  session: TradeSession;
  last: number;
  open: number;
  high: number;
  low: number;
  volume: number;
  turnover: number;
  /** End of the last completed minute (ms): the time of the latest price. */
  timestamp: number;
  /** Close of the regular session before this session. */
  prevClose: number;
}

/** The state of the session that minute `position` belongs to, as of that minute. */
export function sessionStateAt(engine: SimulationEngine, instrument: InstrumentState, position: MinutePosition): SessionState {
  const timeline = instrument.timeline;
  const day = engine.day(instrument, position.ordinal);
  const k = position.index;
  const code = day.layout.shape.session[k];
  const first = day.layout.shape.sessionFirst[code];
  const prevClose =
    code === TradeSessionCode.Post
      ? engine.intradayClose(instrument, position.ordinal)
      : position.ordinal > 0
        ? engine.intradayClose(instrument, position.ordinal - 1)
        : day.open[0];
  return {
    position,
    session: TradeSessionByCode[code],
    last: day.close[k],
    open: day.open[first],
    high: day.runHigh[k],
    low: day.runLow[k],
    volume: day.runVolume[k],
    turnover: day.runTurnover[k],
    timestamp: timeline.minuteStart(day.layout, k) + MS_PER_MINUTE,
    prevClose,
  };
}

/** State of the latest session in `mask` with a completed minute at `t`, or null before any. */
export function latestSessionState(engine: SimulationEngine, instrument: InstrumentState, t: number, mask: number): SessionState | null {
  const position = instrument.timeline.lastInMask(t, mask);
  return position ? sessionStateAt(engine, instrument, position) : null;
}

function prePostQuote(spec: InstrumentSpec, state: SessionState | null): PrePostQuote | null {
  if (!state) return null;
  return {
    last_done: formatPrice(spec, state.last),
    timestamp: isoOf(state.timestamp),
    volume: state.volume,
    turnover: formatMoney(state.turnover),
    high: formatPrice(spec, state.high),
    low: formatPrice(spec, state.low),
    prev_close: formatPrice(spec, state.prevClose),
  };
}

/** Snapshot quote: the regular session's latest state plus US pre, post and (when enabled) overnight quotes. */
export function securityQuoteOf(engine: SimulationEngine, instrument: InstrumentState, regular: SessionState, t: number, overnight: boolean): SecurityQuote {
  const spec = instrument.spec;
  const us = spec.market === "US";
  return {
    symbol: spec.symbol,
    last_done: formatPrice(spec, regular.last),
    prev_close: formatPrice(spec, regular.prevClose),
    open: formatPrice(spec, regular.open),
    high: formatPrice(spec, regular.high),
    low: formatPrice(spec, regular.low),
    timestamp: isoOf(regular.timestamp),
    volume: regular.volume,
    turnover: formatMoney(regular.turnover),
    trade_status: "Normal",
    pre_market_quote: us ? prePostQuote(spec, latestSessionState(engine, instrument, t, 1 << TradeSessionCode.Pre)) : null,
    post_market_quote: us ? prePostQuote(spec, latestSessionState(engine, instrument, t, 1 << TradeSessionCode.Post)) : null,
    overnight_quote: us && overnight && spec.overnight ? prePostQuote(spec, latestSessionState(engine, instrument, t, 1 << TradeSessionCode.Overnight)) : null,
  };
}

/** The regular-session quote in the shape `realtimeQuote` answers. */
export function realtimeQuoteOf(spec: InstrumentSpec, regular: SessionState): RealtimeQuote {
  return {
    symbol: spec.symbol,
    last_done: formatPrice(spec, regular.last),
    open: formatPrice(spec, regular.open),
    high: formatPrice(spec, regular.high),
    low: formatPrice(spec, regular.low),
    timestamp: isoOf(regular.timestamp),
    volume: regular.volume,
    turnover: formatMoney(regular.turnover),
    trade_status: "Normal",
  };
}

/** A pushed quote for the session of the latest new minute. */
export function pushQuoteOf(spec: InstrumentSpec, state: SessionState, currentVolume: number, currentTurnover: number): PushQuote {
  return {
    last_done: formatPrice(spec, state.last),
    open: formatPrice(spec, state.open),
    high: formatPrice(spec, state.high),
    low: formatPrice(spec, state.low),
    timestamp: isoOf(state.timestamp),
    volume: state.volume,
    turnover: formatMoney(state.turnover),
    trade_status: "Normal",
    trade_session: state.session,
    current_volume: currentVolume,
    current_turnover: formatMoney(currentTurnover),
  };
}

/**
 * Five levels a side around the last price of minute `position`: the best bid at the last
 * price, the best ask one tick above, each further level one tick out. Sizes are whole lots
 * (round lots of 100 shares in the US), deterministic per minute.
 */
export function depthAt(engine: SimulationEngine, instrument: InstrumentState, position: MinutePosition | null): SecurityDepth {
  if (!position) return { asks: [], bids: [] };
  const spec = instrument.spec;
  const day = engine.day(instrument, position.ordinal);
  const last = day.close[position.index];
  const table = day.tickTable;
  const unit = spec.market === "US" ? 100 : spec.lotSize;
  const rng = new KeyedRandom(mixKeys(mixKeys(instrument.seed, position.ordinal + 0x5eed), position.index));
  const level = (price: number, depth: number): Depth => {
    const lots = 1 + Math.floor(rng.uniform() * (8 + 6 * depth));
    return { position: depth, price: formatPrice(spec, price), volume: lots * unit, order_num: 1 + Math.floor(rng.uniform() * Math.min(lots, 12)) };
  };
  const asks: Depth[] = [];
  const bids: Depth[] = [];
  for (let depth = 1; depth <= 5; depth++) {
    asks.push(level(table.up(last, depth), depth));
    bids.push(level(table.down(last, depth - 1), depth));
  }
  return { asks, bids };
}

/** The position of the minute before `position` whose session is in `mask`, or null at the start of the tables. */
export function previousMinute(timeline: MarketTimeline, position: MinutePosition, mask: number): MinutePosition | null {
  let { ordinal, index } = position;
  for (;;) {
    index--;
    if (index < 0) {
      ordinal--;
      if (ordinal < 0) return null;
      index = timeline.layout(ordinal).shape.n - 1;
    }
    if (mask & (1 << timeline.layout(ordinal).shape.session[index])) return { ordinal, index };
  }
}

const lotBuffer = new Int32Array(4);
const TRADE_OFFSETS_MS = [5_000, 20_000, 40_000, 55_000];

/** The four trades of each listed minute, oldest first: open, the two extremes, close. */
export function tradesOfMinutes(engine: SimulationEngine, instrument: InstrumentState, minutes: readonly MinutePosition[]): Trade[] {
  const spec = instrument.spec;
  const timeline = instrument.timeline;
  const trades: Trade[] = [];
  let previousPrice = Number.NaN;
  for (const position of minutes) {
    const day = engine.day(instrument, position.ordinal);
    const k = position.index;
    const o = day.open[k];
    const h = day.high[k];
    const l = day.low[k];
    const c = day.close[k];
    splitLots(day.volume[k] / spec.lotSize, day.split[k], lotBuffer);
    const prices = c >= o ? [o, l, h, c] : [o, h, l, c];
    const start = timeline.minuteStart(day.layout, k);
    const session = TradeSessionByCode[day.layout.shape.session[k]];
    if (Number.isNaN(previousPrice)) previousPrice = o;
    for (let i = 0; i < 4; i++) {
      const price = prices[i];
      trades.push({
        price: formatPrice(spec, price),
        volume: lotBuffer[i] * spec.lotSize,
        timestamp: isoOf(start + TRADE_OFFSETS_MS[i]),
        trade_type: "",
        direction: price > previousPrice ? "Up" : price < previousPrice ? "Down" : "Neutral",
        trade_session: session,
      });
      previousPrice = price;
    }
  }
  return trades;
}

/**
 * Up to `count` most recent minutes in `mask` up to and including `last` and, when `after` is
 * given, strictly after it; oldest first.
 */
export function recentMinutes(
  timeline: MarketTimeline,
  last: MinutePosition | null,
  mask: number,
  count: number,
  after: MinutePosition | null = null,
): MinutePosition[] {
  const minutes: MinutePosition[] = [];
  let position = last;
  while (position && minutes.length < count) {
    if (after && (position.ordinal < after.ordinal || (position.ordinal === after.ordinal && position.index <= after.index))) break;
    minutes.push(position);
    position = previousMinute(timeline, position, mask);
  }
  return minutes.reverse();
}

/** Minute lines of the trading day of `last`, from its first minute in `mask` up to `last`. */
export function intradayLinesOf(engine: SimulationEngine, instrument: InstrumentState, last: MinutePosition | null, mask: number): IntradayLine[] {
  if (!last) return [];
  const spec = instrument.spec;
  const day = engine.day(instrument, last.ordinal);
  const sessions = day.layout.shape.session;
  const lines: IntradayLine[] = [];
  let volume = 0;
  let turnover = 0;
  for (let k = 0; k <= last.index; k++) {
    if (!(mask & (1 << sessions[k]))) continue;
    volume += day.volume[k];
    turnover += day.turnover[k];
    lines.push({
      price: formatPrice(spec, day.close[k]),
      timestamp: isoOf(instrument.timeline.minuteStart(day.layout, k)),
      volume: day.volume[k],
      turnover: formatMoney(day.turnover[k]),
      avg_price: (turnover / volume).toFixed(3),
    });
  }
  return lines;
}

/** Candlesticks as JSON, rows `from` to the end of the columns. */
export function candlesticksOf(spec: InstrumentSpec, bars: SimulatedBarColumns, from = 0): Candlestick[] {
  const out: Candlestick[] = new Array(Math.max(0, bars.length - from));
  for (let i = from; i < bars.length; i++) out[i - from] = candlestickAt(spec, bars, i);
  return out;
}

/** One row of bar columns as a candlestick. */
export function candlestickAt(spec: InstrumentSpec, bars: SimulatedBarColumns, i: number): Candlestick {
  return {
    close: formatPrice(spec, bars.close[i]),
    open: formatPrice(spec, bars.open[i]),
    low: formatPrice(spec, bars.low[i]),
    high: formatPrice(spec, bars.high[i]),
    volume: bars.volume[i],
    turnover: formatMoney(bars.turnover[i]),
    timestamp: isoOf(bars.start[i]),
    trade_session: TradeSessionByCode[bars.session[i]],
  };
}

/** What the simulated market answers null: the warrants' and options' indexes (it lists no warrant or option). */
const STOCK_ONLY_NULL = new Set<CalcIndex>(DERIVATIVE_CALC_INDEXES);

/**
 * Calculated indexes from the simulated regular session and the static data. Rates are
 * percentages; change rates compare the last price with the regular close N trading days back
 * (5, 10), on the last trading day of the previous year (YTD), six calendar months back (half
 * year) and five regular minutes back.
 */
export function calcIndexOf(engine: SimulationEngine, instrument: InstrumentState, regular: SessionState, indexes: readonly CalcIndex[]): SecurityCalcIndex {
  const spec = instrument.spec;
  const timeline = instrument.timeline;
  const { ordinal, index } = regular.position;
  const last = regular.last;
  const rateFrom = (base: number) => formatRate((last / base - 1) * 100);
  const closeBack = (days: number) => (ordinal - days >= 0 ? engine.intradayClose(instrument, ordinal - days) : Number.NaN);
  const out: SecurityCalcIndex = { symbol: spec.symbol };
  for (const name of indexes) {
    const field = CalcIndexField[name];
    if (STOCK_ONLY_NULL.has(name)) {
      out[field] = null;
      continue;
    }
    switch (name) {
      case "LastDone":
        out[field] = formatPrice(spec, last);
        break;
      case "ChangeValue":
        out[field] = (last - regular.prevClose).toFixed(3);
        break;
      case "ChangeRate":
        out[field] = rateFrom(regular.prevClose);
        break;
      case "Volume":
        out[field] = regular.volume;
        break;
      case "Turnover":
        out[field] = formatMoney(regular.turnover);
        break;
      case "YtdChangeRate": {
        const year = new Date(timeline.calendar.tradingDayNumbers[ordinal] * 86_400_000).getUTCFullYear();
        const lastOfPreviousYear = timeline.calendar.ordinalOnOrAfterDay(Date.UTC(year, 0, 1) / 86_400_000) - 1;
        out[field] = rateFrom(lastOfPreviousYear >= 0 ? engine.intradayClose(instrument, lastOfPreviousYear) : engine.day(instrument, 0).open[0]);
        break;
      }
      case "TurnoverRate":
        out[field] = spec.circulatingShares > 0 ? ((regular.volume / spec.circulatingShares) * 100).toFixed(4) : null;
        break;
      case "TotalMarketValue":
        out[field] = formatMoney(last * spec.totalShares);
        break;
      case "CapitalFlow": {
        // Net inflow: turnover of up-minutes minus turnover of down-minutes in today's regular session.
        const day = engine.day(instrument, ordinal);
        const sessions = day.layout.shape.session;
        let flow = 0;
        for (let k = 0; k <= index; k++) {
          if (sessions[k] !== 0) continue;
          if (day.close[k] > day.open[k]) flow += day.turnover[k];
          else if (day.close[k] < day.open[k]) flow -= day.turnover[k];
        }
        out[field] = formatMoney(flow);
        break;
      }
      case "Amplitude":
        out[field] = formatRate(((regular.high - regular.low) / regular.prevClose) * 100);
        break;
      case "VolumeRatio": {
        // Volume per elapsed regular minute against the average of the previous five days.
        const day = engine.day(instrument, ordinal);
        // Regular minutes are contiguous in a day's minute grid (HK's lunch break has no minutes).
        const elapsed = index - day.layout.shape.sessionFirst[0] + 1;
        let pastVolume = 0;
        let pastMinutes = 0;
        for (let back = 1; back <= 5 && ordinal - back >= 0; back++) {
          const offset = engine.summaryOffset(instrument, ordinal - back, 0);
          pastVolume += instrument.summaries![offset + 4];
          pastMinutes += regularMinutes(timeline.layout(ordinal - back).shape);
        }
        out[field] = pastMinutes > 0 && elapsed > 0 ? formatRate(regular.volume / elapsed / (pastVolume / pastMinutes)) : null;
        break;
      }
      case "PeTtmRatio":
        out[field] = spec.epsTtm > 0 ? (last / spec.epsTtm).toFixed(2) : null;
        break;
      case "PbRatio":
        out[field] = spec.bps > 0 ? (last / spec.bps).toFixed(2) : null;
        break;
      case "DividendRatioTtm":
        out[field] = formatRate((spec.dividendPerShare / last) * 100);
        break;
      case "FiveDayChangeRate":
        out[field] = rateFrom(closeBack(5));
        break;
      case "TenDayChangeRate":
        out[field] = rateFrom(closeBack(10));
        break;
      case "HalfYearChangeRate": {
        const today = new Date(timeline.calendar.tradingDayNumbers[ordinal] * 86_400_000);
        const sixMonthsBack = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 6, today.getUTCDate()) / 86_400_000;
        const back = timeline.calendar.ordinalOnOrAfterDay(sixMonthsBack + 1) - 1;
        out[field] = rateFrom(back >= 0 ? engine.intradayClose(instrument, back) : Number.NaN);
        break;
      }
      case "FiveMinutesChangeRate": {
        let position: MinutePosition | null = regular.position;
        for (let i = 0; i < 5 && position; i++) position = previousMinute(timeline, position, MASK_INTRADAY);
        out[field] = rateFrom(position ? engine.day(instrument, position.ordinal).close[position.index] : Number.NaN);
        break;
      }
    }
  }
  return out;
}

function regularMinutes(shape: { session: Uint8Array }): number {
  let count = 0;
  for (let k = 0; k < shape.session.length; k++) if (shape.session[k] === 0) count++;
  return count;
}
