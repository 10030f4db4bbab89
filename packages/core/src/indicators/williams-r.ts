import { requireInteger, requireSameLength } from "./parameters";
import { RollingMax, RollingMin, rollingMaxSeries, rollingMinSeries } from "./rolling-extreme";

/**
 * Williams %R (TA-Lib WILLR): −100 · (highest high − close) / (highest high − lowest low)
 * over the last `period` bars, in [−100, 0]; 0 for a flat window (TA-Lib's choice).
 */
export class WilliamsR {
  readonly period: number;
  private readonly highest: RollingMax;
  private readonly lowest: RollingMin;
  private count = 0;

  constructor(period = 14) {
    this.period = requireInteger("williams_r", "period", period);
    this.highest = new RollingMax(this.period);
    this.lowest = new RollingMin(this.period);
  }

  /** True once `period` bars have been seen. */
  get isReady(): boolean {
    return this.count === this.period;
  }

  /** Adds a bar; returns %R, or NaN before `period` bars. */
  update(high: number, low: number, close: number): number {
    const highest = this.highest.push(high);
    const lowest = this.lowest.push(low);
    if (this.count < this.period && ++this.count < this.period) return NaN;
    // TA-Lib divides (highest − close) by (highest − lowest) · −0.01; both signs flipped gives the
    // same magnitudes without a −0 when the close is the highest high.
    const range = (highest - lowest) * 0.01;
    return range !== 0 ? (close - highest) / range : 0;
  }

  /** Forgets every bar. */
  reset(): void {
    this.highest.reset();
    this.lowest.reset();
    this.count = 0;
  }
}

/** Williams %R of a high, low, close series; NaN for the first `period - 1` bars. */
export const williamsR = (high: Float64Array, low: Float64Array, close: Float64Array, period = 14): Float64Array => {
  requireInteger("williams_r", "period", period);
  const length = requireSameLength("williams_r", high, low, close);
  const lowest = rollingMinSeries(low, period);
  // The highest highs are overwritten in place by %R once read.
  const output = rollingMaxSeries(high, period);
  for (let i = period - 1; i < length; i++) {
    const highest = output[i];
    const range = (highest - lowest[i]) * 0.01;
    output[i] = range !== 0 ? (close[i] - highest) / range : 0;
  }
  output.fill(NaN, 0, Math.min(period - 1, length));
  return output;
};
