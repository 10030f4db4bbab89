import { z } from "zod";
import { badRequest } from "../errors";
import type { ParameterValue } from "./parameter";
import { capture, type Json, restoreInto } from "./snapshot";

/** One candle of one symbol; `timestamp` is the bar's open time in milliseconds since the epoch (UTC). */
export interface Bar {
  symbol: string;
  timestamp: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * Bars of one symbol as columns (the candle store's typed arrays, or any arrays): bar `i` is
 * `timestamp[i] * msPerUnit` (its open, in ms) and the prices at `i`. The batch path reads them
 * without building a `Bar` per bar.
 */
export interface BarColumns {
  symbol: string;
  /** Milliseconds per unit of `timestamp` (1000 for the store's seconds, 1 for milliseconds). */
  msPerUnit: number;
  timestamp: ArrayLike<number>;
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
  volume: ArrayLike<number>;
}

/** The prices and volume of a run of bars, one array per field (a `BarColumns`, a stored `CandleBatch`). */
export type PriceColumns = Pick<BarColumns, "timestamp" | "open" | "high" | "low" | "close" | "volume">;

/** Sets `bar` (a scratch bar, reused) to the bar at `i` of `columns`, whose timestamps count `msPerUnit` ms each; returns it. */
export function barAt(bar: Bar, columns: PriceColumns, i: number, msPerUnit: number): Bar {
  bar.timestamp = columns.timestamp[i] * msPerUnit;
  bar.open = columns.open[i];
  bar.high = columns.high[i];
  bar.low = columns.low[i];
  bar.close = columns.close[i];
  bar.volume = columns.volume[i];
  return bar;
}

/** A signal and the index of the column bar whose close produced it. */
export interface IndexedSignal {
  index: number;
  signal: Signal;
}

/** Direction a higher-timeframe director sets for the executors below it. */
export const Bias = z.enum(["long", "short", "flat"]);
export type Bias = z.infer<typeof Bias>;

/** What the runtime tells a strategy besides the bar. */
export interface BarContext {
  /**
   * Bias of the director for this symbol in a multi-timeframe session. A strategy that
   * receives a bias never holds a position against it: `flat` keeps it out of the market,
   * `long` forbids shorts, `short` forbids longs. Absent outside multi-timeframe sessions.
   */
  bias?: Bias;
}

/** A trade intent. `target_weight` is the share of the strategy's capital to hold after it. */
export interface Signal {
  strategy_id: string;
  symbol: string;
  timestamp: number;
  side: "buy" | "sell";
  /** -1 full short, 0 flat, 1 full long. */
  target_weight: number;
  /** Conviction from 0 to 1, for sizing and for ranking concurrent signals. */
  strength: number;
  reason: string;
}

/** A strategy's saved state: plain JSON, restorable into an instance with the same parameters. */
export interface StrategyState {
  strategy_id: string;
  version: 1;
  parameters: Record<string, ParameterValue>;
  symbols: Record<string, Json>;
}

/** A runnable strategy. The same instance handles any number of symbols. */
export interface Strategy {
  readonly id: string;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  /** Bars of one symbol needed before the first signal can appear. */
  readonly warmupBars: number;
  /**
   * Bars of one symbol after which its indicators no longer depend on the history before them
   * (within 0.1 %), at least `warmupBars`: what a live or simulation run loads before its first
   * bar, and what the recursive bias check compares after (`StrategyDefinition.settle`).
   */
  readonly settleBars: number;
  /** Feeds one closed bar; returns the signals it triggers (usually none). */
  onBar(bar: Bar, context?: BarContext): Signal[];
  /**
   * The batch form of `onBar` without a context: feeds bars `from` to `to - 1` of `columns` and
   * appends the signals they trigger to `out`, leaving the strategy exactly as `onBar` on each of
   * those bars would (same signals, same state, bit for bit).
   */
  onColumns(columns: BarColumns, from: number, to: number, out: IndexedSignal[]): void;
  /** The strategy's own view of the symbol's direction, which a director hands to its executors. */
  bias(symbol: string): Bias;
  /** What the strategy holds for a symbol now: stance, position, why, and its latest indicator values (MTF outputs). */
  inspect?(symbol: string): StrategyInspection;
  /** Everything needed to continue later, as plain JSON. */
  saveState(): StrategyState;
  /** Continues from a saved state; the state must come from the same strategy and parameters. */
  restoreState(state: StrategyState): void;
}

/** -1 short, 0 flat, 1 long. */
export type Stance = -1 | 0 | 1;

/** A strategy's view of one symbol, for study (the MTF session's `outputs`). */
export interface StrategyInspection {
  stance: Stance;
  position: Stance;
  reason: string;
  strength: number;
  /** Latest indicator values by name (null before they are ready); empty for strategies that record none. */
  indicators: Record<string, number | null>;
}

/** Per-symbol state every strategy keeps besides its indicators. */
export interface SymbolState {
  /** Bars seen. */
  bars: number;
  /** Direction the strategy's rules currently want. */
  stance: Stance;
  /** Direction actually held after the bias and short-selling filters. */
  position: Stance;
  /** Why the stance last changed, and how strongly. */
  reason: string;
  strength: number;
  /** Latest indicator values, for strategies that record them (shown in MTF outputs). */
  indicators?: Record<string, number>;
}

/** A change of stance decided by a strategy's rules on one bar. */
export interface Decision {
  stance: Stance;
  reason: string;
  strength?: number;
}

const BIAS_OF: Record<Stance, Bias> = { [-1]: "short", 0: "flat", 1: "long" };

const NO_CONTEXT: BarContext = Object.freeze({});

/** The answer of a bar that triggers nothing: shared, so the bar path allocates nothing. Never mutate it. */
const NO_SIGNALS: Signal[] = Object.freeze([]) as unknown as Signal[];

/** Rounds a strength into [0, 1] with four decimals, so signals compare equal across runs. */
export const clampStrength = (value: number) => (Number.isFinite(value) ? Math.round(Math.min(1, Math.max(0, value)) * 1e4) / 1e4 : 1);

/**
 * Common machinery: one state object per symbol, stance-to-position filtering (bias and
 * `allow_short`), signal emission on position changes, and state snapshots. A subclass
 * defines the per-symbol state (indicators built in `createSymbolState`) and the rule
 * (`evaluate`), which returns a new stance or nothing to keep the current one.
 */
export abstract class BaseStrategy<S extends SymbolState> implements Strategy {
  private symbols = new Map<string, S>();
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  readonly settleBars: number;

  /** `settleBars` defaults to `warmupBars` (indicators over a moving window), and is never below it. */
  constructor(
    readonly id: string,
    parameters: Record<string, ParameterValue>,
    readonly warmupBars: number,
    settleBars = warmupBars,
  ) {
    this.parameters = Object.freeze({ ...parameters });
    this.settleBars = Math.max(warmupBars, settleBars);
  }

  /** A fresh per-symbol state, indicators included. */
  protected abstract createSymbolState(): S;

  /** Updates the indicators with `bar` and returns a new stance, or nothing to keep the current one. */
  protected abstract evaluate(state: S, bar: Bar, context: BarContext): Decision | undefined;

  /** The base state fields, for subclasses' `createSymbolState`. */
  protected baseState(): SymbolState {
    return { bars: 0, stance: 0, position: 0, reason: "", strength: 0 };
  }

  private get allowShort(): boolean {
    return this.parameters.allow_short === true;
  }

  private stateOf(symbol: string): S {
    let state = this.symbols.get(symbol);
    if (!state) {
      state = this.createSymbolState();
      this.symbols.set(symbol, state);
    }
    return state;
  }

  onBar(bar: Bar, context: BarContext = NO_CONTEXT): Signal[] {
    const state = this.stateOf(bar.symbol);
    state.bars += 1;
    const signal = this.settle(state, this.evaluate(state, bar, context), bar.symbol, bar.timestamp, context);
    return signal === null ? NO_SIGNALS : [signal];
  }

  onColumns(columns: BarColumns, from: number, to: number, out: IndexedSignal[]): void {
    const state = this.stateOf(columns.symbol);
    this.evaluateColumns(state, columns, from, to, (index, decision) => {
      const signal = this.settle(state, decision, columns.symbol, columns.timestamp[index] * columns.msPerUnit, NO_CONTEXT);
      if (signal !== null) out.push({ index, signal });
    });
  }

  /**
   * The batch form of `evaluate`: counts and evaluates bars `from` to `to - 1` in order, calling
   * `decided` with each bar's decision. This default builds one scratch bar and calls `evaluate`;
   * a strategy may override it with a tighter loop that decides exactly the same.
   */
  protected evaluateColumns(state: S, columns: BarColumns, from: number, to: number, decided: (index: number, decision: Decision) => void): void {
    const bar: Bar = { symbol: columns.symbol, timestamp: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 };
    const unit = columns.msPerUnit;
    for (let i = from; i < to; i++) {
      state.bars += 1;
      const decision = this.evaluate(state, barAt(bar, columns, i, unit), NO_CONTEXT);
      if (decision) decided(i, decision);
    }
  }

  /** Applies a bar's decision to the stance and the held direction; the signal when the held direction changes. */
  private settle(state: S, decision: Decision | undefined, symbol: string, timestamp: number, context: BarContext): Signal | null {
    if (decision && decision.stance !== state.stance) {
      state.stance = decision.stance;
      state.reason = decision.reason;
      state.strength = clampStrength(decision.strength ?? 1);
    }
    let target: Stance = state.stance;
    let reason = state.reason;
    if (target === -1 && !this.allowShort) target = 0;
    if (context.bias && target !== 0 && BIAS_OF[target] !== context.bias) {
      target = 0;
      reason = `director bias is ${context.bias}`;
    }
    if (target === state.position) return null;
    const previous = state.position;
    state.position = target;
    return {
      strategy_id: this.id,
      symbol,
      timestamp,
      side: target > previous ? "buy" : "sell",
      target_weight: target,
      strength: target === 0 ? 1 : state.strength,
      reason,
    };
  }

  bias(symbol: string): Bias {
    return BIAS_OF[this.symbols.get(symbol)?.stance ?? 0];
  }

  inspect(symbol: string): StrategyInspection {
    const state = this.symbols.get(symbol);
    const indicators: Record<string, number | null> = {};
    for (const [name, value] of Object.entries(state?.indicators ?? {})) indicators[name] = Number.isFinite(value) ? value : null;
    return { stance: state?.stance ?? 0, position: state?.position ?? 0, reason: state?.reason ?? "", strength: state?.strength ?? 0, indicators };
  }

  saveState(): StrategyState {
    return {
      strategy_id: this.id,
      version: 1,
      parameters: { ...this.parameters },
      symbols: Object.fromEntries([...this.symbols].map(([symbol, state]) => [symbol, capture(state)])),
    };
  }

  restoreState(state: StrategyState): void {
    if (state.strategy_id !== this.id) {
      throw badRequest("STRATEGY_STATE_MISMATCH", `state belongs to strategy '${state.strategy_id}', not '${this.id}'`);
    }
    if (state.version !== 1) {
      throw badRequest("STRATEGY_STATE_MISMATCH", `state version ${String(state.version)} is not supported`);
    }
    const differing = Object.keys(this.parameters).filter((key) => JSON.stringify(state.parameters?.[key]) !== JSON.stringify(this.parameters[key]));
    if (differing.length > 0) {
      throw badRequest(
        "STRATEGY_STATE_MISMATCH",
        `state was saved with different parameters (${differing.join(", ")}); create the strategy with the saved parameters`,
      );
    }
    const symbols = new Map<string, S>();
    for (const [symbol, saved] of Object.entries(state.symbols)) {
      const fresh = this.createSymbolState();
      restoreInto(fresh, saved);
      symbols.set(symbol, fresh);
    }
    this.symbols = symbols;
  }
}
