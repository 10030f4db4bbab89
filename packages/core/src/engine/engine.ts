import { Fees } from "../fees/index";
import { Dec, Round } from "../fees/money";
import { Markets, marketOf, type Market } from "../market/market";
import { isoDateOf, utcToZoned, zonedTimeToUtc, MS_PER_DAY } from "../market/zoned-time";
import type { Config as RiskConfig, Limits } from "../risk/risk";
import { Strategies } from "../strategies/index";
import type { Timeframe } from "../strategies/definition";
import type { Bar, BarColumns, IndexedSignal, Signal, Strategy, StrategyState } from "../strategies/strategy";
import type { Denial, EngineEvent, EngineOrder, EngineOrderType, EventType, FillData, OrderSide } from "./events";
import { AT_LEVEL, AT_OPEN, fillableShares, limitReach, touchReach, type Reach } from "./matching";
import { Money } from "./money";
import { book, emptyPosition, restorePosition, savePosition, type Position, type SavedPosition } from "./ledger";
import type { ChannelSetup, EngineSetup } from "./setup";
import { ESTIMATE_TOLERANCE, decimalText, productNumber, surely } from "./exact";
import { marketTickProblems, quantityProblems } from "./order-rules";

/** Milliseconds a bar of each period spans: a signal read at a bar's close is stamped at its open plus this. */
export const PERIOD_MS: Readonly<Record<Timeframe, number>> = { "1m": 60_000, "5m": 300_000, "1h": 3_600_000, "1d": 86_400_000 };

/** The market whose days the engine counts (daily figures, rollover): the one of the base currency, else the US. */
export function dayMarketOf(setup: Pick<EngineSetup, "base_currency">): Market {
  return Object.values(Markets).find((info) => info.currency === setup.base_currency)?.market ?? "US";
}

/** A channel's run state. `halted` is set by the post-trade monitors and only blocks new entries. */
export type ChannelRunState = "running" | "paused" | "stopped";
export type Halt = null | "drawdown" | "daily_loss";

/** Running figures of a channel or the whole session, all float64 marks (booked money lives in the ledger). */
interface Tracker {
  peak: number;
  max_drawdown: number;
  /** Day index (into `equity_days`) of the current peak and the longest underwater span in days. */
  peak_day: number;
  max_drawdown_days: number;
  day_start_equity: number;
  /** Closing equity of each finished day. */
  equity_days: number[];
  days_in_market: number;
}

interface Stats {
  closed_trades: number;
  wins: number;
  losses: number;
  gross_profit: Money;
  gross_loss: Money;
  fees: Money;
  realized: Money;
  orders: number;
  denied: number;
}

interface Sleeve {
  key: string;
  strategy: Strategy | null;
  weight: number;
  positions: Map<string, Position>;
  /** Multi-timeframe role, and the director whose bias an executor obeys (docs/mtf-and-replay.md). */
  role: "director" | "executor" | null;
  director: Sleeve | null;
  /** The same positions in the same order with their symbols' info, walked per bar without allocating. */
  holdings: Holding[];
}

interface Holding {
  position: Position;
  info: SymbolInfo;
}

interface ChannelRuntime {
  setup: ChannelSetup;
  state: ChannelRunState;
  halt: Halt;
  cash: Map<string, Money>;
  /** `cash` as float64, for estimates that exact arithmetic confirms only when they come close to a boundary. */
  cash_numbers: Map<string, number>;
  /** Base-currency value of `cash`, refreshed after every fill. */
  cash_value: number;
  sleeves: Sleeve[];
  manual: Sleeve;
  initial_equity: number;
  daily_trades: number;
  tracker: Tracker;
  stats: Stats;
}

/** What the engine keeps per symbol; looked up once per bar. */
interface SymbolInfo {
  symbol: string;
  market: Market;
  currency: string;
  lot: number;
  fx: number;
  /** Close of the last bar seen (NaN before the first). */
  last: number;
  /** Open positions in this symbol across all sleeves: a bar of a symbol nobody holds moves no equity. */
  held: number;
  /** The sleeves listening to each period of this symbol. */
  routes: Partial<Record<Timeframe, { channel: ChannelRuntime; sleeve: Sleeve }[]>>;
}

/** History the strategies reading one symbol and period want before their first live bar. */
export interface WarmupNeed {
  symbol: string;
  timeframe: Timeframe;
  bars: number;
}

/** An order someone asks for outside the strategies (manual orders, validation). */
export interface OrderRequest {
  channel_id: string;
  symbol: string;
  side: OrderSide;
  quantity: number;
  order_type?: EngineOrderType;
  price?: number | null;
  reason?: string;
}

export interface EngineSnapshot {
  version: 1;
  sequence: number;
  order_counter: number;
  time: number;
  day: number;
  pending: EngineOrder[];
  last_price: Record<string, number>;
  session: SavedTracker;
  channels: Record<string, SavedChannel>;
}

type SavedTracker = Tracker;

interface SavedChannel {
  state: ChannelRunState;
  halt: Halt;
  cash: Record<string, string>;
  initial_equity: number;
  daily_trades: number;
  tracker: SavedTracker;
  stats: Record<keyof Stats, string | number>;
  sleeves: { key: string; strategy: StrategyState | null; positions: SavedPosition[] }[];
}

const ZERO = Money.ZERO;
const newTracker = (equity: number): Tracker => ({
  peak: equity,
  max_drawdown: 0,
  peak_day: 0,
  max_drawdown_days: 0,
  day_start_equity: equity,
  equity_days: [],
  days_in_market: 0,
});
const newStats = (): Stats => ({
  closed_trades: 0,
  wins: 0,
  losses: 0,
  gross_profit: ZERO,
  gross_loss: ZERO,
  fees: ZERO,
  realized: ZERO,
  orders: 0,
  denied: 0,
});

/**
 * The trading engine: one session's channels, strategies, ledger, bar-simulated venue, risk
 * checks and monitors, fed closed bars in time order by whichever driver runs it (backtest
 * chunks, replay, the session worker). Deterministic: it reads time only from the bars and
 * commands it is given, and its whole state is the JSON of `snapshot()`.
 */
export class TradingEngine {
  private readonly channels: ChannelRuntime[] = [];
  private readonly byId = new Map<string, ChannelRuntime>();
  private readonly symbols = new Map<string, SymbolInfo>();
  private readonly timeZone: string;
  private pending: EngineOrder[] = [];
  /** Scratch of `onColumns`: each listener's signals and how far they are handled. */
  private readonly columnSignals: IndexedSignal[][] = [];
  private readonly columnCursors: number[] = [];
  private events: EngineEvent[] = [];
  private sequence = 0;
  private orderCounter = 0;
  private time = 0;
  /** Local day number of the current trading day, and the UTC range it covers. */
  private day = -1;
  private dayStart = 0;
  private dayEnd = 0;
  private session: Tracker;
  private readonly commissionRate: Money | null;
  private readonly commissionRateNumber: number;
  /** The last fee the broker's schedule gave, and what it was asked. */
  private readonly feeMemo = { market: "", side: "", quantity: NaN, price: NaN, day: NaN, fee: ZERO };
  /** The exchange-local trade date last asked for (fees, tick grids), and the UTC span of that day. */
  private readonly tradeDate = { market: "", day: NaN, iso: "", from: NaN, to: NaN };
  private readonly fraction: Dec;
  private readonly fractionNumber: number;
  private readonly slippage: number;
  /** Whether orders fill on the bars fed (`venue` bars) rather than by a broker's reports. */
  private readonly barFills: boolean;
  /** `execution.max_participation`: the share of a bar's volume one order may take (null: whole orders). */
  private readonly participation: number | null;
  /** Volume of the bar being fed (what a fill at its close may take of it). */
  private barVolume = 0;

