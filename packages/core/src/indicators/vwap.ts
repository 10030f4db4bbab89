import { OPTIONAL_PERIOD_BOUNDS, requireInteger, requireSameLength } from "./parameters";

/**
 * Volume-weighted average price of the typical price (high + low + close) / 3. With period 0
 * (default) it is anchored: cumulative since the first bar or the last `reset()` (call it at
 * each session open for a session VWAP). With period n > 0 it is the VWAP of the last n bars.
 * NaN while the bars counted carry no volume at all (volumes must not be negative); a rolling
 * window's sums are set back to exactly 0 when it holds no volume, so rounding residue never
 * turns into a price.
 */
export class Vwap {
  readonly period: number;
  private readonly priceVolumes: Float64Array;
  private readonly volumes: Float64Array;
  private slot = 0;
  private count = 0;
  private priceVolumeSum = 0;
  private volumeSum = 0;
  private volumeBars = 0;

  constructor(period = 0) {
    this.period = requireInteger("vwap", "period", period, OPTIONAL_PERIOD_BOUNDS);
    this.priceVolumes = new Float64Array(this.period);
    this.volumes = new Float64Array(this.period);
  }

  /** True after the first bar (anchored) or after `period` bars (rolling). */
  get isReady(): boolean {
    return this.count >= Math.max(1, this.period);
  }

  /** Adds a bar; returns the VWAP, NaN before the window is full or while it has no volume. */
  update(high: number, low: number, close: number, volume: number): number {
    const priceVolume = ((high + low + close) / 3) * volume;
    const period = this.period;
    if (period === 0) {
      this.count = 1;
      this.priceVolumeSum += priceVolume;
      this.volumeSum += volume;
      // With no volume yet both sums are 0 and 0 / 0 is the NaN we want; no branch needed.
      return this.priceVolumeSum / this.volumeSum;
    }
    const slot = this.slot;
    if (this.count === period) {
      const leaving = this.volumes[slot];
      if (leaving !== 0) {
        this.volumeBars--;
        this.priceVolumeSum -= this.priceVolumes[slot];
        this.volumeSum -= leaving;
      }
    } else {
      this.count++;
    }
    this.priceVolumes[slot] = priceVolume;
    this.volumes[slot] = volume;
    if (volume !== 0) {
      this.volumeBars++;
      this.priceVolumeSum += priceVolume;
      this.volumeSum += volume;
    }
    if (this.volumeBars === 0) {
      this.priceVolumeSum = 0;
      this.volumeSum = 0;
    }
    this.slot = slot + 1 === period ? 0 : slot + 1;
    if (this.count < period || this.volumeSum === 0) return NaN;
    return this.priceVolumeSum / this.volumeSum;
  }

  /** Forgets every bar (starts a new anchored session). */
  reset(): void {
    this.slot = 0;
    this.count = 0;
    this.priceVolumeSum = 0;
    this.volumeSum = 0;
    this.volumeBars = 0;
    this.priceVolumes.fill(0);
    this.volumes.fill(0);
  }
}

/** VWAP of a high, low, close, volume series: anchored at bar 0 (period 0) or rolling over `period` bars. */
export const vwap = (high: Float64Array, low: Float64Array, close: Float64Array, volume: Float64Array, period = 0): Float64Array => {
  requireInteger("vwap", "period", period, OPTIONAL_PERIOD_BOUNDS);
  const length = requireSameLength("vwap", high, low, close, volume);
  if (period > 0) {
    const output = new Float64Array(length);
    const indicator = new Vwap(period);
    for (let i = 0; i < length; i++) output[i] = indicator.update(high[i], low[i], close[i], volume[i]);
    return output;
  }
  const output = new Float64Array(length);
  let priceVolumeSum = 0;
  let volumeSum = 0;
  for (let i = 0; i < length; i++) {
    const barVolume = volume[i];
    priceVolumeSum += ((high[i] + low[i] + close[i]) / 3) * barVolume;
    volumeSum += barVolume;
    output[i] = priceVolumeSum / volumeSum;
  }
  return output;
};
