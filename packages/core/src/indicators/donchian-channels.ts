import { requireInteger, requireSameLength } from "./parameters";
import { RollingMax, RollingMin, rollingMaxSeries, rollingMinSeries } from "./rolling-extreme";
import type { BandSeries, BandValue } from "./types";

/**
 * Donchian state behind the streaming class (the batch form takes the same exact extremes with
 * van Herk / Gil-Werman): upper = highest high and lower = lowest low of the last
 * `period` bars including the current one, middle = (upper + lower) / 2. A breakout rule should
 * compare today's close with yesterday's channel, since today's channel already contains today.
 */
class DonchianState {
  upper = NaN;
  middle = NaN;
  lower = NaN;
  private readonly highest: RollingMax;
  private readonly lowest: RollingMin;
  private count = 0;

  constructor(private readonly period: number) {
    this.highest = new RollingMax(period);
    this.lowest = new RollingMin(period);
  }

  get isReady(): boolean {
    return this.count === this.period;
  }

  next(high: number, low: number): void {
    const highest = this.highest.push(high);
    const lowest = this.lowest.push(low);
    if (this.count < this.period && ++this.count < this.period) return;
    this.upper = highest;
    this.lower = lowest;
    this.middle = (highest + lowest) / 2;
  }

  reset(): void {
    this.upper = NaN;
    this.middle = NaN;
    this.lower = NaN;
    this.highest.reset();
    this.lowest.reset();
    this.count = 0;
  }
}

/** Donchian Channels: highest high, lowest low and their midpoint over `period` bars. */
export class DonchianChannels {
  readonly period: number;
  private readonly state: DonchianState;

  constructor(period = 20) {
    this.period = requireInteger("donchian_channels", "period", period);
    this.state = new DonchianState(period);
  }

  /** True once `period` bars have been seen. */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a bar; returns the channel, NaN before `period` bars. */
  update(high: number, low: number): BandValue {
    const state = this.state;
    state.next(high, low);
    return { upper: state.upper, middle: state.middle, lower: state.lower };
  }

  /** Forgets every bar. */
  reset(): void {
    this.state.reset();
  }
}

/** Donchian Channels of a high, low series; NaN for the first `period - 1` bars. */
export const donchianChannels = (high: Float64Array, low: Float64Array, period = 20): BandSeries => {
  requireInteger("donchian_channels", "period", period);
  const length = requireSameLength("donchian_channels", high, low);
  const upper = rollingMaxSeries(high, period);
  const lower = rollingMinSeries(low, period);
  const middle = new Float64Array(length);
  for (let i = period - 1; i < length; i++) middle[i] = (upper[i] + lower[i]) / 2;
  const warmUp = Math.min(period - 1, length);
  upper.fill(NaN, 0, warmUp);
  middle.fill(NaN, 0, warmUp);
  lower.fill(NaN, 0, warmUp);
  return { upper, middle, lower };
};
