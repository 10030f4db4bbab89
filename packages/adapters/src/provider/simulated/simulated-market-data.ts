import { badRequest, DomainError, notFound } from "@tp/core/errors";
import { Calendar } from "@tp/core/market/calendar";
import { assertSupportedMarket, Market, marketOf, normalizeSymbol } from "@tp/core/market/market";
import { dayNumberOf, isoDateOf, type IsoDate } from "@tp/core/market/zoned-time";
import type { Clock } from "@tp/core/provider/clock";
import { MarketDataLimits, type MarketData, type PushHandler } from "@tp/core/provider/market-data";
import { AdjustType, CalcIndex, Period, periodMinutes, SubType, TradeSessions } from "@tp/core/provider/quote-enums";
import type {
  Candlestick,
  IntradayLine,
  MarketTradingDays,
  MarketTradingSession,
  PushCandlestickEvent,
  PushDepthEvent,
  PushQuoteEvent,
  PushTradesEvent,
  RealtimeQuote,
  SecurityCalcIndex,
  SecurityDepth,
  SecurityQuote,
  SecurityStaticInfo,
  Subscription,
  Trade,
} from "@tp/core/provider/quote-types";
import { MASK_ALL, MASK_EXTENDED, MASK_INTRADAY, type MinutePosition } from "./day-layout";
import {
  calcIndexOf,
  candlestickAt,
  candlesticksOf,
  depthAt,
  intradayLinesOf,
  latestSessionState,
  pushQuoteOf,
  realtimeQuoteOf,
  recentMinutes,
  securityQuoteOf,
  sessionStateAt,
  staticInfoOf,
  tradesOfMinutes,
  type SessionState,
} from "./market-views";
import { SimulationEngine, type InstrumentState } from "./simulation-engine";

/** Options of the simulated market. */
export interface SimulatedMarketDataOptions {
  /** Source of "now" for quotes, candles and pushes. */
  clock: Clock;
  /** Expose the US overnight session (LongPort's `enable_overnight`). Default false. */
  overnight?: boolean;
  /** Share one engine (and its caches) between instances; default a new engine over the fixed universe. */
  engine?: SimulationEngine;
}

interface SymbolSubscription {
  instrument: InstrumentState;
  subTypes: Set<SubType>;
  candlesticks: Map<Period, TradeSessions>;
  /** Pushes cover minutes completed after this instant. */
  since: number;
}

// Oldest minutes are dropped when one tick spans more than this (a clock jump): a day of minutes.
const MAX_MINUTES_PER_TICK = 1440;
// Trading days spanned by one bar, for sizing "latest N bars" queries.
const DAYS_PER_BAR: Partial<Record<Period, number>> = { "1d": 1, "1w": 5, "1mo": 23, "1q": 66, "1y": 253 };
const CANDLESTICKS_ON_SUBSCRIBE = 500;

/**
 * A deterministic simulated market behind the `MarketData` port: US and HK instruments from a
 * fixed universe, prices a pure function of symbol and time (see `simulation-engine.ts`), and
 * "now" from the injected clock, so a realtime quote continues the minute history seamlessly.
 * Pushes are produced by `tick(now)` / `advance()`; nothing here starts a timer.
 */
export class SimulatedMarketData implements MarketData {
  readonly engine: SimulationEngine;
  readonly overnight: boolean;
  private readonly clock: Clock;
  private readonly subscriptionsBySymbol = new Map<string, SymbolSubscription>();
  private readonly resolved = new Map<string, InstrumentState>();
  private onQuote: PushHandler<PushQuoteEvent> = null;
  private onDepth: PushHandler<PushDepthEvent> = null;
  private onTrades: PushHandler<PushTradesEvent> = null;
  private onCandlestick: PushHandler<PushCandlestickEvent> = null;

  constructor(options: SimulatedMarketDataOptions) {
    this.clock = options.clock;
    this.overnight = options.overnight ?? false;
    this.engine = options.engine ?? new SimulationEngine();
  }

  /** Symbols of the simulated universe, US first. */
  symbols(): string[] {
    return this.engine.instruments.map((i) => i.spec.symbol);
  }

  async staticInfo(symbols: string[]): Promise<SecurityStaticInfo[]> {
    return this.resolveAll(symbols).map((i) => staticInfoOf(i.spec));
  }

  async quote(symbols: string[]): Promise<SecurityQuote[]> {
    const now = this.clock.now();
    return this.resolveAll(symbols).map((i) => securityQuoteOf(this.engine, i, this.regularState(i, now), now, this.overnight));
  }

