import { Markets, marketOf } from "../market/market";
import type { Limits } from "../risk/risk";
import type { Timeframe } from "../strategies/definition";
import { barAt, type Bar, type BarColumns, type IndexedSignal, type Signal } from "../strategies/strategy";
import { referencePrice } from "./cash";
import { preTradeDenials } from "./checks";
import { dayMarketOf, monitor, rollTo } from "./days";
import type { Denial, EngineEvent, EngineOrder, EventType } from "./events";
import { settleExits, watchExits } from "./exits";
import { fillIntrabar, fillPending, type VenueCharge } from "./fills";
import { emptyPosition, type Position } from "./ledger";
import { biasesOf, multiTimeframeBar, type DirectorBias } from "./multi-timeframe";
import { replaceOrder } from "./order-replacement";
import * as Commands from "./commands";
import { newChannel } from "./channel-build";
import { actOnSignal } from "./orders";
import {
  EngineCore,
  equityOf,
  newTracker,
  NO_ROUTES,
  PERIOD_MS,
  type ChannelRunState,
  type ChannelRuntime,
  type OrderRequest,
  type Sleeve,
  type SymbolInfo,
} from "./runtime";
import type { EngineSetup } from "./setup";
import { restoreInto, snapshotOf, type EngineSnapshot } from "./snapshot";
import { orderRouted, venueFilled, venueOrderEnded, venueReplaced, type VenueEnd } from "./venue-reports";
import { viewOf, type EngineView } from "./view";
import { warmUpStrategies, warmupNeedsOf, type WarmupNeed } from "./warm-up";

export type { ChannelRunState, Halt, OrderRequest } from "./runtime";
export type { EngineSnapshot } from "./snapshot";
export type { EngineView, PositionView } from "./view";
export type { VenueCharge } from "./fills";
export type { VenueEnd } from "./venue-reports";
export type { DirectorBias } from "./multi-timeframe";
export type { WarmupNeed } from "./warm-up";
export { PERIOD_MS } from "./runtime";

export { barCloseIn, dayMarketOf, regularCloseOf } from "./days";

/**
 * The trading engine: one session's channels, strategies, ledger, bar-simulated venue, risk
 * checks and monitors, fed closed bars in time order by whichever driver runs it (backtest
 * chunks, replay, the session worker). Deterministic: it reads time only from the bars and
 * commands it is given, and its whole state is the JSON of `snapshot()`. The class is the façade
 * and the hot loops; it extends its state (`EngineCore`, `runtime.ts`, the fields declared once), which the engine's modules share:
 * a channel's runtime built from its setup (`channel-build.ts`), signals into orders and placing
 * them (`orders.ts`), the commands outside the bars (`commands.ts`), pre-trade checks (`checks.ts`), cash and commission (`cash.ts`), fills (`fills.ts`), days and
 * monitors (`days.ts`), order replacement (`order-replacement.ts`), a broker venue's reports
 * (`venue-reports.ts`), multi-timeframe sleeves (`multi-timeframe.ts`), warm-up (`warm-up.ts`),
 * the view (`view.ts`) and the snapshot (`snapshot.ts`).
 */
export class TradingEngine extends EngineCore {
  private readonly byId = new Map<string, ChannelRuntime>();
  /** Scratch of `onColumns`: each listener's signals and how far they are handled. */
  private readonly columnSignals: IndexedSignal[][] = [];
  private readonly columnCursors: number[] = [];
  private events: EngineEvent[] = [];

  constructor(setup: EngineSetup) {
    super(setup, Markets[dayMarketOf(setup)].timeZone);
    for (const channel of setup.channels) {
      const runtime = newChannel(setup, channel);
      const sleeves = runtime.sleeves;
      this.refreshCash(runtime);
      runtime.initial_equity = runtime.cash_value;
      runtime.tracker = newTracker(runtime.cash_value);
      this.channels.push(runtime);
      this.byId.set(channel.channel_id, runtime);
      channel.strategies.forEach((slot, index) => {
        for (const symbol of slot.symbols) this.route(symbol, slot.timeframe, runtime, sleeves[index]);
      });
    }
    this.session = newTracker(this.totalEquity());
  }

