import { Calendar, type SessionInterval } from "@tp/core/market/calendar";
import type { Market } from "@tp/core/market/market";
import { TradeSessionCode } from "@tp/core/market/trade-session";
import { utcToZoned, zonedTimeToUtc } from "@tp/core/market/zoned-time";

// Module-local: imported bindings cost a getter call in hot loops.
const MS_PER_MINUTE = 60_000;

/** Session bit masks: bit `1 << code` for each TradeSession code (Intraday 0, Pre 1, Post 2, Overnight 3). */
export const MASK_INTRADAY = 1;
export const MASK_EXTENDED = 1 | 2 | 4;
export const MASK_ALL = 1 | 2 | 4 | 8;

/**
 * The minute structure of one kind of trading day (US full day, US early close, HK full day,
 * HK half day): its session blocks and the per-minute weights the price and volume model uses.
 * Shared by every day of that kind.
 */
export interface DayShape {
  key: string;
  /** Minutes in the day (all sessions, overnight included). */
  n: number;
  blockSession: Uint8Array;
  blockOffset: Int32Array;
  blockLength: Int32Array;
  /** Session code of each minute. */
  session: Uint8Array;
  /** Standard deviation of each minute's log return as a fraction of the day's. */
  sd: Float64Array;
  /** Share of the day's variance realised up to and including each minute (last = 1). */
  cumVar: Float64Array;
  /**
   * Standard deviation (as a fraction of the day's) of the opening-auction jump before the first
   * minute: non-zero for days that open straight into the regular session (HK), where overnight
   * news shows up as a gap; zero for US days, whose overnight and pre-market sessions carry it.
   */
  auctionSd: number;
  /** Expected share of the average daily (regular-session) volume traded in each minute. */
  volumeShare: Float64Array;
  /** Index of the first minute of each session code (-1 when the day lacks it). */
  sessionFirst: Int32Array;
}

// Relative per-minute variance of the extended sessions against an average regular minute.
const EXTENDED_VARIANCE: Record<number, number> = { 1: 0.12, 2: 0.1, 3: 0.05 };
// Extended-session volume as a share of regular-session volume, spread evenly over the session.
const EXTENDED_VOLUME: Record<number, number> = { 1: 0.04, 2: 0.03, 3: 0.01 };

// Opening-auction variance relative to the regular session's, for days without extended sessions.
const AUCTION_VARIANCE_SHARE = 0.12;

const shapes = new Map<string, DayShape>();

