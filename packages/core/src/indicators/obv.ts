import { requireSameLength } from "./parameters";

/**
 * On-balance volume (TA-Lib OBV): starts at the first bar's volume, then adds the volume of an
 * up-close bar and subtracts that of a down-close bar; an unchanged close leaves it alone.
 */
export class Obv {
  private count = 0;
  private previousClose = 0;
  private total = 0;

  /** True after the first bar. */
  get isReady(): boolean {
    return this.count > 0;
  }

  /** Adds a bar; returns the running OBV (defined from the first bar). */
  update(close: number, volume: number): number {
    const previousClose = this.previousClose;
    this.previousClose = close;
    if (this.count === 0) {
      this.count = 1;
      this.total = volume;
      return volume;
    }
    // ±volume or 0 · volume, without a branch that up and down closes would keep mispredicting.
    this.total += volume * (Number(close > previousClose) - Number(close < previousClose));
    return this.total;
  }

  /** Forgets every bar. */
  reset(): void {
    this.count = 0;
    this.previousClose = 0;
    this.total = 0;
  }
}

/** On-balance volume of a close and volume series; defined from the first bar. */
export const obv = (close: Float64Array, volume: Float64Array): Float64Array => {
  const length = requireSameLength("obv", close, volume);
  const output = new Float64Array(length);
  if (length === 0) return output;
  let total = volume[0];
  let previousClose = close[0];
  output[0] = total;
  for (let i = 1; i < length; i++) {
    const value = close[i];
    // Same branch-free step as Obv.update.
    total += volume[i] * (Number(value > previousClose) - Number(value < previousClose));
    previousClose = value;
    output[i] = total;
  }
  return output;
};
