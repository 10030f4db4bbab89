import { dayNumberOf } from "@tp/core/market/zoned-time";
import { tickTableFor, type TickTable } from "@tp/core/market/tick-size";
import { periodMinutes, type Period } from "@tp/core/provider/quote-enums";
import { MarketTimeline, MASK_ALL, MASK_EXTENDED, MASK_INTRADAY, type DayLayout } from "./day-layout";
import { hashString, KeyedRandom, mixKeys, quantileTables } from "./random";
import { SimulatedUniverse, type InstrumentSpec } from "./universe";

/**
 * The simulated market's engine: one deterministic 1-minute path per instrument and everything
 * aggregated from it. No JSON, no clock, no I/O: callers pass instants and get typed arrays.
 *
 * Model. Each instrument has a daily anchor series (log price at the start of every trading
 * day): an Ornstein–Uhlenbeck walk around a slowly drifting level, computed once for the whole
 * calendar. A trading day's minutes form a Brownian bridge from that day's anchor to the next
 * day's, with U-shaped intraday variance, so the last close of a day is exactly the next day's
 * first open and any day can be generated on its own from (symbol, day) keyed randomness.
 * Prices are rounded to the exchange's tick table for that day; each minute is four trades
 * (open, the two extremes, close) whose sizes are whole lots, and the bar's turnover is the sum
 * of price × size of those trades.
 */

/** Columns of a bar series; `length` rows are valid. */
export interface SimulatedBarColumns {
  length: number;
  /** Bar start (ms); local midnight of the first trading date for daily and longer bars. */
  start: Float64Array;
  /** Bar end (ms, exclusive): end of its last minute slot (or of its last session for daily and longer bars). */
  end: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  turnover: Float64Array;
  /** TradeSession code (daily and longer bars are Intraday, 0). */
  session: Uint8Array;
  /** Trading-day ordinal of the bar's first minute. */
  ordinal: Int32Array;
}

/** One trading day of one instrument, minute by minute. */
export interface DayBars {
  instrument: number;
  ordinal: number;
  layout: DayLayout;
  tickTable: TickTable;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  turnover: Float64Array;
  /** Bits deciding how each minute's volume splits into its four trades. */
  split: Uint32Array;
  // Running aggregates since the start of each minute's session (for quotes).
  runHigh: Float64Array;
  runLow: Float64Array;
  runVolume: Float64Array;
  runTurnover: Float64Array;
  /** Cache bookkeeping: insertion counter value when last (re)inserted. */
  stamp: number;
}

/** Daily summary groups: regular session, pre+regular+post, everything including overnight. */
export const SUMMARY_INTRADAY = 0;
export const SUMMARY_EXTENDED = 1;
export const SUMMARY_ALL = 2;
const SUMMARY_MASKS = [MASK_INTRADAY, MASK_EXTENDED, MASK_ALL];
const SUMMARY_WIDTH = 18; // 3 groups × open, high, low, close, volume, turnover

// A module-local constant: imported bindings cost a getter call in the hot loops.
const MS_PER_MINUTE = 60_000;
const TRADING_DAYS_PER_YEAR = 252;
const REVERSION_HALF_LIFE_DAYS = 250;
const LEVEL_REFERENCE_DAY = dayNumberOf("2025-07-01");

/** Per-instrument state: its spec, seed, anchors and day summaries. */
export class InstrumentState {
  readonly seed: number;
  readonly sigmaDaily: number;
  readonly timeline: MarketTimeline;
  private anchorCache: Float64Array | null = null;
  /** Daily summaries (engine-owned): 18 numbers per trading day, filled as days are generated. */
  summaries: Float64Array | null = null;
  summaryReady: Uint8Array | null = null;

  constructor(
    readonly index: number,
    readonly spec: InstrumentSpec,
    timeline: MarketTimeline,
  ) {
    this.seed = hashString(spec.symbol);
    this.sigmaDaily = spec.annualVolatility / Math.sqrt(TRADING_DAYS_PER_YEAR);
    this.timeline = timeline;
  }

