import { ACCELERATION_BOUNDS, outputSeries, requireAtMost, requireNumber, requireSameLength } from "./parameters";

const checkParameters = (acceleration: number, maximum: number) => {
  requireNumber("parabolic_sar", "acceleration", acceleration, ACCELERATION_BOUNDS);
  requireNumber("parabolic_sar", "maximum", maximum, ACCELERATION_BOUNDS);
  // TA-Lib silently lowers the step to the ceiling; a configuration error is more useful.
  requireAtMost("parabolic_sar", "acceleration", acceleration, "maximum", maximum);
};

/**
 * Parabolic SAR, a transcription of TA-Lib SAR. The first bar only seeds: the trend starts
 * short when bar 1's down-move beats its up-move (TA-Lib's one-bar −DM test), long otherwise,
 * with SAR at bar 0's low (long) or high (short) and the extreme point at bar 1's high or low.
 * Every bar then outputs the SAR computed for it, reverses when the bar's range crosses it
 * (the new SAR is the old extreme point), and projects the next SAR by af · (ep − sar), clamped
 * so it never enters the previous or current bar's range. On bar 1 TA-Lib uses bar 1 itself as
 * "the previous bar"; that quirk is kept so values match TA-Lib.
 */
export class ParabolicSar {
  readonly acceleration: number;
  readonly maximum: number;
  private count = 0;
  private long = true;
  private sar = 0;
  private extreme = 0;
  private factor = 0;
  private previousHigh = 0;
  private previousLow = 0;

  constructor(acceleration = 0.02, maximum = 0.2) {
    checkParameters(acceleration, maximum);
    this.acceleration = acceleration;
    this.maximum = maximum;
  }

  /** True once two bars have been seen. */
  get isReady(): boolean {
    return this.count >= 2;
  }

  /** 1 while the SAR trails a rising market (below price), −1 while it trails a falling one, NaN before the first value. */
  get direction(): number {
    return this.count < 2 ? NaN : this.long ? 1 : -1;
  }

  /** Adds a bar; returns the SAR for it, NaN on the first bar. */
  update(high: number, low: number): number {
    if (this.count < 2 && !this.start(high, low)) return NaN;
    // Work on locals and store once: the fields would otherwise be reloaded after every write.
    const acceleration = this.acceleration;
    const maximum = this.maximum;
    const previousHigh = this.previousHigh;
    const previousLow = this.previousLow;
    let sar = this.sar;
    let extreme = this.extreme;
    let factor = this.factor;
    let long = this.long;
    let output: number;
    if (long) {
      if (low <= sar) {
        long = false;
        sar = extreme;
        if (sar < previousHigh) sar = previousHigh;
        if (sar < high) sar = high;
        output = sar;
        factor = acceleration;
        extreme = low;
        sar = sar + factor * (extreme - sar);
        if (sar < previousHigh) sar = previousHigh;
        if (sar < high) sar = high;
      } else {
        output = sar;
        if (high > extreme) {
          extreme = high;
          factor += acceleration;
          if (factor > maximum) factor = maximum;
        }
        sar = sar + factor * (extreme - sar);
        if (sar > previousLow) sar = previousLow;
        if (sar > low) sar = low;
      }
    } else if (high >= sar) {
      long = true;
      sar = extreme;
      if (sar > previousLow) sar = previousLow;
      if (sar > low) sar = low;
      output = sar;
      factor = acceleration;
      extreme = high;
      sar = sar + factor * (extreme - sar);
      if (sar > previousLow) sar = previousLow;
      if (sar > low) sar = low;
    } else {
      output = sar;
      if (low < extreme) {
        extreme = low;
        factor += acceleration;
        if (factor > maximum) factor = maximum;
      }
      sar = sar + factor * (extreme - sar);
      if (sar < previousHigh) sar = previousHigh;
      if (sar < high) sar = high;
    }
    this.sar = sar;
    this.extreme = extreme;
    this.factor = factor;
    this.long = long;
    this.previousHigh = high;
    this.previousLow = low;
    return output;
  }

  /**
   * Seeds from the first two bars (kept out of `update` so the hot path stays small enough to
   * inline). Returns false on the first bar, which has no SAR.
   */
  private start(high: number, low: number): boolean {
    if (this.count++ === 0) {
      this.previousHigh = high;
      this.previousLow = low;
      return false;
    }
    const upMove = high - this.previousHigh;
    const downMove = this.previousLow - low;
    this.long = !(downMove > 0 && upMove < downMove);
    this.extreme = this.long ? high : low;
    this.sar = this.long ? this.previousLow : this.previousHigh;
    this.factor = this.acceleration;
    // TA-Lib compares bar 1 with itself on the first pass.
    this.previousHigh = high;
    this.previousLow = low;
    return true;
  }

  /** Forgets every bar. */
  reset(): void {
    this.count = 0;
    this.long = true;
    this.sar = 0;
    this.extreme = 0;
    this.factor = 0;
    this.previousHigh = 0;
    this.previousLow = 0;
  }
}

/** Parabolic SAR of a high, low series; NaN on the first bar. */
export const parabolicSar = (high: Float64Array, low: Float64Array, acceleration = 0.02, maximum = 0.2): Float64Array => {
  checkParameters(acceleration, maximum);
  const length = requireSameLength("parabolic_sar", high, low);
  const output = outputSeries(length, 1);
  if (length < 2) return output;
  // The same operations, in the same order, as ParabolicSar.update.
  const upMove = high[1] - high[0];
  const downMove = low[0] - low[1];
  let long = !(downMove > 0 && upMove < downMove);
  let extreme = long ? high[1] : low[1];
  let sar = long ? low[0] : high[0];
  let factor = acceleration;
  let previousHigh = high[1];
  let previousLow = low[1];
  for (let i = 1; i < length; i++) {
    const barHigh = high[i];
    const barLow = low[i];
    if (long) {
      if (barLow <= sar) {
        long = false;
        sar = extreme;
        if (sar < previousHigh) sar = previousHigh;
        if (sar < barHigh) sar = barHigh;
        output[i] = sar;
        factor = acceleration;
        extreme = barLow;
        sar = sar + factor * (extreme - sar);
        if (sar < previousHigh) sar = previousHigh;
        if (sar < barHigh) sar = barHigh;
      } else {
        output[i] = sar;
        if (barHigh > extreme) {
          extreme = barHigh;
          factor += acceleration;
          if (factor > maximum) factor = maximum;
        }
        sar = sar + factor * (extreme - sar);
        if (sar > previousLow) sar = previousLow;
        if (sar > barLow) sar = barLow;
      }
    } else if (barHigh >= sar) {
      long = true;
      sar = extreme;
      if (sar > previousLow) sar = previousLow;
      if (sar > barLow) sar = barLow;
      output[i] = sar;
      factor = acceleration;
      extreme = barHigh;
      sar = sar + factor * (extreme - sar);
      if (sar > previousLow) sar = previousLow;
      if (sar > barLow) sar = barLow;
    } else {
      output[i] = sar;
      if (barLow < extreme) {
        extreme = barLow;
        factor += acceleration;
        if (factor > maximum) factor = maximum;
      }
      sar = sar + factor * (extreme - sar);
      if (sar < previousHigh) sar = previousHigh;
      if (sar < barHigh) sar = barHigh;
    }
    previousHigh = barHigh;
    previousLow = barLow;
  }
  return output;
};
