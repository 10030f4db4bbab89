import { OPTIONAL_PERIOD_BOUNDS, nanSeries, requireInteger, requireSameLength } from "./parameters";
import { RollingMax, RollingMin, rollingMidpointSeries } from "./rolling-extreme";

/** The five Ichimoku lines as they stand at one bar (see `Ichimoku` for the displacement). */
export interface IchimokuValue {
  tenkan: number;
  kijun: number;
  senkouA: number;
  senkouB: number;
  chikou: number;
}

/** The five Ichimoku lines over a whole series. */
export interface IchimokuSeries {
  tenkan: Float64Array;
  kijun: Float64Array;
  senkouA: Float64Array;
  senkouB: Float64Array;
  chikou: Float64Array;
}

const checkParameters = (tenkanPeriod: number, kijunPeriod: number, senkouBPeriod: number, displacement: number) => {
  requireInteger("ichimoku", "tenkan_period", tenkanPeriod);
  requireInteger("ichimoku", "kijun_period", kijunPeriod);
  requireInteger("ichimoku", "senkou_b_period", senkouBPeriod);
  requireInteger("ichimoku", "displacement", displacement, OPTIONAL_PERIOD_BOUNDS);
};

/**
 * Ichimoku state behind the streaming class (the batch form computes the same midpoints with
 * van Herk / Gil-Werman, exact, so the values agree). Every output at bar t uses bars ≤ t
 * only, so a backtest never sees the future:
 * - tenkan, kijun: midpoints (highest high + lowest low) / 2 of the last 9 / 26 bars, at t;
 * - senkouA, senkouB: the cloud *in force at t*, i.e. (tenkan + kijun) / 2 and the 52-bar
 *   midpoint computed `displacement` bars ago (charts draw those values displacement bars ahead);
 * - chikou: the close of t, which charts draw displacement bars back; compare it with the
 *   close or cloud of t − displacement rather than reading a future close into bar t.
 */
class IchimokuState {
  tenkan = NaN;
  kijun = NaN;
  senkouA = NaN;
  senkouB = NaN;
  chikou = NaN;
  private readonly tenkanHigh: RollingMax;
  private readonly tenkanLow: RollingMin;
  private readonly kijunHigh: RollingMax;
  private readonly kijunLow: RollingMin;
  private readonly senkouHigh: RollingMax;
  private readonly senkouLow: RollingMin;
  private readonly pendingA: Float64Array;
  private readonly pendingB: Float64Array;
  private slot = 0;
  private count = 0;

  constructor(
    private readonly tenkanPeriod: number,
    private readonly kijunPeriod: number,
    private readonly senkouBPeriod: number,
    private readonly displacement: number,
  ) {
    this.tenkanHigh = new RollingMax(tenkanPeriod);
    this.tenkanLow = new RollingMin(tenkanPeriod);
    this.kijunHigh = new RollingMax(kijunPeriod);
    this.kijunLow = new RollingMin(kijunPeriod);
    this.senkouHigh = new RollingMax(senkouBPeriod);
    this.senkouLow = new RollingMin(senkouBPeriod);
    this.pendingA = nanSeries(displacement);
    this.pendingB = nanSeries(displacement);
  }

  get isReady(): boolean {
    return this.count >= Math.max(this.tenkanPeriod, this.kijunPeriod, this.senkouBPeriod) + this.displacement;
  }

  next(high: number, low: number, close: number): void {
    const bar = ++this.count;
    const tenkanHigh = this.tenkanHigh.push(high);
    const tenkanLow = this.tenkanLow.push(low);
    const kijunHigh = this.kijunHigh.push(high);
    const kijunLow = this.kijunLow.push(low);
    const senkouHigh = this.senkouHigh.push(high);
    const senkouLow = this.senkouLow.push(low);
    this.tenkan = bar >= this.tenkanPeriod ? (tenkanHigh + tenkanLow) / 2 : NaN;
    this.kijun = bar >= this.kijunPeriod ? (kijunHigh + kijunLow) / 2 : NaN;
    const leadingA = (this.tenkan + this.kijun) / 2;
    const leadingB = bar >= this.senkouBPeriod ? (senkouHigh + senkouLow) / 2 : NaN;
    if (this.displacement === 0) {
      this.senkouA = leadingA;
      this.senkouB = leadingB;
    } else {
      const slot = this.slot;
      this.senkouA = this.pendingA[slot];
      this.senkouB = this.pendingB[slot];
      this.pendingA[slot] = leadingA;
      this.pendingB[slot] = leadingB;
      this.slot = slot + 1 === this.displacement ? 0 : slot + 1;
    }
    this.chikou = close;
  }

