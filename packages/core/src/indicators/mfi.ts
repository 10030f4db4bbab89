import { requireInteger, requireSameLength } from "./parameters";

/**
 * Money flow index (TA-Lib MFI): typical price tp = (high + low + close) / 3, raw flow tp · volume,
 * counted positive when tp rose from the previous bar, negative when it fell, neither when equal;
 * MFI = 100 · positive / (positive + negative) over the last `period` flows.
 *
 * Differences from TA-Lib, both for windows TA-Lib answers with rounding noise or 0:
 * the window sums are reset to exactly 0 when no flow of that side remains (a running sum would
 * keep a residue), and MFI is 0 only when the window has no flow at all, where TA-Lib returns 0
 * whenever the total flow is below 1.0 (which silently zeroes cheap, thinly traded instruments).
 */
export class Mfi {
  readonly period: number;
  private readonly positive: Float64Array;
  private readonly negative: Float64Array;
  private slot = 0;
  private count = 0;
  private previousTypical = 0;
  private positiveSum = 0;
  private negativeSum = 0;
  private positiveCount = 0;
  private negativeCount = 0;

  constructor(period = 14) {
    this.period = requireInteger("mfi", "period", period);
    this.positive = new Float64Array(this.period);
    this.negative = new Float64Array(this.period);
  }

  /** True once `period + 1` bars have been seen. */
  get isReady(): boolean {
    return this.count > this.period;
  }

  /** Adds a bar; returns MFI in [0, 100], or NaN during the first `period` bars. */
  update(high: number, low: number, close: number, volume: number): number {
    const period = this.period;
    const typical = (high + low + close) / 3;
    const bar = this.count;
    if (bar === 0) {
      this.count = 1;
      this.previousTypical = typical;
      return NaN;
    }
    const slot = this.slot;
    if (bar > period) {
      const leavingPositive = this.positive[slot];
      const leavingNegative = this.negative[slot];
      if (leavingPositive !== 0) {
        this.positiveSum = --this.positiveCount === 0 ? 0 : this.positiveSum - leavingPositive;
      }
      if (leavingNegative !== 0) {
        this.negativeSum = --this.negativeCount === 0 ? 0 : this.negativeSum - leavingNegative;
      }
    } else {
      this.count = bar + 1;
    }
    const change = typical - this.previousTypical;
    this.previousTypical = typical;
    const flow = typical * volume;
    let positive = 0;
    let negative = 0;
    if (change < 0) negative = flow;
    else if (change > 0) positive = flow;
    this.positive[slot] = positive;
    this.negative[slot] = negative;
    if (positive !== 0) {
      this.positiveSum += positive;
      this.positiveCount++;
    }
    if (negative !== 0) {
      this.negativeSum += negative;
      this.negativeCount++;
    }
    this.slot = slot + 1 === period ? 0 : slot + 1;
    if (bar < period) return NaN;
    const total = this.positiveSum + this.negativeSum;
    return total !== 0 ? 100 * (this.positiveSum / total) : 0;
  }

  /** Forgets every bar. */
  reset(): void {
    this.slot = 0;
    this.count = 0;
    this.previousTypical = 0;
    this.positiveSum = 0;
    this.negativeSum = 0;
    this.positiveCount = 0;
    this.negativeCount = 0;
    this.positive.fill(0);
    this.negative.fill(0);
  }
}

/** MFI of a high, low, close, volume series; NaN for the first `period` bars. */
export const mfi = (high: Float64Array, low: Float64Array, close: Float64Array, volume: Float64Array, period = 14): Float64Array => {
  requireInteger("mfi", "period", period);
  const length = requireSameLength("mfi", high, low, close, volume);
  const output = new Float64Array(length);
  const indicator = new Mfi(period);
  for (let i = 0; i < length; i++) output[i] = indicator.update(high[i], low[i], close[i], volume[i]);
  return output;
};
