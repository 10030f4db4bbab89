import type { StoredPeriod } from "@tp/core/candles/buckets";
import { screenCandles } from "@tp/core/imports/index";
import { log } from "@tp/core/log";
import { Calendar } from "@tp/core/market/calendar";
import { marketOf } from "@tp/core/market/market";
import type { MarketData } from "@tp/core/provider/market-data";
import type { Candlestick, PushCandlestickEvent } from "@tp/core/provider/quote-types";
import type { Timeframe } from "@tp/core/strategies/definition";
import type { ClosedBar } from "@tp/core/trading/session/live-run";
import { marketBarCloseOf } from "@tp/core/trading/drivers/rollover";
import type { WorkerContext } from "./context";
import { feedKey, inFeedOrder } from "./feeding";

/** Closed bars kept per feed, for the sessions a task takes over to catch up on (docs/session-worker.md "More than one worker"). */
export const CATCH_UP_BARS = 120;

/**
 * How long after its close by the calendar a bar the provider has not confirmed is closed anyway:
 * LongPort confirms a candlestick only when a trade falls in a later one, so the day's last bar and
 * the daily bar would wait for the next open (docs/live-trading.md "Bars"). The margin lets the
 * last second's trades arrive.
 */
export const CLOSE_GRACE_MS = 2_000;

/** Closed bars of each feed the quote lease's holder publishes each step (the other tasks take what they have not seen). */
const RELAYED_BARS = 3;

/** A closed bar as the candlestick pushed for it. */
const candlestickOf = ({ bar }: ClosedBar): Candlestick => ({
  timestamp: new Date(bar.timestamp).toISOString(),
  open: String(bar.open),
  high: String(bar.high),
  low: String(bar.low),
  close: String(bar.close),
  volume: bar.volume,
  turnover: "0",
  trade_session: "Intraday",
});

/** The simulated market pushes only when told the time has moved; LongPort pushes by itself. */
const advancing = (marketData: MarketData): marketData is MarketData & { advance(): void | Promise<void> } =>
  typeof (marketData as { advance?: unknown }).advance === "function";

/** What the bars' intake asks of the other phases. */
export interface BarsSeams {
  /** Whether this task serves the quote relay (it then subscribes every task's feeds and publishes its bars). */
  relaying(): Promise<boolean>;
  /** The feeds the other live tasks read, as their beats last said. */
  otherFeeds(): string[];
  /** Told the feeds subscribed after every resubscription (the heartbeat lists them). */
  subscribed(feeds: string[]): void;
}

/**
 * The provider's bars (docs/session-worker.md "What it drives"): the candlestick subscriptions,
 * the bar forming in each feed, bars closed by the provider or by the calendar and waiting for the
 * step, the last `CATCH_UP_BARS` of each feed for the sessions catching up, and the candles to store.
 */
export class Bars {
  private readonly subscribed = new Set<string>();
  /** Close time of the last bar closed per feed: the provider may push a confirmed bar again. */
  private readonly lastClose = new Map<string, number>();
  /** The bar forming in each feed, as last pushed: closed by the calendar once its close has passed (`closeByCalendar`). */
  private readonly forming = new Map<string, { closed: ClosedBar; event: PushCandlestickEvent }>();
  /** The close of the day of each feed's latest bar (`marketBarCloseOf`'s memo). */
  private readonly dayCloses = new Map<string, { day: number; close: number }>();
  private pendingBars: ClosedBar[] = [];
  private pendingCandles: PushCandlestickEvent[] = [];
  /** The last `CATCH_UP_BARS` closed bars of each subscribed feed, and when this task received the step's oldest pending one (wall ms). */
  private readonly recent = new Map<string, ClosedBar[]>();
  private pendingSince: number | null = null;
  /** Sessions taken up whose run existed: their first feed is every recent bar after the run's cursor. */
  private readonly catchingUp = new Set<string>();
  /** The market data the worker is subscribed on (`follow`). */
  private market: MarketData | null = null;

  constructor(
    private readonly context: WorkerContext,
    private readonly seams: BarsSeams,
  ) {}

  /** The market data the worker is subscribed on, if any yet. */
  get current(): MarketData | null {
    return this.market;
  }

  /** The simulated market is told the time has moved (it pushes the minutes the clock passed). */
  async advance(): Promise<void> {
    if (this.market && advancing(this.market)) await this.market.advance();
  }

  /** Takes no more pushes (the worker stops). */
  detach(): void {
    this.market?.setOnCandlestick(null);
  }

  /** A session taken up whose run existed: its next feed is every recent bar of its feeds. */
  catchUp(id: string): void {
    this.catchingUp.add(id);
  }

  /** A session no longer catching up (fed, or let go). */
  caughtUp(id: string): void {
    this.catchingUp.delete(id);
  }