  reset(): void {
    this.tenkan = NaN;
    this.kijun = NaN;
    this.senkouA = NaN;
    this.senkouB = NaN;
    this.chikou = NaN;
    this.tenkanHigh.reset();
    this.tenkanLow.reset();
    this.kijunHigh.reset();
    this.kijunLow.reset();
    this.senkouHigh.reset();
    this.senkouLow.reset();
    this.pendingA.fill(NaN);
    this.pendingB.fill(NaN);
    this.slot = 0;
    this.count = 0;
  }
}

/**
 * Ichimoku Kinko Hyo. Displacement: senkouA/senkouB are returned already shifted forward (the
 * cloud under the current bar), chikou is the current close (drawn displacement bars back).
 * Pass displacement 25 to match TradingView, which draws the spans displacement − 1 bars ahead.
 */
export class Ichimoku {
  readonly tenkanPeriod: number;
  readonly kijunPeriod: number;
  readonly senkouBPeriod: number;
  readonly displacement: number;
  private readonly state: IchimokuState;

  constructor(tenkanPeriod = 9, kijunPeriod = 26, senkouBPeriod = 52, displacement = 26) {
    checkParameters(tenkanPeriod, kijunPeriod, senkouBPeriod, displacement);
    this.tenkanPeriod = tenkanPeriod;
    this.kijunPeriod = kijunPeriod;
    this.senkouBPeriod = senkouBPeriod;
    this.displacement = displacement;
    this.state = new IchimokuState(tenkanPeriod, kijunPeriod, senkouBPeriod, displacement);
  }

  /** True once every line is defined: max(periods) + displacement bars. */
  get isReady(): boolean {
    return this.state.isReady;
  }

  /** Adds a bar; each line is NaN until its own warm-up is over (chikou never is). */
  update(high: number, low: number, close: number): IchimokuValue {
    const state = this.state;
    state.next(high, low, close);
    return {
      tenkan: state.tenkan,
      kijun: state.kijun,
      senkouA: state.senkouA,
      senkouB: state.senkouB,
      chikou: state.chikou,
    };
  }

  /** Forgets every bar. */
  reset(): void {
    this.state.reset();
  }
}

/** Ichimoku lines of a high, low, close series (see `Ichimoku` for displacement and warm-up). */
export const ichimoku = (
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  tenkanPeriod = 9,
  kijunPeriod = 26,
  senkouBPeriod = 52,
  displacement = 26,
): IchimokuSeries => {
  checkParameters(tenkanPeriod, kijunPeriod, senkouBPeriod, displacement);
  const length = requireSameLength("ichimoku", high, low, close);
  const midpoints = (period: number): Float64Array => rollingMidpointSeries(high, low, period).fill(NaN, 0, Math.min(period - 1, length));
  const tenkan = midpoints(tenkanPeriod);
  const kijun = midpoints(kijunPeriod);
  // Span B is its own midpoint line moved `displacement` bars later, in place.
  const senkouB = midpoints(senkouBPeriod);
  senkouB.copyWithin(displacement, 0, Math.max(length - displacement, 0)).fill(NaN, 0, Math.min(displacement, length));
  const senkouA = new Float64Array(length).fill(NaN, 0, Math.min(displacement, length));
  for (let i = displacement; i < length; i++) senkouA[i] = (tenkan[i - displacement] + kijun[i - displacement]) / 2;
  return { tenkan, kijun, senkouA, senkouB, chikou: close.slice() };
};
