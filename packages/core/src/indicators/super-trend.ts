import { Atr } from "./atr";
import { MULTIPLIER_BOUNDS, requireInteger, requireNumber, requireSameLength } from "./parameters";

/** SuperTrend line and trend direction (1 up, −1 down) at one bar. */
export interface SuperTrendValue {
  value: number;
  direction: number;
}

/** SuperTrend line and direction over a whole series. */
export interface SuperTrendSeries {
  value: Float64Array;
  direction: Float64Array;
}

const checkParameters = (period: number, multiplier: number) => {
  requireInteger("supertrend", "period", period);
  requireNumber("supertrend", "multiplier", multiplier, MULTIPLIER_BOUNDS);
};

/**
 * SuperTrend state shared by both forms, following TradingView's built-in ta.supertrend with
 * this library's ATR (TA-Lib seed, so the first value is at bar `period`):
 * - basic bands hl2 ± multiplier · ATR;
 * - the lower band only rises while the previous close stays above the previous lower band,
 *   the upper band only falls while the previous close stays below the previous upper band;
 * - a down trend turns up when the close ends above the upper band, an up trend turns down
 *   when it ends below the lower band; the line is the lower band in an up trend, the upper
 *   band in a down trend. The first bar starts down, as TradingView's does, unless its close is
 *   already above the upper band (TradingView reports that bar down and flips on the next one),
 *   so the line is always on the losing side of the close.
 * Direction is 1 for up and −1 for down; TradingView's ta.supertrend uses the opposite signs.
 */
class SuperTrendState {
  value = NaN;
  direction = NaN;
  private readonly range: Atr;
  private upper = 0;
  private lower = 0;
  private previousClose = 0;

  constructor(
    period: number,
    private readonly multiplier: number,
  ) {
    this.range = new Atr(period);
  }

  get isReady(): boolean {
    return this.range.isReady;
  }

  next(high: number, low: number, close: number): void {
    const wasReady = this.range.isReady;
    const averageRange = this.range.update(high, low, close);
    const previousClose = this.previousClose;
    this.previousClose = close;
    if (!this.range.isReady) return;
    const middle = (high + low) / 2;
    const width = this.multiplier * averageRange;
    let upper = middle + width;
    let lower = middle - width;
    if (!wasReady) {
      // No trend yet: start down, unless the close already stands above the upper band.
      this.direction = close > upper ? 1 : -1;
    } else {
      if (!(lower > this.lower || previousClose < this.lower)) lower = this.lower;
      if (!(upper < this.upper || previousClose > this.upper)) upper = this.upper;
      if (this.direction === -1) this.direction = close > upper ? 1 : -1;
      else this.direction = close < lower ? -1 : 1;
    }
    this.upper = upper;
    this.lower = lower;
    this.value = this.direction === 1 ? lower : upper;
  }

  reset(): void {
    this.value = NaN;
    this.direction = NaN;
    this.range.reset();
    this.upper = 0;
    this.lower = 0;
    this.previousClose = 0;
  }
}

/** SuperTrend: an ATR trailing stop that flips sides when the close crosses it. */
export class SuperTrend {
  readonly period: number;
  readonly multiplier: number;
  private readonly state: SuperTrendState;

  constructor(period = 10, multiplier = 3) {
    checkParameters(period, multiplier);
    this.period = period;
    this.multiplier = multiplier;
    this.state = new SuperTrendState(period, multiplier);
  }

  /** True once the ATR is defined (`period + 1` bars). */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a bar; returns the line and direction, NaN during the first `period` bars. */
  update(high: number, low: number, close: number): SuperTrendValue {
    const state = this.state;
    state.next(high, low, close);
    return { value: state.value, direction: state.direction };
  }

  /** Forgets every bar. */
  reset(): void {
    this.state.reset();
  }
}

/** SuperTrend of a high, low, close series; NaN for the first `period` bars. */
export const superTrend = (high: Float64Array, low: Float64Array, close: Float64Array, period = 10, multiplier = 3): SuperTrendSeries => {
  checkParameters(period, multiplier);
  const length = requireSameLength("supertrend", high, low, close);
  const value = new Float64Array(length);
  const direction = new Float64Array(length);
  const state = new SuperTrendState(period, multiplier);
  for (let i = 0; i < length; i++) {
    state.next(high[i], low[i], close[i]);
    value[i] = state.value;
    direction[i] = state.direction;
  }
  return { value, direction };
};