  constructor(readonly setup: EngineSetup) {
    this.barFills = setup.venue !== "broker";
    this.timeZone = Markets[dayMarketOf(setup)].timeZone;
    const commission = setup.execution.commission;
    this.commissionRate = commission.model === "percent" ? Money.of(commission.rate) : null;
    this.commissionRateNumber = commission.model === "percent" ? commission.rate : 0;
    this.fraction = new Dec(setup.execution.sizing.fraction);
    this.fractionNumber = setup.execution.sizing.fraction;
    this.slippage = setup.execution.slippage_bps / 10_000;
    this.participation = setup.execution.max_participation ?? null;
    for (const channel of setup.channels) {
      const cash = new Map<string, Money>();
      for (const [currency, amount] of Object.entries(setup.capital)) {
        cash.set(currency, Money.fromDec(new Dec(amount).times(channel.capital_allocation)));
      }
      const sleeves = channel.strategies.map((slot, index): Sleeve => ({
        key: `${channel.channel_id}/${index}`,
        strategy: Strategies.create(slot.strategy_name, slot.parameters),
        weight: slot.weight,
        positions: new Map(),
        role: slot.role ?? null,
        director: null,
        holdings: [],
      }));
      const director = sleeves.find((sleeve) => sleeve.role === "director") ?? null;
      for (const sleeve of sleeves) if (sleeve.role === "executor") sleeve.director = director;
      const runtime: ChannelRuntime = {
        setup: channel,
        state: "running",
        halt: null,
        cash,
        cash_numbers: new Map(),
        cash_value: 0,
        sleeves,
        manual: { key: `${channel.channel_id}/manual`, strategy: null, weight: 1, positions: new Map(), role: null, director: null, holdings: [] },
        initial_equity: 0,
        daily_trades: 0,
        tracker: newTracker(0),
        stats: newStats(),
      };
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

  /** Feeds one closed bar of `timeframe`. Bars must arrive in time order across symbols. */
  onBar(bar: Bar, timeframe: Timeframe): void {
    const at = bar.timestamp;
    const info = this.info(bar.symbol);
    this.step(info, at, bar.open, bar.high, bar.low, bar.close, bar.volume);
    const listeners = info.routes[timeframe];
    if (listeners === undefined) return;
    const closeTime = at + PERIOD_MS[timeframe];
    for (let i = 0; i < listeners.length; i++) {
      const { channel, sleeve } = listeners[i];
      if (sleeve.role !== null) {
        this.multiTimeframeBar(channel, sleeve, bar, timeframe, closeTime);
        this.time = at;
        continue;
      }
      const signals = sleeve.strategy!.onBar(bar);
      if (signals.length === 0) continue;
      this.time = closeTime;
      for (const signal of signals) this.onSignal(channel, sleeve, signal, bar.close);
      this.time = at;
    }
  }

  /**
   * The history a fresh run wants before its first live bar: per (symbol, timeframe) its
   * strategies read, the most bars any of them needs before it can signal (`warmupBars`).
   */
  warmupNeeds(): WarmupNeed[] {
    const needs = new Map<string, WarmupNeed>();
    for (const channel of this.channels) {
      channel.setup.strategies.forEach((slot, index) => {
        const bars = channel.sleeves[index].strategy!.warmupBars;
        for (const symbol of slot.symbols) {
          const key = `${symbol} ${slot.timeframe}`;
          const known = needs.get(key);
          if (!known) needs.set(key, { symbol, timeframe: slot.timeframe, bars });
          else known.bars = Math.max(known.bars, bars);
        }
      });
    }
    return [...needs.values()];
  }

  /**
   * Feeds closed bars of history (one symbol and period, in close order, all before the first
   * live bar) to the strategies that read them, so their indicators start full (a director's
   * bias too). Nothing else happens: no orders, fills, day figures or monitors; the last close
   * becomes the symbol's last price, and one `log` event says how much history there was
   * (`warning` when less than the `wanted` bars, with the `problem` that kept it short when one
   * did). What a strategy concludes during warm-up is not traded: the session acts on the
   * signals that follow.
   */
  warmUp(need: WarmupNeed, bars: readonly Bar[], problem?: string): void {
    const { symbol, timeframe, bars: wanted } = need;
    const info = this.info(symbol);
    const listeners = info.routes[timeframe] ?? NO_ROUTES;
    for (const bar of bars) {
      info.last = bar.close;
      for (let i = 0; i < listeners.length; i++) {
        const sleeve = listeners[i].sleeve;
        const bias = sleeve.director ? sleeve.director.strategy!.bias(symbol) : undefined;
        sleeve.strategy!.onBar(bar, bias === undefined ? undefined : { bias });
      }
    }
    if (bars.length > 0) this.time = Math.max(this.time, bars[bars.length - 1].timestamp + PERIOD_MS[timeframe]);
    const span = bars.length > 0 ? ` (${new Date(bars[0].timestamp).toISOString()} to ${new Date(bars[bars.length - 1].timestamp).toISOString()})` : "";
    const short = bars.length < wanted;
    this.emit("log", null, {
      level: short ? "warning" : "info",
      message: `Strategies on ${symbol} ${timeframe} warmed up with ${bars.length} of ${wanted} bars${span}${problem ? ` (${problem})` : ""}${short ? ": they signal once they have seen enough live bars" : ""}`,
      warm_up: { symbol, timeframe, bars: bars.length, wanted, ...(problem ? { problem } : {}) },
    });
  }

  /**
   * The batch path: feeds bars `from` to `to - 1` of one symbol's columns, all of `timeframe`,
   * giving exactly the events and state of `onBar` on each of them in turn (a test holds both
   * paths to that). The strategies listening to the symbol run over the columns first, in their
   * tight batch loops; then the engine walks the bars, touching money only when something fills
   * or a signal arrives. The range is fed as a whole: snapshot before or after it, not inside.
   */
  onColumns(columns: BarColumns, from: number, to: number, timeframe: Timeframe): void {
    if (to <= from) return;
    const info = this.info(columns.symbol);
    const listeners = info.routes[timeframe] ?? NO_ROUTES;
    // Multi-timeframe sleeves read their director's bias bar by bar, and tracing writes every strategy bar: those go the streaming way.
    if (this.setup.trace || listeners.some((listener) => listener.sleeve.role !== null)) return this.barByBar(columns, from, to, timeframe);
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
      this.step(info, at, open[i], high[i], low[i], close[i], volume[i]);
      if (i !== next) continue;
      this.time = at + period;
      for (let l = 0; l < listeners.length; l++) {
        const list = signals[l];
        while (cursors[l] < list.length && list[cursors[l]].index === i) {
          const { channel, sleeve } = listeners[l];
          this.onSignal(channel, sleeve, list[cursors[l]++].signal, close[i]);
        }
      }
      this.time = at;
      next = nextSignal(signals, cursors, listeners.length);
    }
    for (let l = 0; l < listeners.length; l++) signals[l].length = 0;
  }

  /** `onColumns` through `onBar`, one scratch bar at a time. */
  private barByBar(columns: BarColumns, from: number, to: number, timeframe: Timeframe) {
    const bar: Bar = { symbol: columns.symbol, timestamp: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 };
    for (let i = from; i < to; i++) {
      bar.timestamp = columns.timestamp[i] * columns.msPerUnit;
      bar.open = columns.open[i];
      bar.high = columns.high[i];
      bar.low = columns.low[i];
      bar.close = columns.close[i];
      bar.volume = columns.volume[i];
      this.onBar(bar, timeframe);
    }
  }

  /** What every bar does before the strategies see it: day rollover, fills, the last price and the monitors. */
  private step(info: SymbolInfo, at: number, open: number, high: number, low: number, close: number, volume: number) {
    if (at >= this.dayEnd || at < this.dayStart) this.rollTo(at);
    this.time = at;
    this.barVolume = volume;
    const filled = this.barFills && this.pending.length > 0 && this.fillPending(info.symbol, at, open, high, low);
    info.last = close;
    if (filled || info.held > 0) this.monitor();
  }

  /**
   * Ends the current day (backtest end, or the worker's day rollover): daily figures and counters.
   * The rollover passes the close instant: the engine's orders are day orders, so those still
   * pending expire at it first (`order_cancelled` with `expired`), and after the day's figures are
   * settled the daily risk counters restart (as `resetDaily`). Without a day under way, nothing.
   */
  endDay(close?: number): void {
    if (this.day < 0) return;
    if (close !== undefined) {
      this.time = Math.max(this.time, close);
      // A broker's day orders expire at the broker, which reports it.
      if (this.barFills && this.pending.length > 0) this.cancelPending(() => true, "DAY_ORDER_EXPIRED: a day order ends at the market's close", { expired: true });
    }
    this.closeDay();
    this.day = -1;
    this.dayStart = 0;
    this.dayEnd = 0;
    if (close !== undefined) this.resetDaily(close);
  }

  /** The local day (day number in the session's market time zone) under way, or -1 between days. */
  get tradingDay(): number {
    return this.day;
  }

  /** Changes a channel's run state (pause keeps positions and stops trading; stop also cancels its orders). */
  setChannelState(channelId: string, state: ChannelRunState, at: number): void {
    const channel = this.channel(channelId);
    if (channel.state === state) return;
    this.time = Math.max(this.time, at);
    const previous = channel.state;
    channel.state = state;
    if (state === "stopped") this.cancelPending((order) => order.channel_id === channelId, "channel stopped");
    this.emit("channel_status", channelId, { status: state, previous });
  }

  /** Restarts the daily counters: daily trades, the day-start equity anchor and daily-loss halts. */
  resetDaily(at: number): void {
    this.time = Math.max(this.time, at);
    for (const channel of this.channels) this.startDay(channel);
    this.session.day_start_equity = this.totalEquity();
    this.emit("risk_event", null, { kind: "daily_reset", message: "Daily risk counters reset" });
  }

  /** Replaces a channel's risk limits from now on. */
  setLimits(channelId: string, limits: Limits, at: number): void {
    const channel = this.channel(channelId);
    this.time = Math.max(this.time, at);
    channel.setup = { ...channel.setup, limits };
    this.emit("risk_event", channelId, { kind: "limits_changed", limits });
  }

  /** Records that someone acknowledged an alert (`alert_acknowledged`, naming the alert's event sequence); no trading state changes. */
  acknowledgeAlert(channelId: string | null, alertSequence: number, by: string, at: number): void {
    if (channelId !== null) this.channel(channelId);
    this.time = Math.max(this.time, at);
    this.emit("alert_acknowledged", channelId, { alert_sequence: alertSequence, acknowledged_by: by });
  }

  /** A critical alert about the session raised outside the engine (the worker's reconciliation with the account, docs/accounts.md). */
  raiseAlert(type: string, reason: string, message: string, values: Record<string, unknown>, at: number): void {
    this.time = Math.max(this.time, at);
    this.emit("alert", null, { level: "critical", type, reason, message, values });
  }

  /** Places an order outside the strategies; the checks' denials are returned (and logged) as data. */
  submit(request: OrderRequest, at: number): { order: EngineOrder | null; denials: Denial[] } {
    const channel = this.channel(request.channel_id);
    this.time = Math.max(this.time, at);
    return this.place(channel, channel.manual, request);
  }

  /** Withdraws a pending order (`order_cancelled`); false when no pending order has that id. */
  cancel(orderId: string, at: number, reason: string): boolean {
    if (!this.pending.some((order) => order.order_id === orderId)) return false;
    this.time = Math.max(this.time, at);
    this.cancelPending((order) => order.order_id === orderId, reason);
    return true;
  }

  /**
   * Changes a pending order's quantity and, for a limit or stop order, its price (`order_replaced`).
   * The changed order goes through the pre-trade checks as if placed now, except the daily count
   * (a replacement is not a new order) and with its own cash promise released; denied, it stays as
   * it was and a warning is logged. `null` when no pending order has that id.
   */
  replace(orderId: string, change: { quantity?: number; price?: number | null }, at: number): { order: EngineOrder; denials: Denial[] } | null {
    const index = this.pending.findIndex((order) => order.order_id === orderId);
    if (index < 0) return null;
    const order = this.pending[index];
    const channel = this.channel(order.channel_id);
    this.time = Math.max(this.time, at);
    if (!this.barFills) {
      const denial = { reason: "REPLACE_AT_BROKER_UNSUPPORTED", message: "an order at the broker is not replaced: cancel it and place a new one", values: { order_id: orderId } };
      this.emit("log", order.channel_id, { level: "warning", message: `Replace of order ${orderId} denied: ${denial.message}`, order_id: orderId, denials: [denial] });
      return { order, denials: [denial] };
    }
    const quantity = change.quantity ?? order.quantity;
    const filled = order.filled ?? 0;
    const price = order.order_type === "market" ? null : (change.price ?? order.limit_price ?? order.stop_price);
    // What is left to fill is what the checks judge (a part already filled is booked).
    const request: OrderRequest = { channel_id: order.channel_id, symbol: order.symbol, side: order.side, quantity: quantity - filled, order_type: order.order_type, price };
    this.pending.splice(index, 1);
    const denials = quantity > filled ? this.denials(channel, this.sleeveOf(channel, order.sleeve), request, this.referencePrice(request)).filter((denial) => denial.reason !== "MAX_DAILY_TRADES_EXCEEDED") : [];
    if (quantity <= filled) deny(denials, "QUANTITY_BELOW_EXECUTED", `quantity=${quantity} must exceed the ${filled} shares already filled`, { quantity, filled });
    if (denials.length > 0) {
      this.pending.splice(index, 0, order);
      this.emit("log", order.channel_id, { level: "warning", message: `Replace of order ${orderId} denied: ${denials[0].message}`, order_id: orderId, denials });
      return { order, denials };
    }
    const previous = { quantity: order.quantity, price: order.limit_price ?? order.stop_price };
    const replaced: EngineOrder = {
      ...order,
      quantity,
      limit_price: order.order_type === "limit" ? price : null,
      stop_price: order.order_type === "stop" ? price : null,
    };
    this.pending.splice(index, 0, replaced);
    this.emit("order_replaced", order.channel_id, {
      order_id: orderId,
      symbol: order.symbol,
      quantity,
      limit_price: replaced.limit_price,
      stop_price: replaced.stop_price,
      previous_quantity: previous.quantity,
      previous_price: previous.price,
    });
    return { order: replaced, denials: [] };
  }

  /** Every denial the pre-trade checks would give `request` now, without placing it. */
  check(request: OrderRequest): Denial[] {
    const channel = this.channel(request.channel_id);
    return this.denials(channel, channel.manual, request, this.referencePrice(request));
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
    for (const channel of this.channels) total += this.equityOf(channel);
    return total;
  }

  /** Figures of one channel, or of the whole session when `channelId` is null. */
  view(channelId: string | null): EngineView {
    const list = channelId === null ? this.channels : [this.channel(channelId)];
    const stats = newStats();
    const positions: PositionView[] = [];
    const cash = new Map<string, Money>();
    let initial = 0;
    let equity = 0;
    let unrealized = 0;
    for (const channel of list) {
      initial += channel.initial_equity;
      equity += this.equityOf(channel);
      for (const [currency, amount] of channel.cash) cash.set(currency, (cash.get(currency) ?? ZERO).plus(amount));
      for (const key of Object.keys(stats) as (keyof Stats)[]) {
        const value = channel.stats[key];
        (stats as unknown as Record<string, unknown>)[key] = typeof value === "number" ? (stats[key] as number) + value : (stats[key] as Money).plus(value);
      }
      for (const sleeve of [...channel.sleeves, channel.manual]) {
        for (const position of sleeve.positions.values()) {
          if (position.quantity === 0) continue;
          const info = this.info(position.symbol);
          const known = info.last;
          const last = Number.isNaN(known) ? position.entry_price : known;
          const value = position.quantity * last;
          const pnl = value - position.cost.toNumber();
          unrealized += pnl * info.fx;
          positions.push({
            channel_id: channel.setup.channel_id,
            sleeve: sleeve.key,
            symbol: position.symbol,
            quantity: position.quantity,
            cost: position.cost.toString(),
            entry_price: position.entry_price,
            last_price: last,
            market_value: value,
            unrealized_pnl: pnl,
            currency: info.currency,
            opened_at: position.opened_at,
          });
        }
      }
    }
    const tracker = channelId === null ? this.session : list[0].tracker;
    const dailyTrades = list.reduce((sum, c) => sum + c.daily_trades, 0);
    return {
      initial_equity: initial,
      equity,
      unrealized_pnl: unrealized,
      cash: Object.fromEntries([...cash].map(([currency, amount]) => [currency, amount.toString()])),
      positions,
      stats: {
        closed_trades: stats.closed_trades,
        wins: stats.wins,
        losses: stats.losses,
        gross_profit: stats.gross_profit.toString(),
        gross_loss: stats.gross_loss.toString(),
        fees: stats.fees.toString(),
        realized: stats.realized.toString(),
        orders: stats.orders,
        denied: stats.denied,
      },
      peak: tracker.peak,
      max_drawdown: tracker.max_drawdown,
      max_drawdown_days: tracker.max_drawdown_days,
      current_drawdown: tracker.peak > 0 ? Math.max(0, (tracker.peak - equity) / tracker.peak) : 0,
      daily_pnl: equity - tracker.day_start_equity,
      day_start_equity: tracker.day_start_equity,
      equity_days: tracker.equity_days.slice(),
      days_in_market: tracker.days_in_market,
      daily_trades: dailyTrades,
      state: channelId === null ? null : list[0].state,
      halt: channelId === null ? null : list[0].halt,
      pending_orders: this.pending.filter((o) => channelId === null || o.channel_id === channelId).map((o) => ({ ...o })),
    };
  }

  // ---- snapshot -----------------------------------------------------------------------------

  /** The engine's whole state as plain JSON. */
  snapshot(): EngineSnapshot {
    const channels: Record<string, SavedChannel> = {};
    for (const channel of this.channels) {
      const stats = Object.fromEntries(
        Object.entries(channel.stats).map(([key, value]) => [key, typeof value === "number" ? value : (value as Money).toString()]),
      ) as SavedChannel["stats"];
      channels[channel.setup.channel_id] = {
        state: channel.state,
        halt: channel.halt,
        cash: Object.fromEntries([...channel.cash].map(([currency, amount]) => [currency, amount.toString()])),
        initial_equity: channel.initial_equity,
        daily_trades: channel.daily_trades,
        tracker: cloneTracker(channel.tracker),
        stats,
        sleeves: [...channel.sleeves, channel.manual].map((sleeve) => ({
          key: sleeve.key,
          strategy: sleeve.strategy ? sleeve.strategy.saveState() : null,
          positions: [...sleeve.positions.values()].map(savePosition),
        })),
      };
    }
    return {
      version: 1,
      sequence: this.sequence,
      order_counter: this.orderCounter,
      time: this.time,
      day: this.day,
      pending: this.pending.map((order) => ({ ...order })),
      last_price: Object.fromEntries([...this.symbols].filter(([, info]) => !Number.isNaN(info.last)).map(([symbol, info]) => [symbol, info.last])),
      session: cloneTracker(this.session),
      channels,
    };
  }

  /** An engine for `setup` continuing exactly where `snapshot` was taken. */
  static restore(setup: EngineSetup, snapshot: EngineSnapshot): TradingEngine {
    const engine = new TradingEngine(setup);
    engine.sequence = snapshot.sequence;
    engine.orderCounter = snapshot.order_counter;
    engine.time = snapshot.time;
    engine.pending = snapshot.pending.map((order) => ({ ...order }));
    for (const [symbol, last] of Object.entries(snapshot.last_price)) engine.info(symbol).last = last;
    engine.session = cloneTracker(snapshot.session);
    if (snapshot.day >= 0) engine.enterDay(snapshot.day);
    for (const channel of engine.channels) {
      const saved = snapshot.channels[channel.setup.channel_id];
      if (!saved) continue;
      channel.state = saved.state;
      channel.halt = saved.halt;
      channel.cash = new Map(Object.entries(saved.cash).map(([currency, amount]) => [currency, Money.of(amount)]));
      channel.initial_equity = saved.initial_equity;
      channel.daily_trades = saved.daily_trades;
      channel.tracker = cloneTracker(saved.tracker);
      const stats = newStats() as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(saved.stats)) stats[key] = typeof value === "number" ? value : Money.of(value);
      channel.stats = stats as unknown as Stats;
      for (const sleeve of [...channel.sleeves, channel.manual]) {
        const savedSleeve = saved.sleeves.find((s) => s.key === sleeve.key);
        if (!savedSleeve) continue;
        if (sleeve.strategy && savedSleeve.strategy) sleeve.strategy.restoreState(savedSleeve.strategy);
        sleeve.positions = new Map();
        sleeve.holdings = [];
        for (const saved of savedSleeve.positions) {
          const position = engine.positionOf(sleeve, saved.symbol);
          Object.assign(position, restorePosition(saved));
          if (position.quantity !== 0) engine.info(position.symbol).held += 1;
        }
      }
      engine.refreshCash(channel);
    }
    return engine;
  }