/** The shape of a trading day with these sessions (cached by session names and lengths). */
export function shapeOf(sessions: readonly SessionInterval[]): DayShape {
  const lengths = sessions.map((s) => Math.round((s.end - s.start) / MS_PER_MINUTE));
  const codes = sessions.map((s) => TradeSessionCode[s.session]);
  const key = codes.map((c, i) => `${c}:${lengths[i]}`).join(",");
  let shape = shapes.get(key);
  if (shape) return shape;

  const n = lengths.reduce((a, b) => a + b, 0);
  const session = new Uint8Array(n);
  const blockOffset = new Int32Array(lengths.length);
  let offset = 0;
  lengths.forEach((length, b) => {
    blockOffset[b] = offset;
    session.fill(codes[b], offset, offset + length);
    offset += length;
  });
  const regularMinutes = codes.reduce((sum, c, b) => sum + (c === 0 ? lengths[b] : 0), 0);

  const variance = new Float64Array(n);
  const volume = new Float64Array(n);
  let regularIndex = 0;
  for (let b = 0; b < lengths.length; b++) {
    const code = codes[b];
    for (let j = 0; j < lengths[b]; j++) {
      const k = blockOffset[b] + j;
      if (code !== 0) {
        variance[k] = EXTENDED_VARIANCE[code];
        volume[k] = EXTENDED_VOLUME[code] / lengths[b];
        continue;
      }
      // U shape over the regular day: busy and volatile at the open and the close, quiet at midday.
      const x = regularMinutes > 1 ? regularIndex / (regularMinutes - 1) : 0.5;
      const edge = (2 * x - 1) * (2 * x - 1);
      let v = 0.6 + 2.4 * edge;
      let q = 0.45 + 2.6 * edge * edge;
      if (regularIndex < 5) v *= 2;
      if (regularMinutes - regularIndex <= 5) q *= 2.5; // closing rush
      // The HK afternoon re-opens after lunch with a burst of activity.
      if (b > 0 && codes[b - 1] === 0 && j < 10) {
        v *= 1.6;
        q *= 1.8;
      }
      variance[k] = v;
      volume[k] = q;
      regularIndex++;
    }
  }
  let varianceTotal = 0;
  for (let k = 0; k < n; k++) varianceTotal += variance[k];
  const auctionVariance = codes[0] === 0 ? AUCTION_VARIANCE_SHARE * varianceTotal : 0;
  varianceTotal += auctionVariance;
  let regularVolumeTotal = 0;
  for (let k = 0; k < n; k++) if (session[k] === 0) regularVolumeTotal += volume[k];
  const sd = new Float64Array(n);
  const cumVar = new Float64Array(n);
  let running = auctionVariance / varianceTotal;
  for (let k = 0; k < n; k++) {
    const fraction = variance[k] / varianceTotal;
    sd[k] = Math.sqrt(fraction);
    running += fraction;
    cumVar[k] = running;
    if (session[k] === 0) volume[k] /= regularVolumeTotal;
  }
  cumVar[n - 1] = 1;
  const sessionFirst = new Int32Array(4).fill(-1);
  for (let k = n - 1; k >= 0; k--) sessionFirst[session[k]] = k;

  shape = {
    key,
    n,
    blockSession: Uint8Array.from(codes),
    blockOffset,
    blockLength: Int32Array.from(lengths),
    session,
    sd,
    cumVar,
    auctionSd: Math.sqrt(auctionVariance / varianceTotal),
    volumeShare: volume,
    sessionFirst,
  };
  shapes.set(key, shape);
  return shape;
}

/** One trading day of one market: its shape placed on the UTC time line. */
export interface DayLayout {
  ordinal: number;
  dayNumber: number;
  shape: DayShape;
  /** UTC start (ms) of each session block. */
  blockStart: Float64Array;
  /** First minute's start and last minute's end (ms). */
  start: number;
  end: number;
  /** UTC instant of local midnight of the trading date: the timestamp of daily and longer bars. */
  midnight: number;
}

/** A position on a day's minute grid. */
export interface MinutePosition {
  ordinal: number;
  index: number;
}

/**
 * The trading days of one market as minute grids, and the questions the simulator asks of
 * time: which minutes have completed by an instant, and where a minute starts.
 */
export class MarketTimeline {
  readonly calendar: Calendar;
  /** Number of trading days in the calendar's coverage. */
  readonly count: number;
  private readonly layouts: (DayLayout | undefined)[];
  private groupKeys: Partial<Record<"week" | "month" | "quarter" | "year", Int32Array>> = {};

  constructor(readonly market: Market) {
    this.calendar = Calendar.for(market);
    this.count = this.calendar.tradingDayNumbers.length;
    this.layouts = new Array(this.count);
  }

  /** Layout of a trading day by ordinal. */
  layout(ordinal: number): DayLayout {
    let layout = this.layouts[ordinal];
    if (!layout) {
      const dayNumber = this.calendar.tradingDayNumbers[ordinal];
      const sessions = this.calendar.sessionsOfDay(dayNumber);
      const shape = shapeOf(sessions);
      layout = {
        ordinal,
        dayNumber,
        shape,
        blockStart: Float64Array.from(sessions, (s) => s.start),
        start: sessions[0].start,
        end: sessions[sessions.length - 1].end,
        midnight: zonedTimeToUtc(this.calendar.timeZone, dayNumber, 0),
      };
      this.layouts[ordinal] = layout;
    }
    return layout;
  }

