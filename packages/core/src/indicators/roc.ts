import { outputSeries, requireInteger } from "./parameters";

/**
 * Rate of change in percent (TA-Lib ROC): ((value / value `period` bars ago) − 1) · 100,
 * 0 when the earlier value is 0 (TA-Lib's choice).
 */
export class Roc {
  readonly period: number;
  private readonly window: Float64Array;
  private head = 0;
  private count = 0;

  constructor(period = 10) {
    this.period = requireInteger("roc", "period", period);
    this.window = new Float64Array(this.period);
  }

  /** True once `period + 1` values have been seen. */
  get isReady(): boolean {
    return this.count > this.period;
  }

  /** Adds a value; returns ROC in percent, or NaN during the first `period` values. */
  update(value: number): number {
    const head = this.head;
    const earlier = this.window[head];
    this.window[head] = value;
    this.head = head + 1 === this.period ? 0 : head + 1;
    if (this.count <= this.period && this.count++ < this.period) return NaN;
    return earlier !== 0 ? (value / earlier - 1) * 100 : 0;
  }

  /** Forgets every value. */
  reset(): void {
    this.head = 0;
    this.count = 0;
  }
}

/** Rate of change of `values` in percent; NaN for the first `period` bars. */
export const roc = (values: Float64Array, period = 10): Float64Array => {
  requireInteger("roc", "period", period);
  const length = values.length;
  const output = outputSeries(length, period);
  for (let i = period; i < length; i++) {
    const earlier = values[i - period];
    output[i] = earlier !== 0 ? (values[i] / earlier - 1) * 100 : 0;
  }
  return output;
};