  // ---- internals ----------------------------------------------------------------------------

  private route(symbol: string, timeframe: Timeframe, channel: ChannelRuntime, sleeve: Sleeve) {
    const routes = this.info(symbol).routes;
    (routes[timeframe] ??= []).push({ channel, sleeve });
  }

  private channel(channelId: string): ChannelRuntime {
    const channel = this.byId.get(channelId);
    if (!channel) throw new RangeError(`channel '${channelId}' is not part of this session`);
    return channel;
  }

  private info(symbol: string): SymbolInfo {
    let info = this.symbols.get(symbol);
    if (!info) {
      const market = marketOf(symbol);
      const currency = Markets[market].currency;
      const fx = currency === this.setup.base_currency ? 1 : (this.setup.fx[currency] ?? 1);
      info = { symbol, market, currency, lot: this.setup.lots[symbol] ?? 1, fx, last: NaN, held: 0, routes: {} };
      this.symbols.set(symbol, info);
    }
    return info;
  }

  private emit(type: EventType, channelId: string | null, data: Record<string, unknown>) {
    this.sequence += 1;
    this.events.push({ sequence: this.sequence, time: this.time, type, channel_id: channelId, data });
  }

  /** Refreshes the float64 figures of a channel's cash (`changed` is the currency a fill just moved, already as text). */
  private refreshCash(channel: ChannelRuntime, changed?: string, changedText?: string) {
    let value = 0;
    for (const [currency, amount] of channel.cash) {
      // `toNumber` reads the decimal's text; a fill has written that text already.
      const number = currency === changed && changedText !== "0" ? Number(changedText) : amount.toNumber();
      channel.cash_numbers.set(currency, number);
      value += number * (currency === this.setup.base_currency ? 1 : (this.setup.fx[currency] ?? 1));
    }
    channel.cash_value = value;
  }