  /** Log price at the start of every trading day, plus one past the last day. */
  anchors(): Float64Array {
    if (this.anchorCache) return this.anchorCache;
    const days = this.timeline.calendar.tradingDayNumbers;
    const out = new Float64Array(days.length + 1);
    const rng = new KeyedRandom(mixKeys(this.seed, 0x0a11c0de));
    const kappa = Math.LN2 / REVERSION_HALF_LIFE_DAYS;
    const base = Math.log(this.spec.basePrice);
    const level = (day: number) => base + (this.spec.annualDrift * (day - LEVEL_REFERENCE_DAY)) / 365.25;
    out[0] = level(days[0]);
    for (let i = 0; i < days.length; i++) {
      out[i + 1] = out[i] + kappa * (level(days[i]) - out[i]) + this.sigmaDaily * rng.normal();
    }
    this.anchorCache = out;
    return out;
  }

  /** The spread table for a trading day. */
  tickTable(dayNumber: number): TickTable {
    return tickTableFor(this.spec.market, { etp: this.spec.etp, dayNumber });
  }
}

// Scratch buffers for day generation; the longest day is a US full day (1430 minutes).
let scratchPath = new Float64Array(2048);
let scratchAbsZ = new Float64Array(2048);
const lotScratch = new Int32Array(4);
let scratchDraws = new Uint32Array(3 * 2048);

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** Generates one trading day of one instrument. Pure: same inputs, same numbers. */
export function generateDay(instrument: InstrumentState, layout: DayLayout): DayBars {
  const { shape, ordinal } = layout;
  const n = shape.n;
  if (scratchPath.length < n) {
    scratchPath = new Float64Array(n);
    scratchAbsZ = new Float64Array(n);
  }
  const path = scratchPath;
  const absZ = scratchAbsZ;
  const anchors = instrument.anchors();
  const from = anchors[ordinal];
  const target = anchors[ordinal + 1] - from;
  const sigma = instrument.sigmaDaily;
  const rng = new KeyedRandom(mixKeys(instrument.seed, ordinal + 1));
  const sd = shape.sd;
  const cumVar = shape.cumVar;
  const volumeShare = shape.volumeShare;
  const sessions = shape.session;
  // Local aliases: the minute loop reads the tables directly.
  const { normal16, exponential12, lognormal12 } = quantileTables();

  // Pass 1: a free random walk with the day's variance profile. Each minute draws three words:
  // (path normal, volume noise), (two range excursions), and the trade-split bits.
  const draws = scratchDraws.length >= 3 * n ? scratchDraws : (scratchDraws = new Uint32Array(3 * n));
  const auctionJump = shape.auctionSd > 0 ? sigma * shape.auctionSd * normal16[rng.u32() >>> 16] : 0;
  let walk = auctionJump;
  for (let k = 0; k < n; k++) {
    const word = rng.u32();
    draws[3 * k] = word;
    draws[3 * k + 1] = rng.u32();
    draws[3 * k + 2] = rng.u32();
    const z = normal16[word >>> 16];
    walk += sigma * sd[k] * z;
    path[k] = walk;
    absZ[k] = z < 0 ? -z : z;
  }
  // Busier days move more: the day's volume level follows the size of its move.
  let dayLevel = Math.exp(0.25 * rng.normal() - 0.03125) * (0.75 + 0.3 * (Math.abs(target) / sigma));
  if (dayLevel < 0.3) dayLevel = 0.3;
  else if (dayLevel > 4) dayLevel = 4;
  const dayVolume = instrument.spec.averageDailyVolume * dayLevel;

  const table = instrument.tickTable(layout.dayNumber);
  const lot = instrument.spec.lotSize;
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  const volume = new Float64Array(n);
  const turnover = new Float64Array(n);
  const split = new Uint32Array(n);
  const runHigh = new Float64Array(n);
  const runLow = new Float64Array(n);
  const runVolume = new Float64Array(n);
  const runTurnover = new Float64Array(n);

  // Pass 2: pin the walk into a bridge ending on the next anchor, then build the bars.
  const correction = target - walk;
  // The day opens at its anchor plus the (bridged) auction jump; without an auction that is the
  // anchor itself, i.e. exactly the previous day's last close.
  let previousRaw = Math.exp(from + auctionJump + shape.auctionSd * shape.auctionSd * correction);
  let previousClose = table.round(previousRaw);
  let rh = 0;
  let rl = 0;
  let rv = 0;
  let rt = 0;
  for (let k = 0; k < n; k++) {
    const raw = k === n - 1 ? Math.exp(from + target) : Math.exp(from + path[k] + cumVar[k] * correction);
    const o = previousClose;
    const c = table.round(raw);
    const step = sigma * sd[k] * raw * 0.55;
    const top = raw > previousRaw ? raw : previousRaw;
    const bottom = raw < previousRaw ? raw : previousRaw;
    const excursions = draws[3 * k + 1];
    let h = table.round(top + step * exponential12[excursions >>> 20]);
    let l = table.round(bottom - step * exponential12[(excursions >>> 8) & 4095]);
    if (h < o) h = o;
    if (h < c) h = c;
    if (l > o) l = o;
    if (l > c) l = c;

    const noise = lognormal12[draws[3 * k] & 4095];
    let lots = Math.round((dayVolume * volumeShare[k] * noise * (0.6 + 0.5 * absZ[k])) / lot);
    if (lots < 4) lots = 4;
    const bits = draws[3 * k + 2];
    // Four trades: open, first extreme, second extreme, close; at least one lot each.
    splitLots(lots, bits, lotScratch);
    const l0 = lotScratch[0];
    const l1 = lotScratch[1];
    const l2 = lotScratch[2];
    const l3 = lotScratch[3];
    const first = c >= o ? l : h;
    const second = c >= o ? h : l;
    const value = round3(lot * (l0 * o + l1 * first + l2 * second + l3 * c));
    const shares = lots * lot;

    open[k] = o;
    high[k] = h;
    low[k] = l;
    close[k] = c;
    volume[k] = shares;
    turnover[k] = value;
    split[k] = bits;
    if (k === 0 || sessions[k] !== sessions[k - 1]) {
      rh = h;
      rl = l;
      rv = shares;
      rt = value;
    } else {
      if (h > rh) rh = h;
      if (l < rl) rl = l;
      rv += shares;
      rt += value;
    }
    runHigh[k] = rh;
    runLow[k] = rl;
    runVolume[k] = rv;
    runTurnover[k] = rt;
    previousClose = c;
    previousRaw = raw;
  }
  return {
    instrument: instrument.index,
    ordinal,
    layout,
    tickTable: table,
    open,
    high,
    low,
    close,
    volume,
    turnover,
    split,
    runHigh,
    runLow,
    runVolume,
    runTurnover,
    stamp: 0,
  };
}