  /** How many of a day's minutes have completed (start + 1 minute ≤ t). */
  completed(layout: DayLayout, t: number): number {
    if (t >= layout.end) return layout.shape.n;
    if (t < layout.start + MS_PER_MINUTE) return 0;
    const { blockOffset, blockLength } = layout.shape;
    let done = 0;
    for (let b = 0; b < blockLength.length; b++) {
      const inBlock = Math.floor((t - layout.blockStart[b]) / MS_PER_MINUTE);
      if (inBlock <= 0) break;
      done = blockOffset[b] + Math.min(inBlock, blockLength[b]);
    }
    return done;
  }

  /** Minutes of block `b` completed when `done` minutes of the day have completed. */
  completedInBlock(layout: DayLayout, b: number, done: number): number {
    const inBlock = done - layout.shape.blockOffset[b];
    return inBlock <= 0 ? 0 : inBlock >= layout.shape.blockLength[b] ? layout.shape.blockLength[b] : inBlock;
  }

  /** UTC start of minute `index` of a day. */
  minuteStart(layout: DayLayout, index: number): number {
    const { blockOffset } = layout.shape;
    let b = blockOffset.length - 1;
    while (b > 0 && blockOffset[b] > index) b--;
    return layout.blockStart[b] + (index - blockOffset[b]) * MS_PER_MINUTE;
  }

  /** The last completed minute (any session) at instant `t`, or null before the first one. */
  locate(t: number): MinutePosition | null {
    if (this.count === 0) return null;
    const ordinal = this.calendar.ordinalOnOrAfterDay(utcToZoned(this.calendar.timeZone, t).dayNumber);
    // The running day is the one on the local date, or the next one when its overnight session
    // has begun, or the previous one when the local date does not trade.
    for (let o = Math.min(ordinal + 1, this.count - 1); o >= Math.max(0, ordinal - 1); o--) {
      const done = this.completed(this.layout(o), t);
      if (done > 0) return { ordinal: o, index: done - 1 };
    }
    return null;
  }

  /** The last completed minute at `t` whose session is in `mask`, or null when there is none yet. */
  lastInMask(t: number, mask: number): MinutePosition | null {
    const at = this.locate(t);
    if (!at) return null;
    for (let ordinal = at.ordinal; ordinal >= 0 && ordinal >= at.ordinal - 7; ordinal--) {
      const layout = this.layout(ordinal);
      const done = ordinal === at.ordinal ? at.index + 1 : layout.shape.n;
      const { blockSession, blockOffset } = layout.shape;
      for (let b = blockSession.length - 1; b >= 0; b--) {
        if (!(mask & (1 << blockSession[b]))) continue;
        const inBlock = this.completedInBlock(layout, b, done);
        if (inBlock > 0) return { ordinal, index: blockOffset[b] + inBlock - 1 };
      }
    }
    return null;
  }

  /** Key of the week (Monday's day number), month, quarter or year each trading day belongs to. */
  groupKeysOf(unit: "week" | "month" | "quarter" | "year"): Int32Array {
    let keys = this.groupKeys[unit];
    if (!keys) {
      keys = new Int32Array(this.count);
      for (let i = 0; i < this.count; i++) {
        const day = this.calendar.tradingDayNumbers[i];
        const date = new Date(day * 86_400_000);
        const year = date.getUTCFullYear();
        const month = date.getUTCMonth();
        keys[i] =
          unit === "week"
            ? day - ((date.getUTCDay() + 6) % 7)
            : unit === "month"
              ? year * 12 + month
              : unit === "quarter"
                ? year * 4 + Math.floor(month / 3)
                : year;
      }
      this.groupKeys[unit] = keys;
    }
    return keys;
  }
}