  private sleeveOf(channel: ChannelRuntime, key: string): Sleeve {
    for (let s = 0; s < channel.sleeves.length; s++) if (channel.sleeves[s].key === key) return channel.sleeves[s];
    return channel.manual;
  }

  /** A sleeve's position in `symbol`, created empty on first use. */
  private positionOf(sleeve: Sleeve, symbol: string): Position {
    let position = sleeve.positions.get(symbol);
    if (!position) {
      position = emptyPosition(symbol);
      sleeve.positions.set(symbol, position);
      sleeve.holdings.push({ position, info: this.info(symbol) });
    }
    return position;
  }

  private equityOf(channel: ChannelRuntime): number {
    let equity = channel.cash_value;
    for (let s = 0; s < channel.sleeves.length; s++) equity += this.positionsValue(channel.sleeves[s]);
    return equity + this.positionsValue(channel.manual);
  }

  private positionsValue(sleeve: Sleeve): number {
    const holdings = sleeve.holdings;
    let value = 0;
    for (let h = 0; h < holdings.length; h++) {
      const { position, info } = holdings[h];
      if (position.quantity === 0) continue;
      if (!Number.isNaN(info.last)) value += position.quantity * info.last * info.fx;
    }
    return value;
  }

  private grossExposure(channel: ChannelRuntime): number {
    let gross = 0;
    for (let s = 0; s <= channel.sleeves.length; s++) {
      const holdings = (s < channel.sleeves.length ? channel.sleeves[s] : channel.manual).holdings;
      for (let h = 0; h < holdings.length; h++) {
        const { position, info } = holdings[h];
        if (!Number.isNaN(info.last)) gross += Math.abs(position.quantity * info.last * info.fx);
      }
    }
    return gross;
  }

  /** Symbols the channel holds in any sleeve (a symbol held by two sleeves counts once). */
  private openPositions(channel: ChannelRuntime): number {
    const sleeves = channel.sleeves.length + 1;
    let count = 0;
    for (let s = 0; s < sleeves; s++) {
      const holdings = sleeveAt(channel, s).holdings;
      for (let h = 0; h < holdings.length; h++) {
        const { position } = holdings[h];
        if (position.quantity !== 0 && !heldBefore(channel, s, position.symbol)) count += 1;
      }
    }
    return count;
  }

  /** Post-trade monitors after every bar: peaks, drawdown and daily loss per channel and session. */
  private monitor() {
    let total = 0;
    for (let i = 0; i < this.channels.length; i++) {
      const channel = this.channels[i];
      const equity = this.equityOf(channel);
      total += equity;
      const tracker = channel.tracker;
      track(tracker, equity);
      // Without risk rules (a plain backtest) the figures are tracked but nothing halts.
      if (this.setup.risk === null || channel.halt === "drawdown") continue;
      const limits = channel.setup.limits;
      const drawdown = tracker.peak > 0 ? (tracker.peak - equity) / tracker.peak : 0;
      if (drawdown >= limits.max_drawdown) {
        this.halt(channel, "drawdown", "MAX_DRAWDOWN_BREACHED", { drawdown: round6(drawdown), max_drawdown: limits.max_drawdown, equity: round2(equity), peak: round2(tracker.peak) });
        continue;
      }
      if (channel.halt === null && tracker.day_start_equity > 0) {
        const loss = (tracker.day_start_equity - equity) / tracker.day_start_equity;
        if (loss >= limits.max_daily_loss) {
          this.halt(channel, "daily_loss", "MAX_DAILY_LOSS_BREACHED", { daily_loss: round6(loss), max_daily_loss: limits.max_daily_loss, equity: round2(equity), day_start_equity: round2(tracker.day_start_equity) });
        }
      }
    }
    track(this.session, total);
  }