  // ---- inputs -------------------------------------------------------------------------------

  /**
   * Feeds one closed bar of `timeframe`. Bars must arrive in time order across symbols. What it
   * causes is stamped at `closeMs`: its open plus its period unless the driver knows it closed
   * earlier (an hourly or daily bar at its day's regular close, `barCloseIn`).
   */
  onBar(bar: Bar, timeframe: Timeframe, closeMs?: number): void {
    const at = bar.timestamp;
    const info = this.info(bar.symbol);
    const closeTime = closeMs ?? at + PERIOD_MS[timeframe];
    this.step(info, at, closeTime, bar.open, bar.high, bar.low, bar.close, bar.volume);
    // Entries the bar filled get their protective orders at its close, before the strategies decide (EXITS.md "Order of events").
    if (this.exitsDue.length > 0) settleExits(this, closeTime, bar.close);
    if (!this.barFills && this.pending.length > 0) this.watch(info.symbol, at, closeTime, bar.high, bar.low, bar.close);
    const listeners = info.routes[timeframe];
    if (listeners === undefined) return;
    for (let i = 0; i < listeners.length; i++) {
      const { channel, sleeve } = listeners[i];
      if (sleeve.role !== null) {
        multiTimeframeBar(this, channel, sleeve, bar, timeframe, closeTime);
        this.clockTo(at);
        continue;
      }
      const signals = sleeve.strategy!.onBar(bar);
      if (signals.length === 0) continue;
      this.clockTo(closeTime);
      for (const signal of signals) actOnSignal(this, channel, sleeve, signal, bar.close);
      this.clockTo(at);
    }
    // An entry filled at this close (`execution.fill: "close"`).
    if (this.exitsDue.length > 0) settleExits(this, closeTime, bar.close);
  }

  /**
   * `execution.intrabar`: the stored 1-minute bars of `symbol` (timestamps in `msPerUnit`, in time
   * order, regular session) for the span about to be fed, replacing those handed before; the
   * fills of its coarser bars walk the minutes inside each bar (`fills.ts` `fillIntrabar`). Not
   * part of the snapshot: a driver hands them again to a restored engine. Null forgets them.
   */
  useMinutes(symbol: string, minutes: BarColumns | null): void {
    if (!this.intrabar) throw new RangeError("useMinutes: the run's execution has no intrabar (or its orders fill at a broker)");
    this.info(symbol).minutes = minutes;
  }

  /**
   * `execution.intrabar`: writes a `log` warning counting the bars whose waiting orders were tried
   * on the bar's own prices because no stored minute lay inside them, since the last report (a
   * backtest's chunk reports once, at its end; the result's warnings add them up). Nothing when none.
   */
  reportIntrabar(): void {
    if (this.intrabarMissing === 0) return;
    const bars = this.intrabarMissing;
    this.intrabarMissing = 0;
    this.emit("log", null, {
      level: "warning",
      message: `${bars} bar${bars === 1 ? "" : "s"} with orders waiting had no stored 1-minute bars inside: their orders were tried on the bar's own open, high and low`,
      intrabar: { bars_without_minutes: bars },
    });
  }

  /** The history a fresh run wants before its first live bar (`warm-up.ts`). */
  warmupNeeds(): WarmupNeed[] {
    return warmupNeedsOf(this);
  }

  /** Feeds closed bars of history to the strategies that read them, trading nothing (`warm-up.ts`). */
  warmUp(need: WarmupNeed, bars: readonly Bar[], problem?: string): void {
    warmUpStrategies(this, need, bars, problem);
  }

