import { requireInteger, requireSameLength } from "./parameters";
import { RollingMax, RollingMin, rollingMaxSeries, rollingMinSeries } from "./rolling-extreme";
import { Sma } from "./sma";

/** Slow %K and %D at one bar. */
export interface StochasticValue {
  k: number;
  d: number;
}

/** Slow %K and %D over a whole series. */
export interface StochasticSeries {
  k: Float64Array;
  d: Float64Array;
}

const checkPeriods = (kPeriod: number, kSmoothing: number, dPeriod: number) => {
  requireInteger("stochastic", "k_period", kPeriod);
  requireInteger("stochastic", "k_smoothing", kSmoothing);
  requireInteger("stochastic", "d_period", dPeriod);
};

/**
 * Stochastic state behind the streaming class (`stochastic()` repeats its arithmetic over arrays,
 * with the same exact extremes), following TA-Lib STOCH with SMA smoothing:
 * fast %K = (close − lowest low) / ((highest high − lowest low) / 100), 0 for a flat window;
 * slow %K = SMA(fast %K, kSmoothing); %D = SMA(slow %K, dPeriod). Both outputs start together
 * at bar kPeriod + kSmoothing + dPeriod − 3, as in TA-Lib.
 */
class StochasticState {
  k = NaN;
  d = NaN;
  private readonly highest: RollingMax;
  private readonly lowest: RollingMin;
  private readonly slowK: Sma;
  private readonly slowD: Sma;
  private count = 0;

  constructor(
    private readonly kPeriod: number,
    kSmoothing: number,
    dPeriod: number,
  ) {
    this.highest = new RollingMax(kPeriod);
    this.lowest = new RollingMin(kPeriod);
    this.slowK = new Sma(kSmoothing);
    this.slowD = new Sma(dPeriod);
  }

  get isReady(): boolean {
    return this.slowD.isReady;
  }

  next(high: number, low: number, close: number): void {
    const highest = this.highest.push(high);
    const lowest = this.lowest.push(low);
    if (this.count < this.kPeriod && ++this.count < this.kPeriod) return;
    const range = (highest - lowest) / 100;
    const fastK = range !== 0 ? (close - lowest) / range : 0;
    const slowK = this.slowK.update(fastK);
    if (!this.slowK.isReady) return;
    const slowD = this.slowD.update(slowK);
    if (!this.slowD.isReady) return;
    this.k = slowK;
    this.d = slowD;
  }

  reset(): void {
    this.k = NaN;
    this.d = NaN;
    this.highest.reset();
    this.lowest.reset();
    this.slowK.reset();
    this.slowD.reset();
    this.count = 0;
  }
}

/** Full stochastic oscillator (TA-Lib STOCH): `new Stochastic(14, 1, 3)` is the fast stochastic. */
export class Stochastic {
  readonly kPeriod: number;
  readonly kSmoothing: number;
  readonly dPeriod: number;
  private readonly state: StochasticState;

  constructor(kPeriod = 14, kSmoothing = 3, dPeriod = 3) {
    checkPeriods(kPeriod, kSmoothing, dPeriod);
    this.kPeriod = kPeriod;
    this.kSmoothing = kSmoothing;
    this.dPeriod = dPeriod;
    this.state = new StochasticState(kPeriod, kSmoothing, dPeriod);
  }

  /** True once kPeriod + kSmoothing + dPeriod − 2 bars have been seen. */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a bar; returns slow %K and %D in [0, 100], both NaN until %D is defined. */
  update(high: number, low: number, close: number): StochasticValue {
    const state = this.state;
    state.next(high, low, close);
    return { k: state.k, d: state.d };
  }

  /** Forgets every bar. */
  reset(): void {
    this.state.reset();
  }
}

/** Stochastic oscillator of a high, low, close series; NaN for the first kPeriod + kSmoothing + dPeriod − 3 bars. */
export const stochastic = (high: Float64Array, low: Float64Array, close: Float64Array, kPeriod = 14, kSmoothing = 3, dPeriod = 3): StochasticSeries => {
  checkPeriods(kPeriod, kSmoothing, dPeriod);
  const length = requireSameLength("stochastic", high, low, close);
  // %K overwrites the highest highs and %D the lowest lows once read, saving two series. Slow %K
  // is written as soon as it exists, because %D averages it; the bars before %D is defined are
  // blanked at the end, as TA-Lib reports both lines from the same bar.
  const k = rollingMaxSeries(high, kPeriod);
  const d = rollingMinSeries(low, kPeriod);
  const recentFastK = new Float64Array(kSmoothing);
  let slot = 0;
  const firstSlowK = kPeriod + kSmoothing - 2;
  const start = firstSlowK + dPeriod - 1;
  // The same operations, in the same order, as StochasticState.next with its two Sma instances.
  let kSum = 0;
  let dSum = 0;
  for (let i = kPeriod - 1; i < length; i++) {
    const lowestLow = d[i];
    const range = (k[i] - lowestLow) / 100;
    const fastK = range !== 0 ? (close[i] - lowestLow) / range : 0;
    recentFastK[slot] = fastK;
    slot = slot + 1 === kSmoothing ? 0 : slot + 1;
    kSum += fastK;
    if (i < firstSlowK) continue;
    const slowK = kSum / kSmoothing;
    kSum -= recentFastK[slot];
    k[i] = slowK;
    dSum += slowK;
    if (i < start) continue;
    d[i] = dSum / dPeriod;
    dSum -= k[i - dPeriod + 1];
  }
  k.fill(NaN, 0, Math.min(start, length));
  d.fill(NaN, 0, Math.min(start, length));
  return { k, d };
};
