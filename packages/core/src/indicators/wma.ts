import { outputSeries, requireInteger } from "./parameters";

/**
 * Linearly weighted moving average (TA-Lib WMA): weights 1..period, newest heaviest. Kept in
 * O(1) per bar with TA-Lib's two running sums: the plain window sum and the weighted sum, from
 * which one plain sum is subtracted each bar to age every weight by one.
 */
export class Wma {
  readonly period: number;
  private readonly divider: number;
  private readonly window: Float64Array;
  private head = 0;
  private count = 0;
  private plainSum = 0;
  private weightedSum = 0;
  private trailing = 0;

  constructor(period = 20) {
    this.period = requireInteger("wma", "period", period);
    this.divider = (this.period * (this.period + 1)) / 2;
    this.window = new Float64Array(this.period);
  }

  /** True once `period` values have been seen. */
  get isReady(): boolean {
    return this.count === this.period;
  }

  /** Adds a value; returns the WMA, or NaN before `period` values. */
  update(value: number): number {
    const period = this.period;
    let head = this.head;
    this.window[head] = value;
    head = head + 1 === period ? 0 : head + 1;
    this.head = head;
    if (this.count < period - 1) {
      this.plainSum += value;
      this.weightedSum += value * ++this.count;
      return NaN;
    }
    this.count = period;
    this.plainSum += value;
    this.plainSum -= this.trailing;
    this.weightedSum += value * period;
    this.trailing = this.window[head];
    const average = this.weightedSum / this.divider;
    this.weightedSum -= this.plainSum;
    return average;
  }

  /** Forgets every value. */
  reset(): void {
    this.head = 0;
    this.count = 0;
    this.plainSum = 0;
    this.weightedSum = 0;
    this.trailing = 0;
  }
}

/** Weighted moving average of `values`; NaN for the first `period - 1` bars. */
export const wma = (values: Float64Array, period = 20): Float64Array => {
  requireInteger("wma", "period", period);
  const length = values.length;
  const output = outputSeries(length, period - 1);
  const divider = (period * (period + 1)) / 2;
  let plainSum = 0;
  let weightedSum = 0;
  const warmUp = Math.min(period - 1, length);
  for (let i = 0; i < warmUp; i++) {
    plainSum += values[i];
    weightedSum += values[i] * (i + 1);
  }
  let trailing = 0;
  for (let i = period - 1; i < length; i++) {
    const value = values[i];
    plainSum += value;
    plainSum -= trailing;
    weightedSum += value * period;
    trailing = values[i - period + 1];
    output[i] = weightedSum / divider;
    weightedSum -= plainSum;
  }
  return output;
};