/**
 * Splits a minute's volume (in lots, at least 4) into its four trades' lots, weighted by the
 * minute's random bits; writes them to `out`. Shared by bar generation and trade listing.
 */
export function splitLots(totalLots: number, bits: number, out: Int32Array): void {
  const w0 = 1 + (bits & 255) / 64;
  const w1 = 1 + ((bits >>> 8) & 255) / 64;
  const w2 = 1 + ((bits >>> 16) & 255) / 64;
  const w3 = 1 + (bits >>> 24) / 64;
  const spare = (totalLots - 4) / (w0 + w1 + w2 + w3);
  out[0] = 1 + Math.floor(spare * w0);
  out[1] = 1 + Math.floor(spare * w1);
  out[2] = 1 + Math.floor(spare * w2);
  out[3] = totalLots - out[0] - out[1] - out[2];
}

/** Growable bar columns. */
export class BarBuilder {
  private capacity: number;
  readonly columns: SimulatedBarColumns;

  constructor(capacity = 256) {
    this.capacity = Math.max(16, capacity);
    this.columns = BarBuilder.allocate(this.capacity);
  }

  push(start: number, end: number, o: number, h: number, l: number, c: number, v: number, t: number, session: number, ordinal: number): void {
    const cols = this.columns;
    if (cols.length === this.capacity) this.grow();
    const i = cols.length++;
    cols.start[i] = start;
    cols.end[i] = end;
    cols.open[i] = o;
    cols.high[i] = h;
    cols.low[i] = l;
    cols.close[i] = c;
    cols.volume[i] = v;
    cols.turnover[i] = t;
    cols.session[i] = session;
    cols.ordinal[i] = ordinal;
  }

  /** Appends `count` consecutive 1-minute bars of a day, starting at minute `base` at time `blockStart`. */
  appendMinutes(day: DayBars, base: number, count: number, blockStart: number, session: number, ordinal: number): void {
    const cols = this.columns;
    while (cols.length + count > this.capacity) this.grow();
    const at = cols.length;
    cols.open.set(day.open.subarray(base, base + count), at);
    cols.high.set(day.high.subarray(base, base + count), at);
    cols.low.set(day.low.subarray(base, base + count), at);
    cols.close.set(day.close.subarray(base, base + count), at);
    cols.volume.set(day.volume.subarray(base, base + count), at);
    cols.turnover.set(day.turnover.subarray(base, base + count), at);
    cols.session.fill(session, at, at + count);
    cols.ordinal.fill(ordinal, at, at + count);
    for (let j = 0; j < count; j++) {
      const start = blockStart + j * MS_PER_MINUTE;
      cols.start[at + j] = start;
      cols.end[at + j] = start + MS_PER_MINUTE;
    }
    cols.length += count;
  }