  async depth(symbol: string): Promise<SecurityDepth> {
    const instrument = this.resolve(symbol);
    return depthAt(this.engine, instrument, instrument.timeline.lastInMask(this.clock.now(), this.visibleMask()));
  }

  async trades(symbol: string, count: number): Promise<Trade[]> {
    const instrument = this.resolve(symbol);
    return this.recentTrades(instrument, checkCount(count), this.clock.now());
  }

  async intraday(symbol: string, tradeSessions: TradeSessions): Promise<IntradayLine[]> {
    const instrument = this.resolve(symbol);
    const mask = this.maskOf(tradeSessions);
    return intradayLinesOf(this.engine, instrument, instrument.timeline.lastInMask(this.clock.now(), mask), mask);
  }

  async candlesticks(symbol: string, period: Period, count: number, adjustType: AdjustType, tradeSessions: TradeSessions): Promise<Candlestick[]> {
    const instrument = this.resolve(symbol);
    checkEnum(Period, period, "period");
    checkEnum(AdjustType, adjustType, "adjust_type");
    return this.latestCandlesticks(instrument, period, checkCount(count), this.maskOf(tradeSessions), this.clock.now());
  }

  async historyCandlesticksByDate(
    symbol: string,
    period: Period,
    adjustType: AdjustType,
    start: IsoDate | null,
    end: IsoDate | null,
    tradeSessions: TradeSessions,
  ): Promise<Candlestick[]> {
    const instrument = this.resolve(symbol);
    checkEnum(Period, period, "period");
    checkEnum(AdjustType, adjustType, "adjust_type");
    const mask = this.maskOf(tradeSessions);
    const calendar = instrument.timeline.calendar;
    const now = this.clock.now();
    const endDay = end === null ? null : dayNumberOf(end);
    const startDay = start === null ? null : dayNumberOf(start);
    if (startDay !== null && endDay !== null && startDay > endDay) {
      throw badRequest("INVALID_DATE_RANGE", `start ${start} is after end ${end}`);
    }
    const lastOrdinal = endDay === null ? instrument.timeline.count - 1 : calendar.ordinalOnOrAfterDay(endDay + 1) - 1;
    if (lastOrdinal < 0) return [];
    if (startDay === null) {
      // No start: the latest `count` bars up to the end date, as LongPort answers an open range.
      const until = Math.min(now, instrument.timeline.layout(lastOrdinal).end);
      return this.latestCandlesticks(instrument, period, MarketDataLimits.count, mask, until);
    }
    const firstOrdinal = calendar.ordinalOnOrAfterDay(startDay);
    if (firstOrdinal > lastOrdinal) return [];
    return candlesticksOf(instrument.spec, this.engine.bars(instrument, period, firstOrdinal, lastOrdinal, now, mask));
  }

  async tradingDays(market: Market, begin: IsoDate, end: IsoDate): Promise<MarketTradingDays> {
    checkEnum(Market, market, "market");
    const calendar = Calendar.for(market);
    const half = calendar.halfDays(begin, end);
    const halfSet = new Set(half);
    return { trading_days: calendar.tradingDays(begin, end).filter((d) => !halfSet.has(d)), half_trading_days: half };
  }

  async tradingSession(): Promise<MarketTradingSession[]> {
    return (["US", "HK"] as const).map((market) => ({
      market,
      trade_sessions: Calendar.for(market)
        .sessionTable({ overnight: this.overnight })
        .map((row) => ({ begin_time: `${row.begin}:00`, end_time: `${row.end}:00`, trade_session: row.session })),
    }));
  }

  async calcIndexes(symbols: string[], indexes: CalcIndex[]): Promise<SecurityCalcIndex[]> {
    if (!Array.isArray(indexes) || indexes.length === 0) throw badRequest("INVALID_PARAMETER", "indexes must list at least one calc index");
    for (const index of indexes) checkEnum(CalcIndex, index, "indexes");
    const now = this.clock.now();
    return this.resolveAll(symbols).map((i) => calcIndexOf(this.engine, i, this.regularState(i, now), indexes));
  }

  async subscriptions(): Promise<Subscription[]> {
    return [...this.subscriptionsBySymbol.values()].map((s) => ({
      symbol: s.instrument.spec.symbol,
      sub_types: SubType.options.filter((t) => s.subTypes.has(t)),
      candlesticks: [...s.candlesticks.keys()],
    }));
  }

  async subscribe(symbols: string[], subTypes: SubType[], isFirstPush: boolean): Promise<void> {
    const instruments = this.resolveAll(symbols);
    checkSubTypes(subTypes);
    this.checkSubscriptionRoom(instruments);
    const now = this.clock.now();
    for (const instrument of instruments) {
      const subscription = this.subscriptionOf(instrument, now);
      for (const type of subTypes) subscription.subTypes.add(type);
    }
    if (isFirstPush) for (const instrument of instruments) this.pushCurrent(instrument, subTypes, now);
  }

