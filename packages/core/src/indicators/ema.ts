import { outputSeries, requireInteger } from "./parameters";

/**
 * Exponential moving average (TA-Lib EMA): k = 2 / (period + 1), seeded with the SMA of the
 * first `period` values, then ema += (value − ema) · k written as TA-Lib writes it.
 */
export class Ema {
  readonly period: number;
  private readonly smoothing: number;
  private count = 0;
  private sum = 0;
  private value = NaN;

  constructor(period = 20) {
    this.period = requireInteger("ema", "period", period);
    this.smoothing = 2 / (this.period + 1);
  }

  /** True once `period` values have been seen. */
  get isReady(): boolean {
    return this.count === this.period;
  }

  /** Adds a value; returns the EMA, or NaN before `period` values. */
  update(value: number): number {
    if (this.count === this.period) {
      this.value = (value - this.value) * this.smoothing + this.value;
      return this.value;
    }
    this.sum += value;
    if (++this.count < this.period) return NaN;
    this.value = this.sum / this.period;
    return this.value;
  }

  /** Forgets every value. */
  reset(): void {
    this.count = 0;
    this.sum = 0;
    this.value = NaN;
  }
}

/** Exponential moving average of `values`; NaN for the first `period - 1` bars. */
export const ema = (values: Float64Array, period = 20): Float64Array => {
  requireInteger("ema", "period", period);
  const length = values.length;
  const output = outputSeries(length, period - 1);
  if (length < period) return output;
  const smoothing = 2 / (period + 1);
  let sum = 0;
  for (let i = 0; i < period; i++) sum += values[i];
  let value = sum / period;
  output[period - 1] = value;
  for (let i = period; i < length; i++) {
    value = (values[i] - value) * smoothing + value;
    output[i] = value;
  }
  return output;
};