  private grow(): void {
    const next = BarBuilder.allocate(this.capacity * 2);
    const cols = this.columns;
    next.start.set(cols.start);
    next.end.set(cols.end);
    next.open.set(cols.open);
    next.high.set(cols.high);
    next.low.set(cols.low);
    next.close.set(cols.close);
    next.volume.set(cols.volume);
    next.turnover.set(cols.turnover);
    next.session.set(cols.session);
    next.ordinal.set(cols.ordinal);
    cols.start = next.start;
    cols.end = next.end;
    cols.open = next.open;
    cols.high = next.high;
    cols.low = next.low;
    cols.close = next.close;
    cols.volume = next.volume;
    cols.turnover = next.turnover;
    cols.session = next.session;
    cols.ordinal = next.ordinal;
    this.capacity *= 2;
  }

  private static allocate(capacity: number): SimulatedBarColumns {
    return {
      length: 0,
      start: new Float64Array(capacity),
      end: new Float64Array(capacity),
      open: new Float64Array(capacity),
      high: new Float64Array(capacity),
      low: new Float64Array(capacity),
      close: new Float64Array(capacity),
      volume: new Float64Array(capacity),
      turnover: new Float64Array(capacity),
      session: new Uint8Array(capacity),
      ordinal: new Int32Array(capacity),
    };
  }
}

const GROUP_UNIT: Partial<Record<Period, "week" | "month" | "quarter" | "year">> = {
  "1w": "week",
  "1mo": "month",
  "1q": "quarter",
  "1y": "year",
};

/** Options of the engine. */
export interface SimulationEngineOptions {
  /** Instruments to simulate (default: the fixed universe). */
  universe?: readonly InstrumentSpec[];
  /** Trading days kept in memory across instruments (default 192). */
  cachedDays?: number;
}

/** The engine: instruments, timelines and a cache of generated days. */
export class SimulationEngine {
  readonly instruments: readonly InstrumentState[];
  private readonly bySymbol = new Map<string, InstrumentState>();
  private readonly timelines = new Map<string, MarketTimeline>();
  private readonly cache = new Map<number, DayBars>();
  private readonly cacheLimit: number;
  private inserted = 0;

  constructor(options: SimulationEngineOptions = {}) {
    this.cacheLimit = options.cachedDays ?? 192;
    const universe = options.universe ?? SimulatedUniverse;
    this.instruments = universe.map((spec, index) => {
      const state = new InstrumentState(index, spec, this.timeline(spec.market));
      this.bySymbol.set(spec.symbol, state);
      return state;
    });
  }

  /** The timeline of a market (US or HK). */
  timeline(market: "US" | "HK"): MarketTimeline {
    let timeline = this.timelines.get(market);
    if (!timeline) {
      timeline = new MarketTimeline(market);
      this.timelines.set(market, timeline);
    }
    return timeline;
  }

  /** An instrument by canonical symbol. */
  instrument(symbol: string): InstrumentState | undefined {
    return this.bySymbol.get(symbol);
  }

  /** The minute bars of one trading day (cached, most recently used kept). */
  day(instrument: InstrumentState, ordinal: number): DayBars {
    const key = instrument.index * 8192 + ordinal;
    const cached = this.cache.get(key);
    if (cached) {
      // Refresh recency (Map order) only when the entry has aged, so hot hits cost one lookup.
      if (this.inserted - cached.stamp > this.cacheLimit >> 1) {
        this.cache.delete(key);
        cached.stamp = ++this.inserted;
        this.cache.set(key, cached);
      }
      return cached;
    }
    const day = generateDay(instrument, instrument.timeline.layout(ordinal));
    this.remember(instrument, day);
    day.stamp = ++this.inserted;
    this.cache.set(key, day);
    if (this.cache.size > this.cacheLimit) this.cache.delete(this.cache.keys().next().value!);
    return day;
  }

