import { Dec } from "../money/decimal";
import type { Market } from "../market/market";
import type { Timeframe } from "../strategies/definition";
import type { BarColumns, Signal, Strategy } from "../strategies/strategy";
import type { Denial, EngineOrder, EngineOrderType, EventType, OrderSide } from "./events";
import type { Position } from "./ledger";
import { Money } from "../money/money";
import { DEFAULT_EXIT_RULES, type ChannelSetup, type EngineSetup, type ExitRules, type ProtectiveExits } from "./setup";

/** The engine's runtime model (channels, sleeves, symbols, trackers) and the figures computed over it alone. */

/** A channel's run state. `halted` is set by the post-trade monitors and only blocks new entries. */
export type ChannelRunState = "running" | "paused" | "stopped";
export type Halt = null | "drawdown" | "daily_loss";

/** Running figures of a channel or the whole session, all float64 marks (booked money lives in the ledger). */
export interface Tracker {
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

export interface Stats {
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

export interface Sleeve {
  key: string;
  strategy: Strategy | null;
  weight: number;
  positions: Map<string, Position>;
  /** Multi-timeframe role, and the director whose bias an executor obeys (docs/mtf-and-replay.md). */
  role: "director" | "executor" | null;
  director: Sleeve | null;
  /** The same positions in the same order with their symbols' info, walked per bar without allocating. */
  holdings: Holding[];
  /** The protective orders its entries get (`exits.ts`); null: none. */
  exits: ProtectiveExits | null;
}

export interface Holding {
  position: Position;
  info: SymbolInfo;
}

export interface ChannelRuntime {
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
export interface SymbolInfo {
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
  /**
   * `execution.intrabar`: the stored 1-minute bars the driver handed over for the span being fed
   * (`useMinutes`), which a coarser bar's fills walk (`fills.ts` `fillIntrabar`); null when none
   * were. Not part of the snapshot: a driver hands them again after a restore.
   */
  minutes: BarColumns | null;
}

/** A sleeve's position in a symbol that a fill changed (`exits.ts`). */
export interface ExitDue {
  channel: ChannelRuntime;
  sleeve: Sleeve;
  symbol: string;
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

/**
 * What the pending buys of a channel hold of one market's cash, as a running total: a buy's hold
 * (what it has still to fill at its own price, with the commission that would cost) is added when
 * it rests and taken off when it fills, changes or ends (`hold`/`release` in cash.ts), so the
 * pre-trade check reads a total instead of pricing every resting buy. A market buy is priced at the
 * last close, so it is kept aside and priced when asked. The amounts are those of `day`, the
 * exchange date the broker's schedule prices by (0 when it does not apply).
 */
export interface HoldBucket {
  market: Market;
  currency: string;
  day: number;
  total: Money;
  /** `total` as float64, for the estimates (NaN until asked after a change). */
  number: number;
  /** Pending buys without a price of their own (market orders). */
  floating: Set<EngineOrder>;
}

/** The engine's holds: per pending buy its bucket and amount (null: floating), per channel its buckets. */
export interface Holds {
  /** False after a restore or when a bucket's day has passed: the next question counts every pending buy again. */
  counted: boolean;
  byOrder: Map<EngineOrder, { bucket: HoldBucket; amount: Money | null }>;
  byChannel: Map<string, HoldBucket[]>;
}

export const newHolds = (): Holds => ({ counted: true, byOrder: new Map(), byChannel: new Map() });

/** Milliseconds a bar of each period spans: a signal read at a bar's close is stamped at its open plus this. */
export const PERIOD_MS: Readonly<Record<Timeframe, number>> = { "1m": 60_000, "5m": 300_000, "1h": 3_600_000, "1d": 86_400_000 };

/** The listeners of a symbol and period no strategy reads. */
export const NO_ROUTES: readonly { channel: ChannelRuntime; sleeve: Sleeve }[] = [];

export const ZERO = Money.ZERO;
export const newTracker = (equity: number): Tracker => ({
  peak: equity,
  max_drawdown: 0,
  peak_day: 0,
  max_drawdown_days: 0,
  day_start_equity: equity,
  equity_days: [],
  days_in_market: 0,
});
export const newStats = (): Stats => ({
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
 * The engine's state and the few primitives its modules share, declared once: the checks, cash,
 * fills, days, view and snapshot modules are functions over it; `TradingEngine` (`engine.ts`)
 * extends it with the façade and the hot loops, builds the channels and gives the primitives.
 * What follows from the setup alone is set here, in one constructor, so every engine has the
 * same fields in the same order (one hidden class on the bar path). Outside `engine/`, use
 * `TradingEngine`'s methods only.
 */
export abstract class EngineCore {
  readonly channels: ChannelRuntime[] = [];
  readonly symbols = new Map<string, SymbolInfo>();
  pending: EngineOrder[] = [];
  /**
   * A broker's orders that are over (filled, cancelled, rejected, expired), newest last, at most
   * `ENDED_KEPT`: an execution the broker lists after the order's end is still booked, once, and
   * one beyond its quantity is refused (`venue-reports.ts`).
   */
  ended: EngineOrder[] = [];
  /** What the pending buys hold of each channel's cash (cash.ts keeps it as they rest, fill, change and end). */
  readonly holds = newHolds();
  sequence = 0;
  orderCounter = 0;
  time = 0;
  /** Local day number of the current trading day, and the UTC range it covers. */
  day = -1;
  dayStart = 0;
  dayEnd = 0;
  /** The whole session's figures, set once the channels are built (their equity is its start). */
  session!: Tracker;
  /** The last fee the broker's schedule gave, and what it was asked. */
  readonly feeMemo = { market: "", side: "", quantity: NaN, price: NaN, day: NaN, fee: ZERO };
  /** The exchange-local trade date last asked for (fees, tick grids), and the UTC span of that day. */
  readonly tradeDate = { market: "", day: NaN, iso: "", from: NaN, to: NaN };
  /** Volume of the bar being fed (what a fill at its close may take of it). */
  barVolume = 0;
  /** `execution.intrabar`: bars whose waiting orders were tried on the bar's own prices for want of stored minutes, since `reportIntrabar`. */
  intrabarMissing = 0;
  /** Positions a fill changed whose protective orders are to be brought in line (`exits.ts` `settleExits`). */
  readonly exitsDue: ExitDue[] = [];
  /** Whether orders fill on the bars fed (`venue` bars) rather than by a broker's reports. */
  readonly barFills: boolean;
  /** `execution.intrabar` on bars: fills walk the minutes a driver hands over (`useMinutes`). */
  readonly intrabar: boolean;
  /** `execution.commission` of the percent model as a rate (null: the broker's schedule), and as float64 (0). */
  readonly commissionRate: Money | null;
  readonly commissionRateNumber: number;
  /** `execution.sizing.fraction`: the share of free cash an entry spends. */
  readonly fraction: Dec;
  readonly fractionNumber: number;
  /** `execution.slippage_bps` as a fraction of the price. */
  readonly slippage: number;
  /** `execution.max_participation`: the share of a bar's volume one order may take (null: whole orders). */
  readonly participation: number | null;
  /** How protective exits fill on bars (`execution.exits`). */
  readonly exitRules: ExitRules;

  /** `timeZone`: that of the market whose days the engine counts (`days.ts` `dayMarketOf`). */
  protected constructor(
    readonly setup: EngineSetup,
    readonly timeZone: string,
  ) {
    const execution = setup.execution;
    this.barFills = setup.venue !== "broker";
    this.intrabar = this.barFills && execution.intrabar === "1m";
    const commission = execution.commission;
    this.commissionRate = commission.model === "percent" ? Money.of(commission.rate) : null;
    this.commissionRateNumber = commission.model === "percent" ? commission.rate : 0;
    this.fraction = new Dec(execution.sizing.fraction);
    this.fractionNumber = execution.sizing.fraction;
    this.slippage = execution.slippage_bps / 10_000;
    this.participation = execution.max_participation ?? null;
    this.exitRules = execution.exits ?? DEFAULT_EXIT_RULES;
  }

  abstract info(symbol: string): SymbolInfo;
  abstract channel(channelId: string): ChannelRuntime;
  abstract emit(type: EventType, channelId: string | null, data: Record<string, unknown>): void;
  abstract refreshCash(channel: ChannelRuntime, changed?: string, changedText?: string): void;
  abstract sleeveOf(channel: ChannelRuntime, key: string): Sleeve;
  abstract positionOf(sleeve: Sleeve, symbol: string): Position;
  abstract totalEquity(): number;
  /** Acts on a strategy's signal at the close of the bar that gave it. */
  abstract onSignal(channel: ChannelRuntime, sleeve: Sleeve, signal: Signal, close: number): void;
}

/** The broker orders that are over kept for their late executions (`EngineCore.ended`). */
export const ENDED_KEPT = 200;

/** Shares of an order still to fill (a broker may have filled part of it). */
export const unfilled = (order: EngineOrder): number => order.quantity - (order.filled ?? 0);

export function track(tracker: Tracker, equity: number) {
  if (equity > tracker.peak) {
    tracker.peak = equity;
    tracker.peak_day = tracker.equity_days.length;
  } else if (tracker.peak > 0) {
    const drawdown = (tracker.peak - equity) / tracker.peak;
    if (drawdown > tracker.max_drawdown) tracker.max_drawdown = drawdown;
  }
}

export function closeTrackerDay(tracker: Tracker, equity: number, inMarket: boolean) {
  tracker.equity_days.push(equity);
  if (inMarket) tracker.days_in_market += 1;
  if (equity < tracker.peak) {
    const underwater = tracker.equity_days.length - tracker.peak_day;
    if (underwater > tracker.max_drawdown_days) tracker.max_drawdown_days = underwater;
  }
}

/** The channel's sleeves by index, the manual sleeve last. */
export const sleeveAt = (channel: ChannelRuntime, s: number): Sleeve => (s < channel.sleeves.length ? channel.sleeves[s] : channel.manual);

/** Whether a sleeve before the `s`-th holds `symbol`. */
export function heldBefore(channel: ChannelRuntime, s: number, symbol: string): boolean {
  for (let e = 0; e < s; e++) {
    const holdings = sleeveAt(channel, e).holdings;
    for (let h = 0; h < holdings.length; h++) if (holdings[h].position.quantity !== 0 && holdings[h].position.symbol === symbol) return true;
  }
  return false;
}

export const deny = (out: Denial[], reason: string, message: string, values: Record<string, number | string>) => void out.push({ reason, message, values });
export const cloneTracker = (tracker: Tracker): Tracker => ({ ...tracker, equity_days: tracker.equity_days.slice() });
export const round2 = (value: number) => Math.round(value * 100) / 100;
export const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export function equityOf(channel: ChannelRuntime): number {
  let equity = channel.cash_value;
  for (let s = 0; s < channel.sleeves.length; s++) equity += positionsValue(channel.sleeves[s]);
  return equity + positionsValue(channel.manual);
}

export function positionsValue(sleeve: Sleeve): number {
  const holdings = sleeve.holdings;
  let value = 0;
  for (let h = 0; h < holdings.length; h++) {
    const { position, info } = holdings[h];
    if (position.quantity === 0) continue;
    if (!Number.isNaN(info.last)) value += position.quantity * info.last * info.fx;
  }
  return value;
}

export function grossExposure(channel: ChannelRuntime): number {
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
export function openPositions(channel: ChannelRuntime): number {
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