  async unsubscribe(symbols: string[], subTypes: SubType[]): Promise<void> {
    const instruments = this.resolveAll(symbols);
    checkSubTypes(subTypes);
    for (const instrument of instruments) {
      const subscription = this.subscriptionsBySymbol.get(instrument.spec.symbol);
      if (!subscription) continue;
      for (const type of subTypes) subscription.subTypes.delete(type);
      this.dropIfEmpty(subscription);
    }
  }

  async subscribeCandlesticks(symbol: string, period: Period, tradeSessions: TradeSessions): Promise<Candlestick[]> {
    const instrument = this.resolve(symbol);
    checkEnum(Period, period, "period");
    const mask = this.maskOf(tradeSessions);
    this.checkSubscriptionRoom([instrument]);
    const now = this.clock.now();
    this.subscriptionOf(instrument, now).candlesticks.set(period, tradeSessions);
    return this.latestCandlesticks(instrument, period, CANDLESTICKS_ON_SUBSCRIBE, mask, now);
  }

  async unsubscribeCandlesticks(symbol: string, period: Period): Promise<void> {
    const instrument = this.resolve(symbol);
    const subscription = this.subscriptionsBySymbol.get(instrument.spec.symbol);
    if (!subscription) return;
    subscription.candlesticks.delete(period);
    this.dropIfEmpty(subscription);
  }

  setOnQuote(handler: PushHandler<PushQuoteEvent>): void {
    this.onQuote = handler;
  }

  setOnDepth(handler: PushHandler<PushDepthEvent>): void {
    this.onDepth = handler;
  }

  setOnTrades(handler: PushHandler<PushTradesEvent>): void {
    this.onTrades = handler;
  }

  setOnCandlestick(handler: PushHandler<PushCandlestickEvent>): void {
    this.onCandlestick = handler;
  }

  async realtimeQuote(symbols: string[]): Promise<RealtimeQuote[]> {
    const now = this.clock.now();
    return this.resolveAll(symbols)
      .filter((i) => this.subscriptionsBySymbol.get(i.spec.symbol)?.subTypes.has("Quote"))
      .map((i) => realtimeQuoteOf(i.spec, this.regularState(i, now)));
  }

  async realtimeDepth(symbol: string): Promise<SecurityDepth> {
    const instrument = this.resolve(symbol);
    if (!this.subscriptionsBySymbol.get(instrument.spec.symbol)?.subTypes.has("Depth")) return { asks: [], bids: [] };
    return depthAt(this.engine, instrument, instrument.timeline.lastInMask(this.clock.now(), this.visibleMask()));
  }

  async realtimeTrades(symbol: string, count: number): Promise<Trade[]> {
    const instrument = this.resolve(symbol);
    const checked = checkCount(count);
    if (!this.subscriptionsBySymbol.get(instrument.spec.symbol)?.subTypes.has("Trade")) return [];
    return this.recentTrades(instrument, checked, this.clock.now());
  }

  /** Emits pushes for minutes completed since the previous tick, up to the clock's now. */
  advance(): void {
    this.tick(this.clock.now());
  }

  /**
   * Emits pushes for every subscribed symbol's minutes completed in (previous tick, now]: one
   * quote (with the volume and turnover added since the previous push), one depth, the trades,
   * and the updated or finished candlesticks of each subscribed period. A tick spanning more
   * than a day of minutes pushes only the latest day's. Moving the clock backwards only resets
   * the push position.
   */
  tick(now: number): void {
    for (const subscription of [...this.subscriptionsBySymbol.values()]) {
      const since = subscription.since;
      subscription.since = now;
      if (now <= since) continue;
      const { instrument } = subscription;
      const timeline = instrument.timeline;
      const visible = this.visibleMask();
      const before = timeline.lastInMask(since, visible);
      const minutes = recentMinutes(timeline, timeline.lastInMask(now, visible), visible, MAX_MINUTES_PER_TICK, before);
      if (minutes.length === 0) continue;
      this.pushMinutes(subscription, minutes, now);
    }
  }

  // ---- internals ----