  /**
   * The batch path: feeds bars `from` to `to - 1` of one symbol's columns, all of `timeframe`,
   * giving exactly the events and state of `onBar` on each of them in turn (a test holds both
   * paths to that). The strategies listening to the symbol run over the columns first, in their
   * tight batch loops; then the engine walks the bars, touching money only when something fills
   * or a signal arrives. The range is fed as a whole: snapshot before or after it, not inside.
   * `closeOf` is `onBar`'s `closeMs` for each bar, from its open (absent: its open plus its period).
   */
  onColumns(columns: BarColumns, from: number, to: number, timeframe: Timeframe, closeOf?: (openMs: number) => number): void {
    if (to <= from) return;
    const info = this.info(columns.symbol);
    const listeners = info.routes[timeframe] ?? NO_ROUTES;
    // Multi-timeframe sleeves read their director's bias bar by bar, and tracing writes every strategy bar: those go the streaming way.
    if (this.setup.trace || listeners.some((listener) => listener.sleeve.role !== null)) return this.barByBar(columns, from, to, timeframe, closeOf);
    const signals = this.columnSignals;
    for (let l = 0; l < listeners.length; l++) {
      const list = (signals[l] ??= []);
      list.length = 0;
      listeners[l].sleeve.strategy!.onColumns(columns, from, to, list);
    }
    const cursors = this.columnCursors;
    for (let l = 0; l < listeners.length; l++) cursors[l] = 0;
    // The next bar index with a signal of any listener.
    let next = nextSignal(signals, cursors, listeners.length);
    const { timestamp, open, high, low, close, volume, msPerUnit } = columns;
    const period = PERIOD_MS[timeframe];
    for (let i = from; i < to; i++) {
      const at = timestamp[i] * msPerUnit;
      const closeAt = closeOf === undefined ? at + period : closeOf(at);
      this.step(info, at, closeAt, open[i], high[i], low[i], close[i], volume[i]);
      if (this.exitsDue.length > 0) settleExits(this, closeAt, close[i]);
      if (!this.barFills && this.pending.length > 0) this.watch(info.symbol, at, closeAt, high[i], low[i], close[i]);
      if (i !== next) continue;
      this.clockTo(closeAt);
      for (let l = 0; l < listeners.length; l++) {
        const list = signals[l];
        while (cursors[l] < list.length && list[cursors[l]].index === i) {
          const { channel, sleeve } = listeners[l];
          actOnSignal(this, channel, sleeve, list[cursors[l]++].signal, close[i]);
        }
      }
      this.clockTo(at);
      if (this.exitsDue.length > 0) settleExits(this, closeAt, close[i]);
      next = nextSignal(signals, cursors, listeners.length);
    }
    for (let l = 0; l < listeners.length; l++) signals[l].length = 0;
  }

  /** `onColumns` through `onBar`, one scratch bar at a time. */
  private barByBar(columns: BarColumns, from: number, to: number, timeframe: Timeframe, closeOf?: (openMs: number) => number) {
    const bar: Bar = { symbol: columns.symbol, timestamp: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 };
    for (let i = from; i < to; i++) {
      barAt(bar, columns, i, columns.msPerUnit);
      this.onBar(bar, timeframe, closeOf?.(bar.timestamp));
    }
  }

  /** At a broker, the protective orders the engine watches on a bar of `symbol` (`exits.ts` `watchExits`), stamped at the bar's close. */
  private watch(symbol: string, at: number, closeTime: number, high: number, low: number, close: number) {
    this.clockTo(closeTime);
    watchExits(this, symbol, at, high, low, close);
    this.clockTo(at);
  }

  /**
   * Sets the clock as a bar's steps go: on bars back and forth between the bar's open (its fills)
   * and its close (its signals); at a broker it never goes back, as the broker's reports and the
   * API's commands are stamped when they happen, between bars that reach the run after they closed.
   */
  private clockTo(time: number) {
    this.time = this.barFills ? time : Math.max(this.time, time);
  }

  /**
   * What every bar (open at `at`, closing at `closeAt`) does before the strategies see it: day
   * rollover, fills (from the minutes inside it under `execution.intrabar`), the last price and the monitors.
   */
  private step(info: SymbolInfo, at: number, closeAt: number, open: number, high: number, low: number, close: number, volume: number) {
    if (at >= this.dayEnd || at < this.dayStart) rollTo(this, at);
    this.clockTo(at);
    this.barVolume = volume;
    const filled =
      this.barFills &&
      this.pending.length > 0 &&
      (this.intrabar ? fillIntrabar(this, info, at, closeAt, open, high, low, close) : fillPending(this, info.symbol, at, open, high, low, close));
    info.last = close;
    if (filled || info.held > 0) monitor(this);
  }

