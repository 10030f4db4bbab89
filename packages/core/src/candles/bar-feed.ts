import { Buckets, type StoredPeriod } from "./buckets";
import { CandleBatches, type CandleBatch } from "./candle-batch";
import type { PriceAdjuster } from "./corporate-actions";
import type { CandleStore } from "./index";
import { TradeSessionCode } from "../market/trade-session";
import type { Timeframe } from "../strategies/definition";
import { barAt, type Bar, type BarColumns } from "../strategies/strategy";

/**
 * Stored candles into the engine: each feed (symbol, period) reads its buckets a window at a
 * time as typed-array columns, and the feeds are merged by close time (so a coarser bar arrives
 * after the finer bars it spans). Only regular-session candles are fed. One scratch bar per feed
 * is reused: nothing is allocated per bar. A single feed can instead hand its bars over as runs
 * of the stored columns (`onColumns`), for the engine's batch path. With `minutes` (a backtest's
 * `execution.intrabar`), each window's stored 1-minute bars of its symbol are read beside it and
 * handed over before its bars are fed. With `adjust` (a backtest's `execution.adjust` "forward"),
 * every window's bars and minutes are forward-adjusted for the run's corporate actions as they
 * are read (copies: the store's batches stay as stored).
 */

/** Where the feed's bars go: one by one, or (a single feed only) as runs of columns when `onColumns` is given. */
export interface BarSink {
  onBar(bar: Bar, timeframe: Timeframe): void;
  onColumns?(columns: BarColumns, from: number, to: number, timeframe: Timeframe): void;
}

export interface Feed {
  symbol: string;
  timeframe: Timeframe;
}

const DAY_S = 86_400;
/** Seconds of candles loaded per read: about a month of minute buckets (a quarter of a BatchGetItem), years of daily ones. */
const WINDOW_S: Record<StoredPeriod, number> = { "1m": 25 * DAY_S, "5m": 25 * DAY_S, "1h": 5 * 366 * DAY_S, "1d": 20 * 366 * DAY_S };
/**
 * Windows read ahead of the ones fed, shared by the feeds (each reads at least `MIN_READ_AHEAD`):
 * the store serves many reads at once (DynamoDB Local answers a dozen small queries together in
 * about the time of three one after another), so a year of minute buckets arrives as parallel
 * reads of a month each rather than a few at a time; about a year of one symbol's regular-session
 * minutes (some 7 MB decoded) is held ahead at most.
 */
const READ_AHEAD = 12;
const MIN_READ_AHEAD = 2;
/**
 * Least time between two looks: a year of minute windows is taken up in a few hundred
 * milliseconds, and a look the feed waited for at each (a read of the backtest) cost it more than
 * the engine's time; a pause is still seen within about this long.
 */
const LOOK_EVERY_MS = 100;
const INTRADAY = TradeSessionCode.Intraday;

/** A stored batch as the engine's columns (timestamps in seconds): one small object per run of bars. */
const columnsOf = (symbol: string, batch: CandleBatch): BarColumns => ({
  symbol,
  msPerUnit: 1000,
  timestamp: batch.timestamp,
  open: batch.open,
  high: batch.high,
  low: batch.low,
  close: batch.close,
  volume: batch.volume,
});

interface Cursor {
  feed: Feed;
  periodMs: number;
  /** Loaded batches of the current window and the position inside them. */
  batches: CandleBatch[];
  batch: number;
  index: number;
  /** Start (seconds) of the next window to load; past `end` when exhausted. */
  nextWindow: number;
  /**
   * The next windows' reads (up to the feed's share of `READ_AHEAD`), where each window starts and
   * ends, and with `minutes` the read of its symbol's minutes; started while the current window is
   * fed (the store works while the engine does).
   */
  ahead: { batches: Promise<CandleBatch[]>; from: number; next: number; minutes?: Promise<CandleBatch[]> }[];
  /** Start (seconds) of the window after the last one in `ahead`. */
  aheadFrom: number;
  scratch: Bar;
  /** Close time (ms) of the bar under the cursor, Infinity when done. */
  head: number;
}