  private pushMinutes(subscription: SymbolSubscription, minutes: MinutePosition[], now: number): void {
    const { instrument, subTypes } = subscription;
    const symbol = instrument.spec.symbol;
    if (subTypes.has("Quote") && this.onQuote) {
      let volume = 0;
      let turnover = 0;
      for (const m of minutes) {
        const day = this.engine.day(instrument, m.ordinal);
        volume += day.volume[m.index];
        turnover += day.turnover[m.index];
      }
      const state = sessionStateAt(this.engine, instrument, minutes[minutes.length - 1]);
      this.onQuote({ symbol, data: pushQuoteOf(instrument.spec, state, volume, turnover) });
    }
    if (subTypes.has("Depth") && this.onDepth) {
      this.onDepth({ symbol, data: depthAt(this.engine, instrument, minutes[minutes.length - 1]) });
    }
    if (subTypes.has("Trade") && this.onTrades) {
      const trades = tradesOfMinutes(this.engine, instrument, minutes);
      this.onTrades({ symbol, data: { trades: trades.slice(-MarketDataLimits.count) } });
    }
    if (subscription.candlesticks.size > 0 && this.onCandlestick) {
      for (const [period, tradeSessions] of subscription.candlesticks) {
        const mask = this.maskOf(tradeSessions);
        const first = minutes.find((m) => mask & (1 << instrument.timeline.layout(m.ordinal).shape.session[m.index]));
        if (!first) continue;
        const firstStart = instrument.timeline.minuteStart(instrument.timeline.layout(first.ordinal), first.index);
        const bars = this.engine.bars(instrument, period, this.groupStart(instrument, period, first.ordinal), minutes[minutes.length - 1].ordinal, now, mask);
        for (let i = 0; i < bars.length; i++) {
          if (bars.end[i] <= firstStart) continue;
          this.onCandlestick({ symbol, data: { period, candlestick: candlestickAt(instrument.spec, bars, i), is_confirmed: bars.end[i] <= now } });
        }
      }
    }
  }

  private pushCurrent(instrument: InstrumentState, subTypes: SubType[], now: number): void {
    const last = instrument.timeline.lastInMask(now, this.visibleMask());
    if (!last) return;
    const symbol = instrument.spec.symbol;
    if (subTypes.includes("Quote") && this.onQuote) {
      this.onQuote({ symbol, data: pushQuoteOf(instrument.spec, sessionStateAt(this.engine, instrument, last), 0, 0) });
    }
    if (subTypes.includes("Depth") && this.onDepth) this.onDepth({ symbol, data: depthAt(this.engine, instrument, last) });
    if (subTypes.includes("Trade") && this.onTrades) {
      this.onTrades({ symbol, data: { trades: tradesOfMinutes(this.engine, instrument, [last]) } });
    }
  }

  /** The first trading day of the bar group (week, month, …) containing a day; the day itself for shorter periods. */
  private groupStart(instrument: InstrumentState, period: Period, ordinal: number): number {
    const unit = period === "1w" ? "week" : period === "1mo" ? "month" : period === "1q" ? "quarter" : period === "1y" ? "year" : null;
    if (!unit) return ordinal;
    const keys = instrument.timeline.groupKeysOf(unit);
    let first = ordinal;
    while (first > 0 && keys[first - 1] === keys[ordinal]) first--;
    return first;
  }

  private latestCandlesticks(instrument: InstrumentState, period: Period, count: number, mask: number, asOf: number): Candlestick[] {
    const last = instrument.timeline.lastInMask(asOf, mask);
    if (!last) return [];
    const minutes = periodMinutes(period);
    const barsPerDay = minutes === null ? 1 / DAYS_PER_BAR[period]! : Math.max(1, Math.floor((mask === MASK_INTRADAY ? 330 : 960) / minutes));
    let span = Math.ceil(count / barsPerDay) + (minutes === null ? 2 * DAYS_PER_BAR[period]! : 1);
    for (;;) {
      const from = Math.max(0, last.ordinal - span);
      const bars = this.engine.bars(instrument, period, this.groupStart(instrument, period, from), last.ordinal, asOf, mask);
      if (bars.length >= count || from === 0) return candlesticksOf(instrument.spec, bars, Math.max(0, bars.length - count));
      span *= 2;
    }
  }

  private recentTrades(instrument: InstrumentState, count: number, now: number): Trade[] {
    const mask = this.visibleMask();
    const minutes = recentMinutes(instrument.timeline, instrument.timeline.lastInMask(now, mask), mask, Math.ceil(count / 4));
    return tradesOfMinutes(this.engine, instrument, minutes).slice(-count);
  }

  private regularState(instrument: InstrumentState, now: number): SessionState {
    const state = latestSessionState(this.engine, instrument, now, MASK_INTRADAY);
    if (!state) {
      const first = isoDateOf(instrument.timeline.calendar.firstDay);
      throw notFound("NO_MARKET_DATA", `${instrument.spec.symbol} has no simulated trading before the calendar starts (${first})`);
    }
    return state;
  }