  /** Ends the current day: daily figures and counters; at the rollover's close, pending day orders expire first and the daily counters restart (`commands.ts`). */
  endDay(close?: number): void {
    Commands.endDay(this, close);
  }

  /** The local day (day number in the session's market time zone) under way, or -1 between days. */
  get tradingDay(): number {
    return this.day;
  }

  /** Changes a channel's run state (pause keeps positions and stops trading; stop also cancels its orders). */
  setChannelState(channelId: string, state: ChannelRunState, at: number): void {
    Commands.setChannelState(this, channelId, state, at);
  }

  /** Restarts the daily counters: daily trades, the day-start equity anchor and daily-loss halts. */
  resetDaily(at: number): void {
    Commands.resetDaily(this, at);
  }

  /** Replaces a channel's risk limits from now on, and checks them at once (`commands.ts`). */
  setLimits(channelId: string, limits: Limits, at: number, before?: Limits): void {
    Commands.setLimits(this, channelId, limits, at, before);
  }

  /** Records that someone acknowledged an alert (`alert_acknowledged`); no trading state changes. */
  acknowledgeAlert(channelId: string | null, alertSequence: number, by: string, at: number): void {
    Commands.acknowledgeAlert(this, channelId, alertSequence, by, at);
  }

  /** A critical alert about the session raised outside the engine (the worker's reconciliation with the account). */
  raiseAlert(type: string, reason: string, message: string, values: Record<string, unknown>, at: number): void {
    Commands.raiseAlert(this, type, reason, message, values, at);
  }

  /** The owner's or the stage's kill switch tripped or released: a `kill_switch` event. */
  killSwitch(data: { state: "tripped" | "released"; scope: string; by: string; reason: string | null }, at: number): void {
    Commands.killSwitch(this, data, at);
  }

  /** Places an order outside the strategies; the checks' denials are returned (and logged) as data. */
  submit(request: OrderRequest, at: number): { order: EngineOrder | null; denials: Denial[] } {
    return Commands.submit(this, request, at);
  }

  /** Withdraws a pending order (`order_cancelled`); false when no pending order has that id. */
  cancel(orderId: string, at: number, reason: string): boolean {
    return Commands.cancel(this, orderId, at, reason);
  }

  /** Changes a pending order's quantity and, for a limit or stop order, its price (`order-replacement.ts`); `null` when no pending order has that id. */
  replace(orderId: string, change: { quantity?: number; price?: number | null }, at: number): { order: EngineOrder; denials: Denial[] } | null {
    return replaceOrder(this, orderId, change, at);
  }

  /** Every denial the pre-trade checks would give `request` now, without placing it. */
  check(request: OrderRequest): Denial[] {
    const channel = this.channel(request.channel_id);
    return preTradeDenials(this, channel, channel.manual, request, referencePrice(this, request));
  }

  // ---- outputs ------------------------------------------------------------------------------

  /** Events appended since the last drain, oldest first. */
  drainEvents(): EngineEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  get lastSequence(): number {
    return this.sequence;
  }

  get clock(): number {
    return this.time;
  }

  channelIds(): string[] {
    return this.channels.map((c) => c.setup.channel_id);
  }

  /** Marked equity of the whole session in the base currency. */
  totalEquity(): number {
    let total = 0;
    for (const channel of this.channels) total += equityOf(channel);
    return total;
  }

  /** Figures of one channel, or of the whole session when `channelId` is null. */
  view(channelId: string | null): EngineView {
    return viewOf(this, channelId);
  }

  // ---- snapshot -----------------------------------------------------------------------------

  /** The engine's whole state as plain JSON. */
  snapshot(): EngineSnapshot {
    return snapshotOf(this);
  }

  /** An engine for `setup` continuing exactly where `snapshot` was taken. */
  static restore(setup: EngineSetup, snapshot: EngineSnapshot): TradingEngine {
    const engine = new TradingEngine(setup);
    restoreInto(engine, snapshot);
    return engine;
  }

  // ---- internals ----------------------------------------------------------------------------

  private route(symbol: string, timeframe: Timeframe, channel: ChannelRuntime, sleeve: Sleeve) {
    const routes = this.info(symbol).routes;
    (routes[timeframe] ??= []).push({ channel, sleeve });
  }

