import { Atr, atr } from "./atr";
import { Ema, ema } from "./ema";
import { MULTIPLIER_BOUNDS, outputSeries, requireInteger, requireNumber, requireSameLength } from "./parameters";
import type { BandSeries, BandValue } from "./types";

const checkParameters = (period: number, multiplier: number, atrPeriod: number) => {
  requireInteger("keltner_channels", "period", period);
  requireNumber("keltner_channels", "multiplier", multiplier, MULTIPLIER_BOUNDS);
  requireInteger("keltner_channels", "atr_period", atrPeriod);
};

/**
 * Keltner Channels, the modern (Raschke / StockCharts) form: middle = EMA(close, period),
 * bands = middle ± multiplier · ATR(atrPeriod), with this library's EMA and ATR (TA-Lib seeds).
 * All three lines start together at bar max(period − 1, atrPeriod).
 */
export class KeltnerChannels {
  readonly period: number;
  readonly multiplier: number;
  readonly atrPeriod: number;
  private readonly average: Ema;
  private readonly range: Atr;

  constructor(period = 20, multiplier = 2, atrPeriod = 10) {
    checkParameters(period, multiplier, atrPeriod);
    this.period = period;
    this.multiplier = multiplier;
    this.atrPeriod = atrPeriod;
    this.average = new Ema(period);
    this.range = new Atr(atrPeriod);
  }

  /** True once both the EMA and the ATR are defined. */
  get isReady(): boolean {
    return this.average.isReady && this.range.isReady;
  }

  /** Adds a bar; returns the channel, NaN until both the EMA and the ATR are defined. */
  update(high: number, low: number, close: number): BandValue {
    const middle = this.average.update(close);
    const width = this.multiplier * this.range.update(high, low, close);
    if (!this.isReady) return { upper: NaN, middle: NaN, lower: NaN };
    return { upper: middle + width, middle, lower: middle - width };
  }

  /** Forgets every bar. */
  reset(): void {
    this.average.reset();
    this.range.reset();
  }
}

/** Keltner Channels of a high, low, close series; NaN for the first max(period − 1, atrPeriod) bars. */
export const keltnerChannels = (high: Float64Array, low: Float64Array, close: Float64Array, period = 20, multiplier = 2, atrPeriod = 10): BandSeries => {
  checkParameters(period, multiplier, atrPeriod);
  const length = requireSameLength("keltner_channels", high, low, close);
  const middle = ema(close, period);
  const range = atr(high, low, close, atrPeriod);
  const start = Math.max(period - 1, atrPeriod);
  const upper = outputSeries(length, start);
  const lower = outputSeries(length, start);
  middle.fill(NaN, 0, Math.min(start, length));
  for (let i = start; i < length; i++) {
    const width = multiplier * range[i];
    upper[i] = middle[i] + width;
    lower[i] = middle[i] - width;
  }
  return { upper, middle, lower };
};
