import { trueRange } from "./atr";
import { outputSeries, requireInteger, requireSameLength } from "./parameters";

/** ADX with the directional indicators it is built from, at one bar. */
export interface AdxValue {
  adx: number;
  plusDi: number;
  minusDi: number;
}

/** ADX, +DI and −DI over a whole series. */
export interface AdxSeries {
  adx: Float64Array;
  plusDi: Float64Array;
  minusDi: Float64Array;
}

/**
 * ADX state behind the streaming class (`adx()` repeats its operations over arrays, in the same
 * order, so both forms agree bit for bit); a transcription of TA-Lib ADX / PLUS_DI / MINUS_DI:
 * - +DM = up-move when it is positive and larger than the down-move, −DM likewise; true range;
 * - bars 1..period−1 are summed; from bar `period` on each sum is Wilder-smoothed as
 *   sum − sum/period + today (so TA-Lib's first smoothed value is not a plain period sum);
 * - ±DI = 100 · ±DM / TR from bar `period` (0 when TR is 0), DX = 100 · |+DI − −DI| / (+DI + −DI);
 * - ADX at bar 2·period − 1 is the mean of the first `period` DX values, then
 *   adx = (adx · (period − 1) + dx) / period. A bar with no defined DX (TR or DI sum 0) leaves
 *   ADX unchanged, and counts as 0 in the first mean, exactly as TA-Lib does.
 */
class AdxState {
  adx = NaN;
  plusDi = NaN;
  minusDi = NaN;
  private count = 0;
  private previousHigh = 0;
  private previousLow = 0;
  private previousClose = 0;
  private plusMovement = 0;
  private minusMovement = 0;
  private range = 0;
  private dxSum = 0;

  constructor(private readonly period: number) {}

  get isReady(): boolean {
    return this.count >= 2 * this.period;
  }

  next(high: number, low: number, close: number): void {
    const period = this.period;
    const bar = this.count++;
    if (bar === 0) {
      this.previousHigh = high;
      this.previousLow = low;
      this.previousClose = close;
      return;
    }
    const upMove = high - this.previousHigh;
    const downMove = this.previousLow - low;
    const todayRange = trueRange(high, low, this.previousClose);
    this.previousHigh = high;
    this.previousLow = low;
    this.previousClose = close;
    if (bar < period) {
      if (downMove > 0 && upMove < downMove) this.minusMovement += downMove;
      else if (upMove > 0 && upMove > downMove) this.plusMovement += upMove;
      this.range += todayRange;
      return;
    }
    this.minusMovement -= this.minusMovement / period;
    this.plusMovement -= this.plusMovement / period;
    if (downMove > 0 && upMove < downMove) this.minusMovement += downMove;
    else if (upMove > 0 && upMove > downMove) this.plusMovement += upMove;
    this.range = this.range - this.range / period + todayRange;
    let dx = NaN;
    if (this.range !== 0) {
      this.minusDi = 100 * (this.minusMovement / this.range);
      this.plusDi = 100 * (this.plusMovement / this.range);
      const total = this.minusDi + this.plusDi;
      if (total !== 0) dx = 100 * (Math.abs(this.minusDi - this.plusDi) / total);
    } else {
      this.minusDi = 0;
      this.plusDi = 0;
    }
    if (bar < 2 * period - 1) {
      if (dx === dx) this.dxSum += dx;
    } else if (bar === 2 * period - 1) {
      if (dx === dx) this.dxSum += dx;
      this.adx = this.dxSum / period;
    } else if (dx === dx) {
      this.adx = (this.adx * (period - 1) + dx) / period;
    }
  }

  reset(): void {
    this.adx = NaN;
    this.plusDi = NaN;
    this.minusDi = NaN;
    this.count = 0;
    this.previousHigh = 0;
    this.previousLow = 0;
    this.previousClose = 0;
    this.plusMovement = 0;
    this.minusMovement = 0;
    this.range = 0;
    this.dxSum = 0;
  }
}

/** Average directional index with +DI and −DI (TA-Lib ADX, PLUS_DI, MINUS_DI). */
export class Adx {
  readonly period: number;
  private readonly state: AdxState;

  constructor(period = 14) {
    this.period = requireInteger("adx", "period", period);
    this.state = new AdxState(this.period);
  }

  /** True once 2·period bars have been seen (ADX defined). */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a bar; ±DI are defined from bar `period`, ADX from bar 2·period − 1, NaN before. */
  update(high: number, low: number, close: number): AdxValue {
    const state = this.state;
    state.next(high, low, close);
    return { adx: state.adx, plusDi: state.plusDi, minusDi: state.minusDi };
  }

  /** Forgets every bar. */
  reset(): void {
    this.state.reset();
  }
}

/** ADX, +DI and −DI of a high, low, close series (see `Adx` for the warm-up of each). */
export const adx = (high: Float64Array, low: Float64Array, close: Float64Array, period = 14): AdxSeries => {
  requireInteger("adx", "period", period);
  const length = requireSameLength("adx", high, low, close);
  const firstAdx = 2 * period - 1;
  const adxLine = outputSeries(length, firstAdx);
  const plusDi = outputSeries(length, period);
  const minusDi = outputSeries(length, period);
  if (length === 0) return { adx: adxLine, plusDi, minusDi };
  // The same operations, in the same order, as AdxState.next.
  let previousHigh = high[0];
  let previousLow = low[0];
  let previousClose = close[0];
  let plusMovement = 0;
  let minusMovement = 0;
  let range = 0;
  let dxSum = 0;
  let adxValue = NaN;
  let plus = NaN;
  let minus = NaN;
  for (let bar = 1; bar < length; bar++) {
    const barHigh = high[bar];
    const barLow = low[bar];
    const upMove = barHigh - previousHigh;
    const downMove = previousLow - barLow;
    const todayRange = trueRange(barHigh, barLow, previousClose);
    previousHigh = barHigh;
    previousLow = barLow;
    previousClose = close[bar];
    if (bar < period) {
      if (downMove > 0 && upMove < downMove) minusMovement += downMove;
      else if (upMove > 0 && upMove > downMove) plusMovement += upMove;
      range += todayRange;
      continue;
    }
    minusMovement -= minusMovement / period;
    plusMovement -= plusMovement / period;
    if (downMove > 0 && upMove < downMove) minusMovement += downMove;
    else if (upMove > 0 && upMove > downMove) plusMovement += upMove;
    range = range - range / period + todayRange;
    let dx = NaN;
    if (range !== 0) {
      minus = 100 * (minusMovement / range);
      plus = 100 * (plusMovement / range);
      const total = minus + plus;
      if (total !== 0) dx = 100 * (Math.abs(minus - plus) / total);
    } else {
      minus = 0;
      plus = 0;
    }
    if (bar < firstAdx) {
      if (dx === dx) dxSum += dx;
    } else if (bar === firstAdx) {
      if (dx === dx) dxSum += dx;
      adxValue = dxSum / period;
    } else if (dx === dx) {
      adxValue = (adxValue * (period - 1) + dx) / period;
    }
    plusDi[bar] = plus;
    minusDi[bar] = minus;
    if (bar >= firstAdx) adxLine[bar] = adxValue;
  }
  return { adx: adxLine, plusDi, minusDi };
};