  /**
   * Daily aggregates of a trading day: `group` SUMMARY_INTRADAY, SUMMARY_EXTENDED or SUMMARY_ALL;
   * returns [open, high, low, close, volume, turnover] read from the shared summary array at `offset`.
   */
  summaryOffset(instrument: InstrumentState, ordinal: number, group: number): number {
    if (!instrument.summaryReady?.[ordinal]) {
      const layout = instrument.timeline.layout(ordinal);
      this.remember(instrument, generateDay(instrument, layout));
    }
    return ordinal * SUMMARY_WIDTH + group * 6;
  }

  /** Close of the regular session of a trading day. */
  intradayClose(instrument: InstrumentState, ordinal: number): number {
    return instrument.summaries![this.summaryOffset(instrument, ordinal, SUMMARY_INTRADAY) + 3];
  }

  /**
   * Bars of `period` for trading days `fromOrdinal..toOrdinal`, built from minutes completed by
   * `asOf` in sessions `mask`. Intraday periods restart at every session block (HK 1h bars are
   * 09:30, 10:30, 11:30–12:00, 13:00, 14:00, 15:00); longer periods include the groups (weeks,
   * months, …) whose first trading day lies in the range, each aggregated over the whole group.
   */
  bars(instrument: InstrumentState, period: Period, fromOrdinal: number, toOrdinal: number, asOf: number, mask: number): SimulatedBarColumns {
    const timeline = instrument.timeline;
    const from = Math.max(0, fromOrdinal);
    const to = Math.min(timeline.count - 1, toOrdinal);
    const minutes = periodMinutes(period);
    if (minutes !== null) return this.intradayBars(instrument, minutes, from, to, asOf, mask);
    if (period === "1d") return this.dailyBars(instrument, from, to, asOf, mask);
    const keys = timeline.groupKeysOf(GROUP_UNIT[period]!);
    let first = from;
    while (first <= to && first > 0 && keys[first] === keys[first - 1]) first++;
    let last = to;
    while (last + 1 < timeline.count && keys[last + 1] === keys[to]) last++;
    const daily = this.dailyBars(instrument, first, last, asOf, mask);
    const out = new BarBuilder(Math.ceil(daily.length / 4) + 1);
    let i = 0;
    while (i < daily.length) {
      const key = keys[daily.ordinal[i]];
      const o = daily.open[i];
      let h = daily.high[i];
      let l = daily.low[i];
      let c = daily.close[i];
      let v = daily.volume[i];
      let t = daily.turnover[i];
      const start = daily.start[i];
      const ordinal = daily.ordinal[i];
      let end = daily.end[i];
      i++;
      while (i < daily.length && keys[daily.ordinal[i]] === key) {
        if (daily.high[i] > h) h = daily.high[i];
        if (daily.low[i] < l) l = daily.low[i];
        c = daily.close[i];
        v += daily.volume[i];
        t += daily.turnover[i];
        end = daily.end[i];
        i++;
      }
      out.push(start, end, o, h, l, c, v, t, 0, ordinal);
    }
    return out.columns;
  }

  private intradayBars(instrument: InstrumentState, minutes: number, from: number, to: number, asOf: number, mask: number): SimulatedBarColumns {
    const timeline = instrument.timeline;
    const estimate = Math.max(16, Math.ceil(((to - from + 1) * (mask === MASK_INTRADAY ? 390 : 960)) / minutes));
    const out = new BarBuilder(Math.min(estimate, 1 << 20));
    for (let ordinal = from; ordinal <= to; ordinal++) {
      const layout = timeline.layout(ordinal);
      const done = timeline.completed(layout, asOf);
      if (done === 0) break;
      const day = this.day(instrument, ordinal);
      const { blockSession, blockOffset, blockLength } = layout.shape;
      for (let b = 0; b < blockSession.length; b++) {
        const session = blockSession[b];
        if (!(mask & (1 << session))) continue;
        const available = timeline.completedInBlock(layout, b, done);
        const base = blockOffset[b];
        const blockStart = layout.blockStart[b];
        const length = blockLength[b];
        if (minutes === 1) {
          out.appendMinutes(day, base, available, blockStart, session, ordinal);
          continue;
        }
        for (let j = 0; j < available; j += minutes) {
          const k0 = base + j;
          const k1 = base + Math.min(j + minutes, available);
          let h = day.high[k0];
          let l = day.low[k0];
          let v = day.volume[k0];
          let t = day.turnover[k0];
          for (let k = k0 + 1; k < k1; k++) {
            if (day.high[k] > h) h = day.high[k];
            if (day.low[k] < l) l = day.low[k];
            v += day.volume[k];
            t += day.turnover[k];
          }
          const start = blockStart + j * MS_PER_MINUTE;
          const end = blockStart + Math.min(j + minutes, length) * MS_PER_MINUTE;
          out.push(start, end, day.open[k0], h, l, day.close[k1 - 1], v, t, session, ordinal);
        }
      }
    }
    return out.columns;
  }