  /**
   * The step's closed bars in close order (those the calendar closed included, published for the
   * other tasks where this task relays), the candles to store and when the oldest bar arrived
   * (wall ms); the next step's start empty.
   */
  async take(): Promise<{ bars: ClosedBar[]; candles: PushCandlestickEvent[]; since: number | null }> {
    this.closeByCalendar(this.context.services.trading.sessions.now());
    const bars = this.pendingBars.sort(inFeedOrder);
    if (bars.length > 0) await this.publishBars();
    const candles = this.pendingCandles;
    const since = this.pendingSince;
    this.pendingBars = [];
    this.pendingCandles = [];
    this.pendingSince = null;
    return { bars, candles, since };
  }

  /** A session's bars of the step: the step's bars of its feeds, or, catching up, every recent bar of its feeds (the run's cursor skips what it had). */
  barsOf(id: string, feeds: readonly string[], bars: readonly ClosedBar[]): ClosedBar[] {
    return this.catchingUp.has(id)
      ? feeds.flatMap((key) => this.recent.get(key) ?? []).sort(inFeedOrder)
      : bars.filter((b) => feeds.includes(feedKey(b.bar.symbol, b.timeframe)));
  }

  /** The quote lease's holder publishes the newest bars it closed of every feed, for the other tasks' sessions. */
  private async publishBars(): Promise<void> {
    if (!(await this.seams.relaying())) return;
    const pushes: PushCandlestickEvent[] = [];
    for (const [key, bars] of this.recent) {
      const [symbol, period] = key.split("|") as [string, Timeframe];
      for (const closed of bars.slice(-RELAYED_BARS)) pushes.push({ symbol, data: { period, is_confirmed: true, candlestick: candlestickOf(closed) } });
    }
    await this.context.services.providers.quoteRelay.publishBars({ at: this.context.wall(), pushes });
  }

  /** Subscribes feeds some session needs and unsubscribes those none needs: every task's, where this task holds the quote lease. */
  async resubscribe(): Promise<void> {
    const market = await this.follow();
    const wanted = new Set([...this.context.driven.values()].flatMap((d) => d.feeds));
    if (await this.seams.relaying()) for (const feed of this.seams.otherFeeds()) wanted.add(feed);
    for (const key of wanted) {
      if (this.subscribed.has(key)) continue;
      const [symbol, period] = key.split("|") as [string, Timeframe];
      const latest = await market.subscribeCandlesticks(symbol, period, "Intraday");
      this.subscribed.add(key);
      this.remember(key, symbol, period, latest);
    }
    for (const key of [...this.subscribed]) {
      if (wanted.has(key)) continue;
      const [symbol, period] = key.split("|") as [string, Timeframe];
      await market.unsubscribeCandlesticks(symbol, period);
      this.subscribed.delete(key);
      this.forming.delete(key);
      this.recent.delete(key);
    }
    this.seams.subscribed([...this.subscribed].sort());
  }

  /** The confirmed candles the provider answered a new subscription with: kept for catching up, the newest marking what was seen. */
  private remember(key: string, symbol: string, period: Timeframe, latest: readonly Candlestick[]): void {
    const now = this.context.services.trading.sessions.now();
    const closed = latest.map((candle) => this.closedBarOf(key, symbol, period, candle)).filter((bar) => bar.close_ms <= now);
    const kept = closed.slice(-CATCH_UP_BARS);
    this.recent.set(key, kept);
    if (kept.length > 0) this.lastClose.set(key, Math.max(this.lastClose.get(key) ?? 0, kept[kept.length - 1]!.close_ms));
  }

  /**
   * A provider's candlestick as the closed bar the engine is fed: it closes at its open plus its
   * period, but an hourly or daily bar no later than its market's close that day (the last hourly
   * bar of a US day opens at 19:30Z and closes at 20:00Z, not 20:30Z), so what it causes is never
   * stamped after the day's end (docs/session-worker.md "Day rollover").
   */
  private closedBarOf(key: string, symbol: string, period: Timeframe, candlestick: Candlestick): ClosedBar {
    const open = Date.parse(candlestick.timestamp);
    const bar = {
      symbol,
      timestamp: open,
      open: Number(candlestick.open),
      high: Number(candlestick.high),
      low: Number(candlestick.low),
      close: Number(candlestick.close),
      volume: candlestick.volume,
    };
    let memo = this.dayCloses.get(key);
    if (!memo) this.dayCloses.set(key, (memo = { day: Number.NaN, close: 0 }));
    return { bar, timeframe: period, close_ms: marketBarCloseOf(marketOf(symbol), bar, period, memo) };
  }

