import { outputSeries, requireInteger, requireLess } from "./parameters";

/** MACD line, signal line and histogram at one bar. */
export interface MacdValue {
  macd: number;
  signal: number;
  histogram: number;
}

/** MACD line, signal line and histogram over a whole series. */
export interface MacdSeries {
  macd: Float64Array;
  signal: Float64Array;
  histogram: Float64Array;
}

const checkPeriods = (fastPeriod: number, slowPeriod: number, signalPeriod: number) => {
  requireInteger("macd", "fast_period", fastPeriod);
  requireInteger("macd", "slow_period", slowPeriod);
  requireInteger("macd", "signal_period", signalPeriod);
  requireLess("macd", "fast_period", fastPeriod, "slow_period", slowPeriod);
};

/**
 * The MACD state machine behind the streaming class; `macd()` performs the same floating-point
 * operations in the same order over arrays, so both forms agree bit for bit.
 * Follows TA-Lib MACD: both EMAs start at bar slowPeriod − 1, the slow one seeded with the SMA
 * of the first slowPeriod values and the fast one with the SMA of the fastPeriod values ending
 * there; the signal EMA is seeded with the SMA of the first signalPeriod MACD values, and all
 * three outputs start together at bar slowPeriod + signalPeriod − 2.
 */
class MacdState {
  macd = NaN;
  signal = NaN;
  histogram = NaN;
  private readonly fastSmoothing: number;
  private readonly slowSmoothing: number;
  private readonly signalSmoothing: number;
  private count = 0;
  private fastSum = 0;
  private slowSum = 0;
  private fast = 0;
  private slow = 0;
  private signalCount = 0;
  private signalSum = 0;

  constructor(
    private readonly fastPeriod: number,
    private readonly slowPeriod: number,
    private readonly signalPeriod: number,
  ) {
    this.fastSmoothing = 2 / (fastPeriod + 1);
    this.slowSmoothing = 2 / (slowPeriod + 1);
    this.signalSmoothing = 2 / (signalPeriod + 1);
  }

  get isReady(): boolean {
    return this.signalCount === this.signalPeriod;
  }

  next(value: number): void {
    const slowPeriod = this.slowPeriod;
    if (this.count < slowPeriod) {
      this.slowSum += value;
      if (this.count >= slowPeriod - this.fastPeriod) this.fastSum += value;
      if (++this.count < slowPeriod) return;
      this.slow = this.slowSum / slowPeriod;
      this.fast = this.fastSum / this.fastPeriod;
    } else {
      this.fast = (value - this.fast) * this.fastSmoothing + this.fast;
      this.slow = (value - this.slow) * this.slowSmoothing + this.slow;
    }
    const line = this.fast - this.slow;
    if (this.signalCount === this.signalPeriod) {
      this.signal = (line - this.signal) * this.signalSmoothing + this.signal;
    } else {
      this.signalSum += line;
      if (++this.signalCount < this.signalPeriod) return;
      this.signal = this.signalSum / this.signalPeriod;
    }
    this.macd = line;
    this.histogram = line - this.signal;
  }

  reset(): void {
    this.macd = NaN;
    this.signal = NaN;
    this.histogram = NaN;
    this.count = 0;
    this.fastSum = 0;
    this.slowSum = 0;
    this.fast = 0;
    this.slow = 0;
    this.signalCount = 0;
    this.signalSum = 0;
  }
}

/** Moving average convergence/divergence with TA-Lib's seeding and warm-up. */
export class Macd {
  readonly fastPeriod: number;
  readonly slowPeriod: number;
  readonly signalPeriod: number;
  private readonly state: MacdState;

  constructor(fastPeriod = 12, slowPeriod = 26, signalPeriod = 9) {
    checkPeriods(fastPeriod, slowPeriod, signalPeriod);
    this.fastPeriod = fastPeriod;
    this.slowPeriod = slowPeriod;
    this.signalPeriod = signalPeriod;
    this.state = new MacdState(fastPeriod, slowPeriod, signalPeriod);
  }

  /** True once slowPeriod + signalPeriod − 1 values have been seen. */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a value; returns MACD, signal and histogram, all NaN until the signal is seeded. */
  update(value: number): MacdValue {
    const state = this.state;
    state.next(value);
    return { macd: state.macd, signal: state.signal, histogram: state.histogram };
  }

  /** Forgets every value. */
  reset(): void {
    this.state.reset();
  }
}

/** MACD of `values`; every output NaN for the first slowPeriod + signalPeriod − 2 bars. */
export const macd = (values: Float64Array, fastPeriod = 12, slowPeriod = 26, signalPeriod = 9): MacdSeries => {
  checkPeriods(fastPeriod, slowPeriod, signalPeriod);
  const length = values.length;
  const start = slowPeriod + signalPeriod - 2;
  const line = outputSeries(length, start);
  const signal = outputSeries(length, start);
  const histogram = outputSeries(length, start);
  if (length < slowPeriod) return { macd: line, signal, histogram };
  // The same operations, in the same order, as MacdState.next.
  let slowSum = 0;
  let fastSum = 0;
  for (let i = 0; i < slowPeriod; i++) {
    slowSum += values[i];
    if (i >= slowPeriod - fastPeriod) fastSum += values[i];
  }
  let slow = slowSum / slowPeriod;
  let fast = fastSum / fastPeriod;
  const fastSmoothing = 2 / (fastPeriod + 1);
  const slowSmoothing = 2 / (slowPeriod + 1);
  const signalSmoothing = 2 / (signalPeriod + 1);
  let signalSum = 0;
  let signalValue = 0;
  for (let i = slowPeriod - 1; i < length; i++) {
    if (i >= slowPeriod) {
      const value = values[i];
      fast = (value - fast) * fastSmoothing + fast;
      slow = (value - slow) * slowSmoothing + slow;
    }
    const difference = fast - slow;
    if (i > start) {
      signalValue = (difference - signalValue) * signalSmoothing + signalValue;
    } else {
      signalSum += difference;
      if (i < start) continue;
      signalValue = signalSum / signalPeriod;
    }
    line[i] = difference;
    signal[i] = signalValue;
    histogram[i] = difference - signalValue;
  }
  return { macd: line, signal, histogram };
};