  channel(channelId: string): ChannelRuntime {
    const channel = this.byId.get(channelId);
    if (!channel) throw new RangeError(`channel '${channelId}' is not part of this session`);
    return channel;
  }

  info(symbol: string): SymbolInfo {
    let info = this.symbols.get(symbol);
    if (!info) {
      const market = marketOf(symbol);
      const currency = Markets[market].currency;
      const fx = currency === this.setup.base_currency ? 1 : (this.setup.fx[currency] ?? 1);
      info = { symbol, market, currency, lot: this.setup.lots[symbol] ?? 1, fx, last: NaN, held: 0, routes: {}, minutes: null };
      this.symbols.set(symbol, info);
    }
    return info;
  }

  emit(type: EventType, channelId: string | null, data: Record<string, unknown>) {
    this.sequence += 1;
    this.events.push({ sequence: this.sequence, time: this.time, type, channel_id: channelId, data });
  }

  /** Refreshes the float64 figures of a channel's cash (`changed` is the currency a fill just moved, already as text). */
  refreshCash(channel: ChannelRuntime, changed?: string, changedText?: string) {
    let value = 0;
    for (const [currency, amount] of channel.cash) {
      // `toNumber` reads the decimal's text; a fill has written that text already.
      const number = currency === changed && changedText !== "0" ? Number(changedText) : amount.toNumber();
      channel.cash_numbers.set(currency, number);
      value += number * (currency === this.setup.base_currency ? 1 : (this.setup.fx[currency] ?? 1));
    }
    channel.cash_value = value;
  }

  sleeveOf(channel: ChannelRuntime, key: string): Sleeve {
    for (let s = 0; s < channel.sleeves.length; s++) if (channel.sleeves[s].key === key) return channel.sleeves[s];
    return channel.manual;
  }

  /** A sleeve's position in `symbol`, created empty on first use. */
  positionOf(sleeve: Sleeve, symbol: string): Position {
    let position = sleeve.positions.get(symbol);
    if (!position) {
      position = emptyPosition(symbol);
      sleeve.positions.set(symbol, position);
      sleeve.holdings.push({ position, info: this.info(symbol) });
    }
    return position;
  }

  /** The current bias of every director sleeve for each of its symbols (MTF status, `multi-timeframe.ts`). */
  biases(): DirectorBias[] {
    return biasesOf(this);
  }

  /** Acts on a strategy's signal at the close of the bar that gave it (`orders.ts`). */
  onSignal(channel: ChannelRuntime, sleeve: Sleeve, signal: Signal, close: number) {
    actOnSignal(this, channel, sleeve, signal, close);
  }

  // ---- a broker venue's reports (docs/session-worker.md, "Orders at the broker"; `venue-reports.ts`) ----

  /** The broker took the order under `venueOrderId` (`order_routed`); once only. */
  routed(orderId: string, venueOrderId: string, at?: number): void {
    orderRouted(this, orderId, venueOrderId, at);
  }

  /** The broker executed `quantity` of the order at `price` (its trade `tradeId`, booked once). */
  venueFill(orderId: string, tradeId: string, quantity: number, price: number, at: number, charged?: VenueCharge): void {
    venueFilled(this, orderId, tradeId, quantity, price, at, charged);
  }

  /** The broker took (`refusal` null) or refused a replacement the worker sent. */
  venueReplaced(orderId: string, refusal: { message: string; code?: string | number } | null, at: number): void {
    venueReplaced(this, orderId, refusal, at);
  }

  /** The order is over at the broker: cancelled (also the rest of a part-filled order), rejected or expired. */
  venueEnded(orderId: string, end: VenueEnd, at: number): void {
    venueOrderEnded(this, orderId, end, at);
  }
}

/** The smallest bar index among the listeners' next unhandled signals (-1 when none is left). */
function nextSignal(signals: IndexedSignal[][], cursors: number[], listeners: number): number {
  let next = -1;
  for (let l = 0; l < listeners; l++) {
    const list = signals[l];
    const at = cursors[l];
    if (at < list.length && (next === -1 || list[at].index < next)) next = list[at].index;
  }
  return next;
}
