import { outputSeries, requireInteger } from "./parameters";

/**
 * Simple moving average (TA-Lib SMA): a running sum that adds the new value, divides, then
 * drops the value that leaves the window next, in exactly that order in both forms.
 */
export class Sma {
  readonly period: number;
  private readonly window: Float64Array;
  private head = 0;
  private count = 0;
  private sum = 0;

  constructor(period = 20) {
    this.period = requireInteger("sma", "period", period);
    this.window = new Float64Array(this.period);
  }

  /** True once `period` values have been seen. */
  get isReady(): boolean {
    return this.count === this.period;
  }

  /** Adds a value; returns the average of the last `period` values, or NaN before that many. */
  update(value: number): number {
    const period = this.period;
    let head = this.head;
    this.window[head] = value;
    head = head + 1 === period ? 0 : head + 1;
    this.head = head;
    this.sum += value;
    if (this.count < period && ++this.count < period) return NaN;
    const average = this.sum / period;
    this.sum -= this.window[head];
    return average;
  }

  /** Forgets every value. */
  reset(): void {
    this.head = 0;
    this.count = 0;
    this.sum = 0;
  }
}

/** Simple moving average of `values`; NaN for the first `period - 1` bars. */
export const sma = (values: Float64Array, period = 20): Float64Array => {
  requireInteger("sma", "period", period);
  const length = values.length;
  const output = outputSeries(length, period - 1);
  let sum = 0;
  const warmUp = Math.min(period - 1, length);
  for (let i = 0; i < warmUp; i++) sum += values[i];
  for (let i = period - 1; i < length; i++) {
    sum += values[i];
    output[i] = sum / period;
    sum -= values[i - period + 1];
  }
  return output;
};