  /**
   * A pushed candlestick: a confirmed one closes its bar, one still forming waits for its close by
   * the calendar (`closeByCalendar`); a confirmation of a bar closed already corrects the stored
   * candle when it differs (the run was fed the bar as it stood at its close).
   */
  private onCandlestick(event: PushCandlestickEvent): void {
    const { period, candlestick, is_confirmed } = event.data;
    const key = feedKey(event.symbol, period);
    if (!this.subscribed.has(key)) return;
    const closed = this.closedBarOf(key, event.symbol, period as Timeframe, candlestick);
    if (closed.close_ms <= (this.lastClose.get(key) ?? 0)) {
      if (is_confirmed) this.correct(key, closed, event);
      return;
    }
    if (!is_confirmed) {
      this.forming.set(key, { closed, event });
      return;
    }
    if (this.forming.get(key)?.closed.close_ms === closed.close_ms) this.forming.delete(key);
    this.accept(key, closed, event);
  }

  /** Closes the bars still forming whose close the calendar has passed (`CLOSE_GRACE_MS` after it), as their provider had confirmed them. */
  private closeByCalendar(now: number): void {
    for (const [key, { closed, event }] of this.forming) {
      if (closed.close_ms + CLOSE_GRACE_MS > now) continue;
      this.forming.delete(key);
      if (closed.close_ms <= (this.lastClose.get(key) ?? 0)) continue;
      this.accept(key, closed, { ...event, data: { ...event.data, is_confirmed: true } });
    }
  }

  /** The provider's confirmation of a bar closed by the calendar: a different bar is a correction of the stored candle, logged. */
  private correct(key: string, confirmed: ClosedBar, event: PushCandlestickEvent): void {
    const recent = this.recent.get(key);
    const index = recent?.findIndex((bar) => bar.bar.timestamp === confirmed.bar.timestamp) ?? -1;
    if (!recent || index < 0) return;
    const fed = recent[index]!.bar;
    const { bar } = confirmed;
    if (fed.open === bar.open && fed.high === bar.high && fed.low === bar.low && fed.close === bar.close && fed.volume === bar.volume) return;
    recent[index] = confirmed;
    this.pendingCandles.push(event);
    log.warn("A bar closed by the calendar was corrected by the provider's confirmation", {
      source: "session-worker",
      feed: key,
      bar_open: new Date(bar.timestamp).toISOString(),
      fed: { open: fed.open, high: fed.high, low: fed.low, close: fed.close, volume: fed.volume },
      confirmed: { open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume },
    });
  }

  /** A closed bar: kept for catching up, fed at the next flush, stored. */
  private accept(key: string, closed: ClosedBar, event: PushCandlestickEvent): void {
    this.lastClose.set(key, closed.close_ms);
    const recent = this.recent.get(key) ?? [];
    recent.push(closed);
    if (recent.length > CATCH_UP_BARS) recent.shift();
    this.recent.set(key, recent);
    this.pendingSince ??= this.context.wall();
    this.pendingBars.push(closed);
    this.pendingCandles.push(event);
  }

  /** Confirmed candles of stored periods go to the candle store, screened as imports are. */
  async storeCandles(events: PushCandlestickEvent[]): Promise<void> {
    const groups = new Map<string, PushCandlestickEvent[]>();
    for (const event of events) {
      const key = feedKey(event.symbol, event.data.period);
      groups.set(key, [...(groups.get(key) ?? []), event]);
    }
    for (const [key, group] of groups) {
      const [symbol, period] = key.split("|") as [string, StoredPeriod];
      const { batch } = screenCandles(
        group.map((e) => e.data.candlestick),
        period,
        Calendar.for(marketOf(symbol)),
        [0, Number.MAX_SAFE_INTEGER],
      );
      if (batch.length > 0) await this.context.services.candles.upsert(symbol, period, batch);
    }
  }

  /**
   * The market data whose pushes drive the sessions: the fixed one, or the selected provider's
   * now. When the provider's adapters were rebuilt (another provider, new credentials or token),
   * the worker moves its handler and its subscriptions to the new ones; the bars kept for catching
   * up, and the close of the last bar of each feed, stay.
   */
  private async follow(): Promise<MarketData> {
    const next = this.context.options.marketData ?? (await this.context.services.marketData());
    const previous = this.market;
    if (next === previous) return next;
    if (previous) {
      previous.setOnCandlestick(null);
      // The old adapters may be unreachable already (that can be why they were replaced): what they still hold is dropped with them.
      for (const key of this.subscribed) {
        const [symbol, period] = key.split("|") as [string, Timeframe];
        await previous.unsubscribeCandlesticks(symbol, period).catch(() => undefined);
      }
      log.info("The session worker follows the provider's new market data", { source: "session-worker", feeds: [...this.subscribed] });
    }
    this.subscribed.clear();
    this.forming.clear();
    next.setOnCandlestick((event) => this.onCandlestick(event));
    this.market = next;
    return next;
  }
}