  private visibleMask(): number {
    return this.overnight ? MASK_ALL : MASK_EXTENDED;
  }

  private maskOf(tradeSessions: TradeSessions): number {
    checkEnum(TradeSessions, tradeSessions, "trade_sessions");
    return tradeSessions === "Intraday" ? MASK_INTRADAY : this.visibleMask();
  }

  private subscriptionOf(instrument: InstrumentState, now: number): SymbolSubscription {
    let subscription = this.subscriptionsBySymbol.get(instrument.spec.symbol);
    if (!subscription) {
      subscription = { instrument, subTypes: new Set(), candlesticks: new Map(), since: now };
      this.subscriptionsBySymbol.set(instrument.spec.symbol, subscription);
    }
    return subscription;
  }

  private dropIfEmpty(subscription: SymbolSubscription): void {
    if (subscription.subTypes.size === 0 && subscription.candlesticks.size === 0) {
      this.subscriptionsBySymbol.delete(subscription.instrument.spec.symbol);
    }
  }

  private checkSubscriptionRoom(instruments: InstrumentState[]): void {
    const added = new Set(instruments.map((i) => i.spec.symbol).filter((s) => !this.subscriptionsBySymbol.has(s)));
    if (this.subscriptionsBySymbol.size + added.size > MarketDataLimits.subscribedSymbols) {
      throw badRequest(
        "SUBSCRIPTION_LIMIT_EXCEEDED",
        `at most ${MarketDataLimits.subscribedSymbols} symbols can be subscribed; ${this.subscriptionsBySymbol.size} are and ${added.size} more were asked for`,
      );
    }
  }

  private resolve(symbol: string): InstrumentState {
    const known = this.resolved.get(symbol);
    if (known) return known;
    if (typeof symbol !== "string") throw badRequest("INVALID_SYMBOL", "symbol must be a string such as AAPL.US");
    const canonical = normalizeSymbol(symbol);
    assertSupportedMarket(marketOf(canonical), `${canonical}: market`);
    const instrument = this.engine.instrument(canonical);
    if (!instrument) {
      throw notFound("SYMBOL_NOT_FOUND", `${canonical} is not in the simulated universe; known symbols: ${this.symbols().join(", ")}`);
    }
    // Remember spellings that resolved; bounded because callers choose the strings.
    if (this.resolved.size >= 10_000) this.resolved.clear();
    this.resolved.set(symbol, instrument);
    return instrument;
  }

  private resolveAll(symbols: string[]): InstrumentState[] {
    if (!Array.isArray(symbols) || symbols.length === 0) throw badRequest("INVALID_PARAMETER", "symbols must list at least one symbol");
    if (symbols.length > MarketDataLimits.symbolsPerRequest) {
      throw badRequest("TOO_MANY_SYMBOLS", `at most ${MarketDataLimits.symbolsPerRequest} symbols per request, got ${symbols.length}`);
    }
    const missing: string[] = [];
    const found: InstrumentState[] = [];
    for (const symbol of symbols) {
      const known = this.resolved.get(symbol);
      if (known) {
        found.push(known);
        continue;
      }
      try {
        found.push(this.resolve(symbol));
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== "SYMBOL_NOT_FOUND") throw error;
        missing.push(normalizeSymbol(symbol));
      }
    }
    if (missing.length > 0) {
      throw notFound("SYMBOL_NOT_FOUND", `not in the simulated universe: ${missing.join(", ")}`);
    }
    return found;
  }
}

function checkCount(count: number): number {
  if (!Number.isInteger(count) || count < 1 || count > MarketDataLimits.count) {
    throw badRequest("INVALID_PARAMETER", `count must be an integer from 1 to ${MarketDataLimits.count}, got ${String(count)}`);
  }
  return count;
}

function checkEnum(schema: { safeParse(value: unknown): { success: boolean }; options: readonly string[] }, value: unknown, name: string): void {
  if (!schema.safeParse(value).success) {
    throw badRequest("INVALID_PARAMETER", `${name} must be one of ${schema.options.join(", ")}, got ${String(value)}`);
  }
}

function checkSubTypes(subTypes: SubType[]): void {
  if (!Array.isArray(subTypes) || subTypes.length === 0) throw badRequest("INVALID_PARAMETER", "sub_types must list at least one type");
  for (const type of subTypes) {
    checkEnum(SubType, type, "sub_types");
    if (type === "Brokers") {
      throw badRequest("SUB_TYPE_NOT_SUPPORTED", "the simulated market has no broker queue; subscribe to Quote, Depth or Trade");
    }
  }
}
