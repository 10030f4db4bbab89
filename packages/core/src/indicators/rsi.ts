import { outputSeries, requireInteger } from "./parameters";

/**
 * Relative strength index (TA-Lib RSI, Wilder smoothing). The first averages are plain means of
 * the first `period` gains and losses; then avg = (avg · (period − 1) + move) / period.
 * RSI = 100 · avgGain / (avgGain + avgLoss), 0 when both averages are 0 (TA-Lib's choice).
 */
export class Rsi {
  readonly period: number;
  private count = 0;
  private previous = 0;
  private gain = 0;
  private loss = 0;

  constructor(period = 14) {
    this.period = requireInteger("rsi", "period", period);
  }

  /** True once `period + 1` values (so `period` changes) have been seen. */
  get isReady(): boolean {
    return this.count > this.period;
  }

  /** Adds a value; returns RSI in [0, 100], or NaN during the first `period` values. */
  update(value: number): number {
    const period = this.period;
    const change = value - this.previous;
    this.previous = value;
    if (this.count > period) {
      this.loss *= period - 1;
      this.gain *= period - 1;
      if (change < 0) this.loss -= change;
      else this.gain += change;
      this.loss /= period;
      this.gain /= period;
    } else {
      if (this.count++ === 0) return NaN;
      if (change < 0) this.loss -= change;
      else this.gain += change;
      if (this.count <= period) return NaN;
      this.loss /= period;
      this.gain /= period;
    }
    const total = this.gain + this.loss;
    return total !== 0 ? 100 * (this.gain / total) : 0;
  }

  /** Forgets every value. */
  reset(): void {
    this.count = 0;
    this.previous = 0;
    this.gain = 0;
    this.loss = 0;
  }
}

/** RSI of `values`; NaN for the first `period` bars. */
export const rsi = (values: Float64Array, period = 14): Float64Array => {
  requireInteger("rsi", "period", period);
  const length = values.length;
  const output = outputSeries(length, period);
  if (length <= period) return output;
  let gain = 0;
  let loss = 0;
  let previous = values[0];
  for (let i = 1; i <= period; i++) {
    const change = values[i] - previous;
    previous = values[i];
    if (change < 0) loss -= change;
    else gain += change;
  }
  loss /= period;
  gain /= period;
  let total = gain + loss;
  output[period] = total !== 0 ? 100 * (gain / total) : 0;
  for (let i = period + 1; i < length; i++) {
    const change = values[i] - previous;
    previous = values[i];
    loss *= period - 1;
    gain *= period - 1;
    if (change < 0) loss -= change;
    else gain += change;
    loss /= period;
    gain /= period;
    total = gain + loss;
    output[i] = total !== 0 ? 100 * (gain / total) : 0;
  }
  return output;
};