  private halt(channel: ChannelRuntime, halt: Exclude<Halt, null>, reason: string, values: Record<string, number>) {
    channel.halt = halt;
    const id = channel.setup.channel_id;
    const what = halt === "drawdown" ? "drawdown" : "daily loss";
    const message = `${reason}: channel ${id} ${what} limit reached; new entries are halted${halt === "daily_loss" ? " until the next trading day" : ""}`;
    this.emit("risk_event", id, { kind: "limit_breached", reason, message, values, halted: true });
    this.emit("alert", id, { level: "critical", type: "risk_limit", reason, message, values });
  }

  private rollTo(at: number) {
    const { dayNumber } = utcToZoned(this.timeZone, at);
    if (dayNumber === this.day) return;
    if (this.day >= 0) this.closeDay();
    this.enterDay(dayNumber);
    for (const channel of this.channels) this.startDay(channel);
    this.session.day_start_equity = this.totalEquity();
  }

  private enterDay(dayNumber: number) {
    this.day = dayNumber;
    // The local day's UTC range, widened by the largest zone offsets: a bar inside it that
    // belongs to the next local day is caught by the day-number check in `rollTo`.
    const startGuess = dayNumber * MS_PER_DAY - 14 * 3_600_000;
    const wall = (ms: number) => utcToZoned(this.timeZone, ms).dayNumber;
    let start = startGuess;
    while (wall(start) < dayNumber) start += 3_600_000;
    let end = start + 20 * 3_600_000;
    while (wall(end) === dayNumber) end += 3_600_000;
    // Hour steps may overshoot by less than an hour; step back by minutes for the exact edges.
    while (wall(start - 60_000) === dayNumber) start -= 60_000;
    while (wall(end - 60_000) !== dayNumber) end -= 60_000;
    this.dayStart = start;
    this.dayEnd = end;
  }

  private startDay(channel: ChannelRuntime) {
    channel.daily_trades = 0;
    channel.tracker.day_start_equity = this.equityOf(channel);
    if (channel.halt === "daily_loss") {
      channel.halt = null;
      this.emit("risk_event", channel.setup.channel_id, { kind: "halt_lifted", reason: "NEW_TRADING_DAY", message: "Daily loss halt lifted for the new trading day" });
    }
  }

  private closeDay() {
    const summary: Record<string, number> = {};
    for (const channel of this.channels) {
      const equity = this.equityOf(channel);
      closeTrackerDay(channel.tracker, equity, this.openPositions(channel) > 0);
      summary[channel.setup.channel_id] = round2(equity);
    }
    const total = this.totalEquity();
    closeTrackerDay(this.session, total, this.channels.some((c) => this.openPositions(c) > 0));
    this.emit("day_end", null, { day: this.day, equity: round2(total), channels: summary });
  }

  /**
   * A bar of a multi-timeframe sleeve: a director's bar may move its bias (`bias_changed`) and
   * places no orders; an executor's bar runs under the director's current bias. With `trace`,
   * every such bar writes a `strategy_output` (bar, indicator values, stance, bias) and every
   * executor signal a `signal` event: the MTF session's `outputs`.
   */
  private multiTimeframeBar(channel: ChannelRuntime, sleeve: Sleeve, bar: Bar, timeframe: Timeframe, closeTime: number) {
    const strategy = sleeve.strategy!;
    const id = channel.setup.channel_id;
    this.time = closeTime;
    if (sleeve.role === "director") {
      const before = strategy.bias(bar.symbol);
      strategy.onBar(bar);
      const after = strategy.bias(bar.symbol);
      if (this.setup.trace) this.traceOutput(id, sleeve, bar, timeframe, after);
      if (after !== before) {
        this.emit("bias_changed", id, { symbol: bar.symbol, timeframe, sleeve: sleeve.key, strategy: strategy.id, bias: after, previous: before, reason: strategy.inspect?.(bar.symbol).reason ?? "" });
      }
      return;
    }
    const bias = sleeve.director ? sleeve.director.strategy!.bias(bar.symbol) : undefined;
    const signals = strategy.onBar(bar, bias === undefined ? undefined : { bias });
    if (this.setup.trace) this.traceOutput(id, sleeve, bar, timeframe, bias ?? null);
    for (const signal of signals) {
      if (this.setup.trace) this.emit("signal", id, { ...signal, timeframe, sleeve: sleeve.key, bias: bias ?? null });
      this.onSignal(channel, sleeve, signal, bar.close);
    }
  }

  private traceOutput(channelId: string, sleeve: Sleeve, bar: Bar, timeframe: Timeframe, bias: string | null) {
    const state = sleeve.strategy!.inspect?.(bar.symbol);
    this.emit("strategy_output", channelId, {
      symbol: bar.symbol,
      timeframe,
      sleeve: sleeve.key,
      strategy: sleeve.strategy!.id,
      role: sleeve.role,
      bar: { timestamp: bar.timestamp, open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume },
      indicators: state?.indicators ?? {},
      stance: state?.stance ?? null,
      position: state?.position ?? null,
      reason: state?.reason ?? "",
      bias,
    });
  }

  /** The current bias of every director sleeve for each of its symbols (MTF status). */
  biases(): { channel_id: string; sleeve: string; strategy: string; timeframe: Timeframe; symbol: string; bias: string }[] {
    const out: { channel_id: string; sleeve: string; strategy: string; timeframe: Timeframe; symbol: string; bias: string }[] = [];
    for (const channel of this.channels) {
      channel.setup.strategies.forEach((slot, index) => {
        const sleeve = channel.sleeves[index];
        if (sleeve.role !== "director") return;
        for (const symbol of slot.symbols) out.push({ channel_id: channel.setup.channel_id, sleeve: sleeve.key, strategy: slot.strategy_name, timeframe: slot.timeframe, symbol, bias: sleeve.strategy!.bias(symbol) });
      });
    }
    return out;
  }

  private onSignal(channel: ChannelRuntime, sleeve: Sleeve, signal: Signal, close: number) {
    if (channel.state !== "running") return;
    // The newest signal decides: orders of this sleeve and symbol still waiting are withdrawn first.
    if (this.pending.length > 0) this.cancelPending((order) => order.sleeve === sleeve.key && order.symbol === signal.symbol, "superseded by a newer signal");
    const position = sleeve.positions.get(signal.symbol);
    const held = position ? position.quantity : 0;
    const target = signal.target_weight;
    const reason = `${signal.strategy_id}: ${signal.reason}`;
    // Leave what is held against the target first, then open towards it.
    if (held !== 0 && Math.sign(held) !== Math.sign(target)) {
      this.place(channel, sleeve, { channel_id: channel.setup.channel_id, symbol: signal.symbol, side: held > 0 ? "sell" : "buy", quantity: Math.abs(held), reason }, close);
    }
    if (target !== 0 && Math.sign(held) !== Math.sign(target)) {
      const quantity = this.entryQuantity(channel, sleeve, signal.symbol, Math.abs(target), close);
      this.place(channel, sleeve, { channel_id: channel.setup.channel_id, symbol: signal.symbol, side: target > 0 ? "buy" : "sell", quantity, reason }, close);
    }
  }

  /**
   * floor(fraction × weight × free cash / price / lot) × lot, in exact arithmetic. A float64
   * estimate answers when it lies clearly inside one whole lot count; otherwise (and whenever
   * the estimate is near zero free cash) decimal.js decides, so the answer is always the exact one.
   */
  private entryQuantity(channel: ChannelRuntime, sleeve: Sleeve, symbol: string, strength: number, price: number): number {
    const info = this.info(symbol);
    if (!(price > 0)) return 0;
    const { free: freeEstimate, scale } = this.freeCashEstimate(channel, info.currency);
    const tolerance = scale * ESTIMATE_TOLERANCE;
    const sign = surely(freeEstimate, 0, tolerance);
    if (sign < 0) return 0;
    if (sign > 0) {
      const factor = this.fractionNumber * sleeve.weight * strength;
      const lots = (freeEstimate * factor) / price / info.lot;
      const slack = (tolerance * factor) / price / info.lot + Math.abs(lots) * ESTIMATE_TOLERANCE;
      const low = Math.floor(lots - slack);
      if (low === Math.floor(lots + slack)) return low * info.lot;
    }
    const free = this.freeCash(channel, info.currency).toDec();
    if (free.lte(0)) return 0;
    let budget = free.times(this.fraction);
    if (sleeve.weight !== 1) budget = budget.times(sleeve.weight);
    if (strength !== 1) budget = budget.times(strength);
    return budget.div(price).div(info.lot).floor().times(info.lot).toNumber();
  }

