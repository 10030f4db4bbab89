import { MULTIPLIER_BOUNDS, outputSeries, requireInteger, requireNumber } from "./parameters";
import type { BandSeries, BandValue } from "./types";

const checkParameters = (period: number, stdDev: number) => {
  requireInteger("bollinger_bands", "period", period);
  requireNumber("bollinger_bands", "std_dev", stdDev, MULTIPLIER_BOUNDS);
};

/**
 * Bollinger state behind the streaming class; `bollingerBands()` repeats its operations over
 * arrays, in the same order, so both forms agree bit for bit. The middle line is the
 * SMA with exactly the Sma class's operations, so it equals `Sma` bit for bit. The population
 * variance (divide by `period`, as TA-Lib BBANDS/STDDEV) comes from a sliding Welford sum of
 * squared deviations, M2 += (x − old)·((x − mean) + (old − previousMean)), which keeps its
 * precision on prices far from zero where Σx² − (Σx)²/n would cancel catastrophically.
 * Sliding sums still carry rounding residue from values that left the window, so a window whose
 * values are all equal (tracked as the run of equal trailing values) has its M2 set to exactly 0:
 * flat prices give bands of width 0, not 2e-7.
 */
class BollingerState {
  upper = NaN;
  middle = NaN;
  lower = NaN;
  private readonly window: Float64Array;
  private head = 0;
  private count = 0;
  private sum = 0;
  private mean = 0;
  private squares = 0;
  private leaving = 0;
  /** How many trailing values are equal to the latest one. */
  private run = 0;
  private last = NaN;

  constructor(
    private readonly period: number,
    private readonly stdDev: number,
  ) {
    this.window = new Float64Array(period);
  }

  get isReady(): boolean {
    return this.count === this.period;
  }

  next(value: number): void {
    const period = this.period;
    let head = this.head;
    this.window[head] = value;
    head = head + 1 === period ? 0 : head + 1;
    this.head = head;
    this.sum += value;
    this.run = value === this.last ? this.run + 1 : 1;
    this.last = value;
    if (this.count < period) {
      const count = ++this.count;
      const mean = this.sum / count;
      if (count > 1) this.squares += (value - this.mean) * (value - mean);
      this.mean = mean;
      if (count < period) return;
    } else {
      const mean = this.sum / period;
      const leaving = this.leaving;
      this.squares += (value - leaving) * (value - mean + (leaving - this.mean));
      this.mean = mean;
    }
    // A flat window's variance is 0 exactly; rounding can also leave M2 a hair below zero.
    if (this.squares < 0 || this.run >= period) this.squares = 0;
    this.leaving = this.window[head];
    this.sum -= this.leaving;
    const width = Math.sqrt(this.squares / period) * this.stdDev;
    this.middle = this.mean;
    this.upper = this.mean + width;
    this.lower = this.mean - width;
  }

  reset(): void {
    this.upper = NaN;
    this.middle = NaN;
    this.lower = NaN;
    this.head = 0;
    this.count = 0;
    this.sum = 0;
    this.mean = 0;
    this.squares = 0;
    this.leaving = 0;
    this.run = 0;
    this.last = NaN;
  }
}

/** Bollinger Bands: SMA ± stdDev population standard deviations (TA-Lib BBANDS with SMA). */
export class BollingerBands {
  readonly period: number;
  readonly stdDev: number;
  private readonly state: BollingerState;

  constructor(period = 20, stdDev = 2) {
    checkParameters(period, stdDev);
    this.period = period;
    this.stdDev = stdDev;
    this.state = new BollingerState(period, stdDev);
  }

  /** True once `period` values have been seen. */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a value; returns the bands, NaN before `period` values. */
  update(value: number): BandValue {
    const state = this.state;
    state.next(value);
    return { upper: state.upper, middle: state.middle, lower: state.lower };
  }

  /** Forgets every value. */
  reset(): void {
    this.state.reset();
  }
}

/** Bollinger Bands of `values`; NaN for the first `period - 1` bars. */
export const bollingerBands = (values: Float64Array, period = 20, stdDev = 2): BandSeries => {
  checkParameters(period, stdDev);
  const length = values.length;
  const upper = outputSeries(length, period - 1);
  const middle = outputSeries(length, period - 1);
  const lower = outputSeries(length, period - 1);
  // The same operations, in the same order, as BollingerState.next.
  let sum = 0;
  let mean = 0;
  let squares = 0;
  let leaving = 0;
  let run = 0;
  for (let i = 0; i < length; i++) {
    const value = values[i];
    sum += value;
    run = i > 0 && value === values[i - 1] ? run + 1 : 1;
    if (i < period) {
      const count = i + 1;
      const average = sum / count;
      if (count > 1) squares += (value - mean) * (value - average);
      mean = average;
      if (count < period) continue;
    } else {
      const average = sum / period;
      squares += (value - leaving) * (value - average + (leaving - mean));
      mean = average;
    }
    if (squares < 0 || run >= period) squares = 0;
    leaving = values[i - period + 1];
    sum -= leaving;
    const width = Math.sqrt(squares / period) * stdDev;
    middle[i] = mean;
    upper[i] = mean + width;
    lower[i] = mean - width;
  }
  return { upper, middle, lower };
};