/**
 * `execution.intrabar`: where the feed's windows of minutes go (`TradingEngine.useMinutes`): for
 * `symbol`, the stored regular-session minutes of the windows its feeds are in, in time order.
 */
export type OnMinutes = (symbol: string, minutes: BarColumns) => void;

/** A symbol's minutes read for a window of its feeds: `[from, next)` in seconds. */
interface MinuteSpan {
  from: number;
  next: number;
  batches: CandleBatch[];
}

/** Reads the feeds' bars with close times in `(afterMs, endSec]` in close-time order. */
export class BarFeed {
  private readonly cursors: Cursor[];
  /** `minutes`: per symbol, the minutes of the windows its feeds were last in (the previous and the current, as feeds of one symbol may lag one another by a bar). */
  private readonly minuteSpans = new Map<string, MinuteSpan[]>();
  /** Whether a look is under way, and when (performance.now()) the last one started. */
  private looking = false;
  private lookedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly candles: Pick<CandleStore, "loadBetween">,
    feeds: Feed[],
    private readonly startSec: number,
    private readonly endSec: number,
    private readonly afterMs: number,
    /**
     * Asked as a window is taken up, one look at a time and at most every `LOOK_EVERY_MS` (a
     * backtest chunk reads its pause and stop flags): the feed does not wait for its answer, which
     * the caller's `shouldStop` acts on between runs of bars once it has arrived.
     */
    private readonly look?: () => Promise<void>,
    /** `execution.intrabar`: where each window's stored minutes of its symbol go before its bars are fed. */
    private readonly minutes?: OnMinutes,
    /** Corporate actions the bars (and minutes) are forward-adjusted for (docs/backtests.md "Prices and corporate actions"). */
    private readonly adjust?: PriceAdjuster,
  ) {
    this.cursors = feeds.map((feed) => ({
      feed,
      periodMs: Buckets.seconds(feed.timeframe) * 1000,
      batches: [],
      batch: 0,
      index: -1,
      nextWindow: Math.max(startSec, Math.floor(afterMs / 1000) - Buckets.seconds(feed.timeframe)),
      ahead: [],
      aheadFrom: 0,
      scratch: { symbol: feed.symbol, timestamp: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 },
      head: 0,
    }));
  }

  /**
   * Feeds bars to `onBar` in close-time order until at least `maxBars` were fed (finishing the
   * close time reached, so a chunk never splits bars that close together) or the feeds end.
   * Returns the bars fed and the close time of the last one (null when nothing was left).
   */
  async run(
    maxBars: number,
    sink: BarSink | ((bar: Bar, timeframe: Timeframe) => void),
    shouldStop: () => boolean = () => false,
    /** Asked before each new close time (the first included): true stops before any bar closing then (replays' step and seek). */
    stopBefore?: (nextCloseMs: number) => boolean,
  ): Promise<{ fed: number; lastCloseMs: number | null; done: boolean }> {
    for (const cursor of this.cursors) if (cursor.head === 0) while (this.step(cursor)) await this.load(cursor);
    if (typeof sink !== "function" && sink.onColumns && this.cursors.length === 1 && stopBefore === undefined)
      return this.runColumns(this.cursors[0], maxBars, sink.onColumns.bind(sink), shouldStop);
    const onBar = typeof sink === "function" ? sink : sink.onBar.bind(sink);
    let fed = 0;
    let last: number | null = null;
    for (;;) {
      let next: Cursor | undefined;
      for (const cursor of this.cursors) if (cursor.head !== Infinity && (next === undefined || cursor.head < next.head)) next = cursor;
      if (next === undefined) return { fed, lastCloseMs: last, done: true };
      if (stopBefore !== undefined && next.head !== last && stopBefore(next.head)) return { fed, lastCloseMs: last, done: false };
      if (last !== null && next.head !== last && (fed >= maxBars || shouldStop())) return { fed, lastCloseMs: last, done: false };
      const batch = next.batches[next.batch];
      const i = next.index;
      last = next.head;
      onBar(barAt(next.scratch, batch, i, 1000), next.feed.timeframe);
      fed++;
      while (this.step(next)) await this.load(next);
    }
  }

  /**
   * `run` for a single feed, handing over runs of consecutive bars of a loaded batch: the same
   * bars in the same order, cut at the same bar count (every bar of one feed closes at its own
   * time). `shouldStop` is asked between runs.
   */
  private async runColumns(cursor: Cursor, maxBars: number, onColumns: NonNullable<BarSink["onColumns"]>, shouldStop: () => boolean) {
    let fed = 0;
    let last: number | null = null;
    const timeframe = cursor.feed.timeframe;
    const scale = 1000;
    for (;;) {
      if (cursor.head === Infinity) return { fed, lastCloseMs: last, done: true };
      if (last !== null && (fed >= maxBars || shouldStop())) return { fed, lastCloseMs: last, done: false };
      const batch = cursor.batches[cursor.batch];
      const from = cursor.index;
      // Extend the run while the next bar of the same batch is a regular-session bar inside the range.
      let to = from + 1;
      const limit = Math.min(batch.length, from + (maxBars - fed));
      while (
        to < limit &&
        batch.session[to] === INTRADAY &&
        batch.timestamp[to] <= this.endSec &&
        batch.timestamp[to] >= this.startSec &&
        batch.timestamp[to] * scale + cursor.periodMs > this.afterMs
      )
        to++;
      onColumns(columnsOf(cursor.feed.symbol, batch), from, to, timeframe);
      fed += to - from;
      last = batch.timestamp[to - 1] * scale + cursor.periodMs;
      cursor.index = to - 1;
      while (this.step(cursor)) await this.load(cursor);
    }
  }

  /**
   * Moves a cursor to its next regular-session bar after `afterMs` and within the range; true
   * when its loaded window is used up and the next must be loaded first (synchronous otherwise,
   * so the per-bar path awaits nothing).
   */
  private step(cursor: Cursor): boolean {
    for (;;) {
      let batch = cursor.batches[cursor.batch];
      cursor.index++;
      while (batch !== undefined && cursor.index >= batch.length) {
        cursor.batch++;
        cursor.index = 0;
        batch = cursor.batches[cursor.batch];
      }
      if (batch === undefined) {
        if (cursor.nextWindow > this.endSec) {
          cursor.head = Infinity;
          return false;
        }
        return true;
      }
      const ts = batch.timestamp[cursor.index];
      if (ts > this.endSec) {
        cursor.head = Infinity;
        return false;
      }
      if (ts < this.startSec || batch.session[cursor.index] !== INTRADAY) continue;
      const close = ts * 1000 + cursor.periodMs;
      if (close <= this.afterMs) continue;
      cursor.head = close;
      return false;
    }
  }

  private async load(cursor: Cursor) {
    if (cursor.ahead.length === 0) cursor.aheadFrom = cursor.nextWindow;
    this.readAhead(cursor);
    const window = cursor.ahead.shift()!;
    cursor.batches = await window.batches;
    if (window.minutes !== undefined) this.handMinutes(cursor.feed.symbol, { from: window.from, next: window.next, batches: await window.minutes });
    if (this.look && !this.looking && performance.now() - this.lookedAt >= LOOK_EVERY_MS) {
      this.looking = true;
      this.lookedAt = performance.now();
      // A look that fails tells nothing (the caller looks again after the chunk); it never fails the feed.
      this.look()
        .catch(() => undefined)
        .finally(() => {
          this.looking = false;
        });
    }
    cursor.batch = 0;
    cursor.index = -1;
    cursor.nextWindow = window.next;
    this.readAhead(cursor);
  }

  /** Starts the reads of the windows after those under way, up to the feed's share of `READ_AHEAD` and the range's end. */
  private readAhead(cursor: Cursor) {
    const share = Math.max(MIN_READ_AHEAD, Math.floor(READ_AHEAD / this.cursors.length));
    while (cursor.ahead.length < share && cursor.aheadFrom <= this.endSec) {
      const { buckets, next } = this.windowAt(cursor.feed, cursor.aheadFrom);
      const batches = this.read(cursor.feed, buckets);
      // A read left unused (the chunk ends first) must not become an unhandled rejection.
      batches.catch(() => undefined);
      const minutes = this.minutes === undefined || cursor.feed.timeframe === "1m" ? undefined : this.readMinutes(cursor.feed.symbol, cursor.aheadFrom, next);
      minutes?.catch(() => undefined);
      cursor.ahead.push({ batches, from: cursor.aheadFrom, next, minutes });
      cursor.aheadFrom = next;
    }
  }

  /**
   * The first and last buckets of the window from `from`, and where the next window starts (after
   * its last bucket). With `minutes` a window spans about as long as a window of minutes (at least
   * one of its own buckets: a year of daily bars), the minutes inside it being read with it.
   */
  private windowAt(feed: Feed, from: number): { buckets: [string, string]; next: number } {
    const period = feed.timeframe as StoredPeriod;
    const first = Buckets.of(period, from);
    const last = Buckets.of(period, Math.min(this.endSec, from + WINDOW_S[this.minutes === undefined ? period : "1m"] - 1));
    return { buckets: [first, last], next: Buckets.range(period, last)[1] };
  }

  /** The stored regular-session minutes of `symbol` from `from` to before `next` (seconds), in order. */
  private readMinutes(symbol: string, from: number, next: number): Promise<CandleBatch[]> {
    return this.adjusted(symbol, this.candles.loadBetween(symbol, "1m", Buckets.of("1m", from), Buckets.of("1m", Math.min(this.endSec, next - 1)), "regular"));
  }

  /** A read's batches, forward-adjusted when the run adjusts `symbol`. */
  private adjusted(symbol: string, read: Promise<CandleBatch[]>): Promise<CandleBatch[]> {
    const adjust = this.adjust;
    return adjust?.adjusts(symbol) ? read.then((batches) => adjust.adjust(symbol, batches)) : read;
  }

  /**
   * Hands over the minutes of `symbol` the engine may need now: those of the window just loaded
   * and of the windows still kept (another feed of the symbol may be a bar behind, in its own
   * window), merged in time order, a minute read by two feeds taken once. Spans that ended a
   * window of minutes before this one began are forgotten.
   */
  private handMinutes(symbol: string, span: MinuteSpan) {
    const spans = (this.minuteSpans.get(symbol) ?? []).filter((kept) => kept.next > span.from - WINDOW_S["1m"]);
    spans.push(span);
    spans.sort((a, b) => a.from - b.from || b.next - a.next);
    this.minuteSpans.set(symbol, spans);
    const rows: { batch: CandleBatch; from: number; to: number }[] = [];
    let last = Number.NEGATIVE_INFINITY;
    for (const kept of spans)
      for (const batch of kept.batches) {
        let from = 0;
        while (from < batch.length && batch.timestamp[from] <= last) from++;
        if (from === batch.length) continue;
        rows.push({ batch, from, to: batch.length });
        last = batch.timestamp[batch.length - 1];
      }
    const merged = CandleBatches.concat(rows.map(({ batch, from, to }) => (from === 0 && to === batch.length ? batch : CandleBatches.slice(batch, from, to))));
    this.minutes!(symbol, columnsOf(symbol, merged));
  }

  /** The stored batches of a window's buckets, in order. */
  private read(feed: Feed, [first, last]: [string, string]): Promise<CandleBatch[]> {
    return this.adjusted(feed.symbol, this.candles.loadBetween(feed.symbol, feed.timeframe as StoredPeriod, first, last, "regular"));
  }
}