  /**
   * `freeCash` as a float64 estimate, and the sum of the magnitudes that went into it: the
   * estimate is within `scale × ESTIMATE_TOLERANCE` of the exact amount.
   */
  private freeCashEstimate(channel: ChannelRuntime, currency: string): { free: number; scale: number } {
    const cash = channel.cash_numbers.get(currency) ?? 0;
    let free = cash;
    let scale = Math.abs(cash);
    for (let i = 0; i < this.pending.length; i++) {
      const order = this.pending[i];
      if (order.channel_id !== channel.setup.channel_id || order.side !== "buy") continue;
      if (this.info(order.symbol).currency !== currency) continue;
      // What is still to fill (a venue or a bar's volume may have filled part of it, already paid), with its commission.
      const price = order.limit_price ?? order.stop_price ?? this.lastOf(order.symbol);
      const notional = price * unfilled(order);
      const promised = notional + (this.commissionRate !== null ? notional * this.commissionRateNumber : this.commissionOf(this.info(order.symbol), "buy", unfilled(order), price).toNumber());
      free -= promised;
      scale += Math.abs(promised);
    }
    ESTIMATE.free = free;
    ESTIMATE.scale = scale;
    return ESTIMATE;
  }

  /**
   * Cash of a currency not yet promised to pending buys: what each has still to fill at its
   * reference price, and the commission that would cost (the paper broker holds the same for its
   * working buys: docs/paper-broker.md).
   */
  private freeCash(channel: ChannelRuntime, currency: string): Money {
    let free = channel.cash.get(currency) ?? ZERO;
    for (const order of this.pending) {
      if (order.channel_id !== channel.setup.channel_id || order.side !== "buy") continue;
      const info = this.info(order.symbol);
      if (info.currency !== currency) continue;
      const price = order.limit_price ?? order.stop_price ?? this.lastOf(order.symbol);
      const exactPrice = Money.of(price);
      free = free.minus(exactPrice.timesInteger(unfilled(order))).minus(this.commissionOf(info, "buy", unfilled(order), price, exactPrice));
    }
    return free;
  }

  private referencePrice(request: OrderRequest): number {
    return request.price ?? this.lastOf(request.symbol);
  }

  /** The last close seen of a symbol, 0 before its first bar. */
  private lastOf(symbol: string): number {
    const last = this.info(symbol).last;
    return Number.isNaN(last) ? 0 : last;
  }

  /** `close` is the close of the bar whose signal places the order (NaN outside a bar): a fill at the close trades there. */
  private place(channel: ChannelRuntime, sleeve: Sleeve, request: OrderRequest, close = NaN): { order: EngineOrder | null; denials: Denial[] } {
    const denials = this.denials(channel, sleeve, request, this.referencePrice(request));
    channel.stats.orders += 1;
    if (denials.length > 0) {
      channel.stats.denied += 1;
      this.emit("order_denied", channel.setup.channel_id, {
        symbol: request.symbol,
        side: request.side,
        quantity: request.quantity,
        sleeve: sleeve.key,
        reason: denials[0].reason,
        message: denials[0].message,
        denials,
        signal: request.reason ?? null,
      });
      return { order: null, denials };
    }
    this.orderCounter += 1;
    const orderType = request.order_type ?? "market";
    const order: EngineOrder = {
      order_id: `${this.setup.session_id}-${this.orderCounter}`,
      channel_id: channel.setup.channel_id,
      sleeve: sleeve.key,
      symbol: request.symbol,
      side: request.side,
      order_type: orderType,
      quantity: request.quantity,
      limit_price: orderType === "limit" ? (request.price ?? null) : null,
      stop_price: orderType === "stop" ? (request.price ?? null) : null,
      submitted_at: this.time,
      reason: request.reason ?? "manual",
    };
    channel.daily_trades += 1;
    this.emit("order_submitted", channel.setup.channel_id, { ...order });
    // At the close of the bar that placed it (its volume is the one being fed), or later bars for what remains.
    const atClose = this.barFills && !Number.isNaN(close) && orderType === "market" && this.setup.execution.fill === "close";
    if (!atClose || this.fillOnBar(order, close)) this.pending.push(order);
    return { order, denials: [] };
  }

  /** Every pre-trade rule `request` breaks (empty when it may go). Exits are only checked for lots and size. */
  private denials(channel: ChannelRuntime, sleeve: Sleeve, request: OrderRequest, price: number): Denial[] {
    const out: Denial[] = [];
    const info = this.info(request.symbol);
    const held = sleeve.positions.get(request.symbol)?.quantity ?? 0;
    const signed = request.side === "buy" ? request.quantity : -request.quantity;
    const reducing = held !== 0 && Math.sign(held) !== Math.sign(signed) && Math.abs(signed) <= Math.abs(held);
    // The order-term rules every venue applies (engine/order-rules.ts); closing a whole odd holding is not held to the lot.
    const wholeExit = reducing && request.quantity === Math.abs(held);
    for (const problem of quantityProblems(request.quantity, wholeExit ? 1 : info.lot)) deny(out, problem.code, problem.message, problem.values);
    if (request.price != null && (request.order_type === "limit" || request.order_type === "stop")) {
      for (const problem of marketTickProblems(info.market, this.exchangeDay(info.market), "price", request.price)) deny(out, problem.code, problem.message, problem.values);
    }
    if (channel.state !== "running") {
      deny(out, "CHANNEL_NOT_RUNNING", `channel ${channel.setup.channel_id} is ${channel.state}`, { channel_state: channel.state });
    }
    if (reducing) return out;
    if (channel.halt !== null) {
      deny(out, "CHANNEL_HALTED", `channel ${channel.setup.channel_id} is halted by its ${channel.halt === "drawdown" ? "drawdown" : "daily loss"} limit`, { halt: channel.halt });
    }
    if (!(price > 0)) {
      deny(out, "NO_PRICE", `no price is known for ${request.symbol} yet`, { symbol: request.symbol });
      return out;
    }
    const quantity = Math.max(0, request.quantity);
    if (request.side === "buy" && !this.coversEstimate(channel, info, quantity, price)) {
      const free = this.freeCash(channel, info.currency);
      const cost = Money.of(price).times(Money.of(quantity)).plus(this.commissionOf(info, "buy", request.quantity, price));
      if (cost.compare(free) > 0) {
        deny(out, "INSUFFICIENT_CASH", `order cost ${cost.toFixed(2)} ${info.currency} exceeds free cash ${free.toFixed(2)}`, { cost: cost.toFixed(2), free_cash: free.toFixed(2), currency: info.currency });
      }
    }
    const risk: RiskConfig | null = this.setup.risk;
    const equity = this.equityOf(channel);
    const notionalBase = productNumber(price, quantity) * info.fx;
    if (request.side === "sell" && held <= 0 && risk !== null && !risk.allow_short) {
      deny(out, "SHORT_SELLING_NOT_ALLOWED", `selling ${request.quantity} ${request.symbol} would open a short position`, { quantity: request.quantity, held });
    }
    if (risk !== null) {
      if (risk.max_order_notional !== null && notionalBase > risk.max_order_notional) {
        deny(out, "NOTIONAL_EXCEEDS_MAX_PER_ORDER", `notional=${round2(notionalBase)} exceeds max_order_notional=${risk.max_order_notional}`, { notional: round2(notionalBase), max: risk.max_order_notional });
      }
      const positionAfter = Math.abs((held + signed) * price * info.fx);
      if (equity > 0 && positionAfter / equity > risk.max_position_size) {
        deny(out, "MAX_POSITION_EXCEEDED", `position of ${round2(positionAfter)} would be ${round6(positionAfter / equity)} of equity; max_position_size=${risk.max_position_size}`, { position_value: round2(positionAfter), equity: round2(equity), fraction: round6(positionAfter / equity), max: risk.max_position_size });
      }
      const exposureAfter = this.grossExposure(channel) + notionalBase;
      const maxExposure = Math.min(risk.max_total_exposure, channel.setup.limits.leverage_limit);
      if (equity > 0 && exposureAfter / equity > maxExposure) {
        deny(out, "MAX_EXPOSURE_EXCEEDED", `gross exposure would be ${round6(exposureAfter / equity)}x equity; limit ${maxExposure}x`, { exposure: round2(exposureAfter), equity: round2(equity), ratio: round6(exposureAfter / equity), max: maxExposure });
      }
      if (held === 0 && this.openPositions(channel) >= risk.max_open_positions) {
        deny(out, "MAX_OPEN_POSITIONS_EXCEEDED", `channel holds ${this.openPositions(channel)} positions; max_open_positions=${risk.max_open_positions}`, { open_positions: this.openPositions(channel), max: risk.max_open_positions });
      }
      if (channel.daily_trades >= risk.max_daily_trades) {
        deny(out, "MAX_DAILY_TRADES_EXCEEDED", `${channel.daily_trades} orders today; max_daily_trades=${risk.max_daily_trades}`, { daily_trades: channel.daily_trades, max: risk.max_daily_trades });
      }
      const loss = notionalBase * risk.stop_loss_pct;
      const maxLoss = channel.setup.limits.max_loss_per_trade * equity;
      if (loss > maxLoss) {
        deny(out, "MAX_LOSS_PER_TRADE_EXCEEDED", `a stop-out at ${risk.stop_loss_pct} would lose ${round2(loss)}; max_loss_per_trade allows ${round2(maxLoss)}`, { potential_loss: round2(loss), max_loss: round2(maxLoss) });
      }
    }
    return out;
  }

