import { outputSeries, requireInteger, requireSameLength } from "./parameters";

/** True range against the previous close: max(high − low, |high − prev|, |low − prev|). */
export const trueRange = (high: number, low: number, previousClose: number): number => {
  let greatest = high - low;
  const fromHigh = Math.abs(previousClose - high);
  if (fromHigh > greatest) greatest = fromHigh;
  const fromLow = Math.abs(previousClose - low);
  if (fromLow > greatest) greatest = fromLow;
  return greatest;
};

/**
 * Average true range (TA-Lib ATR, Wilder smoothing). The first bar has no previous close and
 * yields no true range; the first ATR, at bar `period`, is the mean of true ranges 1..period;
 * then atr = (atr · (period − 1) + tr) / period.
 */
export class Atr {
  readonly period: number;
  private count = 0;
  private previousClose = 0;
  private value = 0;

  constructor(period = 14) {
    this.period = requireInteger("atr", "period", period);
  }

  /** True once `period + 1` bars have been seen. */
  get isReady(): boolean {
    return this.count > this.period;
  }

  /** Adds a bar; returns the ATR, or NaN during the first `period` bars. */
  update(high: number, low: number, close: number): number {
    const period = this.period;
    const count = this.count;
    if (count === 0) {
      this.count = 1;
      this.previousClose = close;
      return NaN;
    }
    const range = trueRange(high, low, this.previousClose);
    this.previousClose = close;
    if (count > period) {
      this.value *= period - 1;
      this.value += range;
      this.value /= period;
      return this.value;
    }
    this.value += range;
    this.count = count + 1;
    if (count < period) return NaN;
    this.value /= period;
    return this.value;
  }

  /** Forgets every bar. */
  reset(): void {
    this.count = 0;
    this.previousClose = 0;
    this.value = 0;
  }
}

/** Average true range of a high, low, close series; NaN for the first `period` bars. */
export const atr = (high: Float64Array, low: Float64Array, close: Float64Array, period = 14): Float64Array => {
  requireInteger("atr", "period", period);
  const length = requireSameLength("atr", high, low, close);
  const output = outputSeries(length, period);
  if (length <= period) return output;
  let value = 0;
  for (let i = 1; i <= period; i++) value += trueRange(high[i], low[i], close[i - 1]);
  value /= period;
  output[period] = value;
  for (let i = period + 1; i < length; i++) {
    value *= period - 1;
    value += trueRange(high[i], low[i], close[i - 1]);
    value /= period;
    output[i] = value;
  }
  return output;
};