  private dailyBars(instrument: InstrumentState, from: number, to: number, asOf: number, mask: number): SimulatedBarColumns {
    const timeline = instrument.timeline;
    const out = new BarBuilder(to - from + 2);
    const group = SUMMARY_MASKS.indexOf(mask);
    for (let ordinal = from; ordinal <= to; ordinal++) {
      const layout = timeline.layout(ordinal);
      const done = timeline.completed(layout, asOf);
      if (done === 0) break;
      const { blockSession, blockOffset, blockLength } = layout.shape;
      let end = 0;
      for (let b = 0; b < blockSession.length; b++) {
        if (mask & (1 << blockSession[b])) end = layout.blockStart[b] + blockLength[b] * MS_PER_MINUTE;
      }
      if (done === layout.shape.n && group >= 0) {
        const at = this.summaryOffset(instrument, ordinal, group);
        const s = instrument.summaries!;
        if (!Number.isNaN(s[at])) out.push(layout.midnight, end, s[at], s[at + 1], s[at + 2], s[at + 3], s[at + 4], s[at + 5], 0, ordinal);
        continue;
      }
      // The running day (or an unusual session mix): aggregate its completed minutes directly.
      const day = this.day(instrument, ordinal);
      let o = Number.NaN;
      let h = 0;
      let l = 0;
      let c = 0;
      let v = 0;
      let t = 0;
      for (let b = 0; b < blockSession.length; b++) {
        if (!(mask & (1 << blockSession[b]))) continue;
        const available = timeline.completedInBlock(layout, b, done);
        for (let k = blockOffset[b]; k < blockOffset[b] + available; k++) {
          if (Number.isNaN(o)) {
            o = day.open[k];
            h = day.high[k];
            l = day.low[k];
          } else {
            if (day.high[k] > h) h = day.high[k];
            if (day.low[k] < l) l = day.low[k];
          }
          c = day.close[k];
          v += day.volume[k];
          t += day.turnover[k];
        }
      }
      if (!Number.isNaN(o)) out.push(layout.midnight, end, o, h, l, c, v, t, 0, ordinal);
    }
    return out.columns;
  }

  /** Records a generated day's daily summaries (regular, extended, all) in chronological minute order. */
  private remember(instrument: InstrumentState, day: DayBars): void {
    const timeline = instrument.timeline;
    if (!instrument.summaries) {
      instrument.summaries = new Float64Array(timeline.count * SUMMARY_WIDTH);
      instrument.summaryReady = new Uint8Array(timeline.count);
    }
    if (instrument.summaryReady![day.ordinal]) return;
    const s = instrument.summaries;
    const { blockSession, blockOffset, blockLength } = day.layout.shape;
    const { open, high, low, close, volume, turnover } = day;
    for (let g = 0; g < 3; g++) {
      // A group's sessions are adjacent blocks of the day, so it is one index range, summed in order.
      let first = -1;
      let end = -1;
      for (let b = 0; b < blockSession.length; b++) {
        if (!(SUMMARY_MASKS[g] & (1 << blockSession[b]))) continue;
        if (first < 0) first = blockOffset[b];
        end = blockOffset[b] + blockLength[b];
      }
      const at = day.ordinal * SUMMARY_WIDTH + g * 6;
      if (first < 0) {
        s.fill(Number.NaN, at, at + 6);
        continue;
      }
      let h = high[first];
      let l = low[first];
      let v = 0;
      let t = 0;
      for (let k = first; k < end; k++) {
        if (high[k] > h) h = high[k];
        if (low[k] < l) l = low[k];
        v += volume[k];
        t += turnover[k];
      }
      s[at] = open[first];
      s[at + 1] = h;
      s[at + 2] = l;
      s[at + 3] = close[end - 1];
      s[at + 4] = v;
      s[at + 5] = t;
    }
    instrument.summaryReady![day.ordinal] = 1;
  }
}