  /**
   * Whether free cash surely covers buying `quantity` at `price` with its commission, judged
   * from float64 estimates (false also when it is too close to tell: then exact arithmetic decides).
   * The percent model's commission is estimated; the broker's schedule has minimums and
   * roundings, so it is only skipped when nothing is bought.
   */
  private coversEstimate(channel: ChannelRuntime, info: SymbolInfo, quantity: number, price: number): boolean {
    if (this.commissionRate === null && quantity > 0) return false;
    const notional = price * quantity;
    const cost = notional * (1 + this.commissionRateNumber);
    const { free, scale } = this.freeCashEstimate(channel, info.currency);
    return surely(free, cost, (scale + notional * 2) * ESTIMATE_TOLERANCE) > 0;
  }

  /** The day number of the clock's date at `market`'s exchange: kept while the clock stays inside the same local day. */
  private exchangeDay(market: Market): number {
    const date = this.tradeDate;
    if (date.market !== market || this.time < date.from || this.time >= date.to) {
      const timeZone = Markets[market].timeZone;
      const day = utcToZoned(timeZone, this.time).dayNumber;
      date.market = market;
      date.day = day;
      date.iso = isoDateOf(day);
      date.from = zonedTimeToUtc(timeZone, day, 0);
      date.to = zonedTimeToUtc(timeZone, day + 1, 0);
    }
    return date.day;
  }

  /** `exactPrice` is `Money.of(price)` when the caller has it already. */
  private commissionOf(info: SymbolInfo, side: OrderSide, quantity: number, price: number, exactPrice?: Money): Money {
    if (this.commissionRate !== null) return this.commissionRate.times(exactPrice ?? Money.of(price)).times(Money.of(quantity));
    if (this.setup.fees === null || (info.market !== "US" && info.market !== "HK") || quantity <= 0) return ZERO;
    const day = this.exchangeDay(info.market);
    const date = this.tradeDate;
    // The schedule is a pure function of these: a buy's pre-trade check and its fill at the same close ask twice.
    const memo = this.feeMemo;
    if (memo.market === info.market && memo.side === side && memo.quantity === quantity && memo.price === price && memo.day === day) return memo.fee;
    const fee = Fees.totalFee(this.setup.fees, info.market, side, Money.of(quantity), exactPrice ?? Money.of(price), date.iso);
    memo.market = info.market;
    memo.side = side;
    memo.quantity = quantity;
    memo.price = price;
    memo.day = day;
    memo.fee = fee;
    return fee;
  }

  /** The broker schedule's charge for a part of `order` worth `notional` (`Fees.chargesOn` on the order so far, less what it was charged). */
  private partCommission(order: EngineOrder, info: SymbolInfo, quantity: number, notional: Money): Money {
    if (this.setup.fees === null || (info.market !== "US" && info.market !== "HK")) return ZERO;
    this.exchangeDay(info.market);
    const executed = Money.of((order.filled ?? 0) + quantity);
    const value = Money.of(order.filled_value ?? "0").plus(notional);
    const total = Fees.chargesOn(this.setup.fees, info.market, order.side, executed, value, this.tradeDate.iso).total;
    return Money.max(total.minus(Money.of(order.filled_commission ?? "0")), ZERO);
  }

  /** Fills what `bar` reaches; whether anything filled or was rejected (an order filled in part stays pending). */
  private fillPending(symbol: string, at: number, open: number, high: number, low: number): boolean {
    let kept = 0;
    const sequence = this.sequence;
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) {
      const order = pending[i];
      const price = order.symbol === symbol && at >= order.submitted_at ? fillPrice(order, open, high, low) : NaN;
      if (Number.isNaN(price) || this.fillOnBar(order, price)) pending[kept++] = order;
    }
    pending.length = kept;
    return this.sequence !== sequence;
  }

  /**
   * Fills what the bar being fed lets `order` take at `price`: all of it, or under
   * `max_participation` its share of the bar's volume in whole lots (nothing when that is less
   * than a lot). Whether the order is still pending after.
   */
  private fillOnBar(order: EngineOrder, price: number): boolean {
    let quantity = unfilled(order);
    if (this.participation !== null) {
      // The tolerance keeps a share such as 0.29 × 100 from flooring to 28; a bar without a volume lets nothing trade.
      const share = Math.floor(this.barVolume * this.participation + 1e-9);
      quantity = fillableShares(quantity, share > 0 ? share : 0, this.info(order.symbol).lot);
      if (quantity <= 0) return true;
    }
    if (!this.fill(order, price, quantity)) return false;
    if (order.order_type === "stop") order.triggered = true;
    // A whole fill keeps no running totals: only an order filled in parts has some left.
    return order.filled !== undefined && unfilled(order) > 0;
  }

  /**
   * Books a fill of `quantity` (the whole order unless a venue or a bar's volume filled part of it) at
   * `marketPrice` (with slippage on bars; a venue's price as it is). A fill on bars that cash
   * cannot pay is rejected; a venue's fill happened and is booked.
   */
  private fill(order: EngineOrder, marketPrice: number, quantity = order.quantity, venue: boolean | VenueCharge = false): boolean {
    const venueFill = venue !== false;
    const channel = this.channel(order.channel_id);
    const sleeve = this.sleeveOf(channel, order.sleeve);
    const info = this.info(order.symbol);
    const price = venueFill || this.slippage === 0 ? marketPrice : marketPrice * (order.side === "buy" ? 1 + this.slippage : 1 - this.slippage);
    const exactPrice = Money.of(price);
    // A venue that settles its own books (the paper broker) is booked as it booked: its value to the cent and its fee.
    const charged = typeof venue === "object" ? venue : null;
    const notional = charged ? Money.of(Round.nearestCent(exactPrice.timesInteger(quantity).toDec()).toFixed()) : exactPrice.timesInteger(quantity);
    // A part of an order (a bar's volume share) is charged by the one rule for orders filled in parts: the schedule on the order so far, less what it was charged.
    const part = !charged && this.commissionRate === null && (quantity < order.quantity || order.filled !== undefined);
    const commission = charged ? Money.of(charged.commission) : part ? this.partCommission(order, info, quantity, notional) : this.commissionOf(info, order.side, quantity, price, exactPrice);
    const cashFlow = order.side === "buy" ? notional.plus(commission).negated() : notional.minus(commission);
    const cash = channel.cash.get(info.currency) ?? ZERO;
    const cashAfter = cash.plus(cashFlow);
    if (order.side === "buy" && cashAfter.isBelowZero() && !venueFill) {
      this.emit("order_rejected", channel.setup.channel_id, {
        order_id: order.order_id,
        symbol: order.symbol,
        side: order.side,
        quantity: order.quantity,
        reason: "INSUFFICIENT_CASH",
        message: `fill cost ${cashFlow.negated().toFixed(2)} ${info.currency} exceeds cash ${cash.toFixed(2)}`,
        values: { cost: cashFlow.negated().toFixed(2), cash: cash.toFixed(2) },
      });
      return false;
    }
    channel.cash.set(info.currency, cashAfter);
    const cashText = cashAfter.toString();
    this.refreshCash(channel, info.currency, cashText);
    const position = this.positionOf(sleeve, order.symbol);
    const signed = order.side === "buy" ? quantity : -quantity;
    const heldBefore = position.quantity !== 0;
    const booking = book(position, signed, price, cashFlow, commission, this.time);
    if (heldBefore !== (position.quantity !== 0)) info.held += heldBefore ? -1 : 1;
    const stats = channel.stats;
    stats.fees = stats.fees.plus(commission);
    if (!booking.realized.isZero()) stats.realized = stats.realized.plus(booking.realized);
    const fill: FillData & Pick<EngineOrder, "order_type" | "submitted_at" | "reason"> = {
      order_id: order.order_id,
      symbol: order.symbol,
      side: order.side,
      quantity,
      price: decimalText(price),
      commission: commission.toString(),
      currency: info.currency,
      sleeve: sleeve.key,
      order_type: order.order_type,
      submitted_at: order.submitted_at,
      reason: order.reason,
    };
    const id = channel.setup.channel_id;
    if (venueFill || quantity < order.quantity || order.filled !== undefined) {
      // Totals so far, for an order filled in parts.
      const filled = (order.filled ?? 0) + quantity;
      const value = Money.of(order.filled_value ?? "0").plus(notional);
      const fees = Money.of(order.filled_commission ?? "0").plus(commission);
      order.filled = filled;
      order.filled_value = value.toString();
      order.filled_commission = fees.toString();
      const extra = fill as unknown as Record<string, unknown>;
      extra.filled_quantity = filled;
      extra.remaining = order.quantity - filled;
      extra.average_price = value.toDec().div(filled).toString();
      extra.total_commission = order.filled_commission;
    }
    this.emit("order_filled", id, fill as unknown as Record<string, unknown>);
    this.emit("position_changed", id, {
      symbol: order.symbol,
      sleeve: sleeve.key,
      quantity: position.quantity,
      cost: position.cost.toString(),
      entry_price: position.entry_price,
      currency: info.currency,
      cash: cashText,
    });
    if (booking.closed) {
      const pnl = booking.closed.pnl;
      stats.closed_trades += 1;
      if (pnl.isAboveZero()) {
        stats.wins += 1;
        stats.gross_profit = stats.gross_profit.plus(pnl);
      } else {
        stats.losses += 1;
        stats.gross_loss = stats.gross_loss.plus(pnl.negated());
      }
      this.emit("trade_closed", id, {
        symbol: order.symbol,
        sleeve: sleeve.key,
        direction: signed < 0 ? "long" : "short",
        quantity: booking.closed.quantity,
        entry_time: booking.closed.opened_at,
        exit_time: this.time,
        entry_price: booking.closed.entry_price,
        exit_price: price,
        pnl: pnl.toString(),
        fees: booking.closed.fees.toString(),
        currency: info.currency,
      });
    }
    return true;
  }

  /** Withdraws pending orders; a broker's orders are asked to cancel (`order_cancel_requested`) and end when it reports so. */
  private cancelPending(which: (order: EngineOrder) => boolean, reason: string, extra: Record<string, unknown> = {}) {
    if (!this.barFills) {
      for (const order of this.pending) {
        if (!which(order) || order.cancel_requested) continue;
        order.cancel_requested = true;
        this.emit("order_cancel_requested", order.channel_id, { order_id: order.order_id, symbol: order.symbol, reason, ...extra });
      }
      return;
    }
    const kept: EngineOrder[] = [];
    for (const order of this.pending) {
      if (which(order)) this.emit("order_cancelled", order.channel_id, { order_id: order.order_id, symbol: order.symbol, reason, ...extra });
      else kept.push(order);
    }
    this.pending = kept;
  }

  // ---- a broker venue's reports (docs/session-worker.md, "Orders at the broker") ----------------

  /** The broker took the order under `venueOrderId` (`order_routed`); once only. */
  routed(orderId: string, venueOrderId: string): void {
    const order = this.pending.find((candidate) => candidate.order_id === orderId);
    if (!order || order.venue_order_id !== undefined) return;
    order.venue_order_id = venueOrderId;
    this.emit("order_routed", order.channel_id, { order_id: orderId, symbol: order.symbol, venue_order_id: venueOrderId });
  }

  /** The broker executed `quantity` of the order at `price` (its trade `tradeId`, booked once); the order is done when all of it has filled. */
  venueFill(orderId: string, tradeId: string, quantity: number, price: number, at: number, charged?: VenueCharge): void {
    const order = this.pending.find((candidate) => candidate.order_id === orderId);
    if (!order || order.venue_trades?.includes(tradeId) || !(quantity > 0) || !(price > 0)) return;
    this.time = Math.max(this.time, at);
    order.venue_trades = [...(order.venue_trades ?? []), tradeId];
    this.fill(order, price, Math.min(quantity, unfilled(order)), charged ?? true);
    if (unfilled(order) <= 0) this.pending = this.pending.filter((candidate) => candidate !== order);
    this.monitor();
  }

  /** The order is over at the broker: cancelled (also the rest of a part-filled order), rejected or expired. */
  venueEnded(orderId: string, status: "cancelled" | "rejected" | "expired", message: string, at: number): void {
    const order = this.pending.find((candidate) => candidate.order_id === orderId);
    if (!order) return;
    this.time = Math.max(this.time, at);
    this.pending = this.pending.filter((candidate) => candidate !== order);
    if (status === "rejected") {
      this.emit("order_rejected", order.channel_id, { order_id: orderId, symbol: order.symbol, side: order.side, quantity: order.quantity, reason: "VENUE_REJECTED", message, values: {} });
    } else {
      this.emit("order_cancelled", order.channel_id, { order_id: orderId, symbol: order.symbol, reason: message, ...(status === "expired" ? { expired: true } : {}) });
    }
  }
}

/** Execution price of a pending order on `bar` by the shared matching rules, or NaN when the bar does not reach it. */
function fillPrice(order: EngineOrder, open: number, high: number, low: number): number {
  const buying = order.side === "buy";
  switch (order.order_type) {
    case "market":
      return open;
    case "limit": {
      const limit = order.limit_price!;
      return priceAt(limitReach(buying, limit, open, high, low), open, limit);
    }
    case "stop": {
      // A buy stop triggers on a rise, a sell stop on a fall; both then trade as market orders at the touch.
      if (order.triggered) return open;
      const stop = order.stop_price!;
      return priceAt(touchReach(buying, stop, open, high, low), open, stop);
    }
  }
}

const NO_ROUTES: readonly { channel: ChannelRuntime; sleeve: Sleeve }[] = [];

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

/** Shares of an order still to fill (a broker may have filled part of it). */
const unfilled = (order: EngineOrder): number => order.quantity - (order.filled ?? 0);

/** The one estimate object `freeCashEstimate` fills (nothing is allocated per call). */
const ESTIMATE = { free: 0, scale: 0 };

const priceAt = (reach: Reach, open: number, level: number): number => (reach === AT_OPEN ? open : reach === AT_LEVEL ? level : NaN);

function track(tracker: Tracker, equity: number) {
  if (equity > tracker.peak) {
    tracker.peak = equity;
    tracker.peak_day = tracker.equity_days.length;
  } else if (tracker.peak > 0) {
    const drawdown = (tracker.peak - equity) / tracker.peak;
    if (drawdown > tracker.max_drawdown) tracker.max_drawdown = drawdown;
  }
}

function closeTrackerDay(tracker: Tracker, equity: number, inMarket: boolean) {
  tracker.equity_days.push(equity);
  if (inMarket) tracker.days_in_market += 1;
  if (equity < tracker.peak) {
    const underwater = tracker.equity_days.length - tracker.peak_day;
    if (underwater > tracker.max_drawdown_days) tracker.max_drawdown_days = underwater;
  }
}

/** The channel's sleeves by index, the manual sleeve last. */
const sleeveAt = (channel: ChannelRuntime, s: number): Sleeve => (s < channel.sleeves.length ? channel.sleeves[s] : channel.manual);

/** Whether a sleeve before the `s`-th holds `symbol`. */
function heldBefore(channel: ChannelRuntime, s: number, symbol: string): boolean {
  for (let e = 0; e < s; e++) {
    const holdings = sleeveAt(channel, e).holdings;
    for (let h = 0; h < holdings.length; h++) if (holdings[h].position.quantity !== 0 && holdings[h].position.symbol === symbol) return true;
  }
  return false;
}

const deny = (out: Denial[], reason: string, message: string, values: Record<string, number | string>) => void out.push({ reason, message, values });
const cloneTracker = (tracker: Tracker): Tracker => ({ ...tracker, equity_days: tracker.equity_days.slice() });
const round2 = (value: number) => Math.round(value * 100) / 100;
const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** How a venue that keeps its own books booked one execution: the fee it charged for it (a decimal string). */
export interface VenueCharge {
  commission: string;
}

/** An open position as the views show it. */
export interface PositionView {
  channel_id: string;
  sleeve: string;
  symbol: string;
  quantity: number;
  cost: string;
  entry_price: number;
  last_price: number;
  market_value: number;
  unrealized_pnl: number;
  currency: string;
  opened_at: number;
}

/** A channel's (or the session's) figures at the engine's current time. */
export interface EngineView {
  initial_equity: number;
  equity: number;
  unrealized_pnl: number;
  cash: Record<string, string>;
  positions: PositionView[];
  stats: {
    closed_trades: number;
    wins: number;
    losses: number;
    gross_profit: string;
    gross_loss: string;
    fees: string;
    realized: string;
    orders: number;
    denied: number;
  };
  peak: number;
  max_drawdown: number;
  max_drawdown_days: number;
  current_drawdown: number;
  daily_pnl: number;
  day_start_equity: number;
  equity_days: number[];
  days_in_market: number;
  daily_trades: number;
  state: ChannelRunState | null;
  halt: Halt;
  pending_orders: EngineOrder[];
}
