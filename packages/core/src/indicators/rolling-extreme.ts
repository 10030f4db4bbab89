/**
 * Highest and lowest value of the last `period` inputs. The streaming forms keep a monotonic
 * deque in a ring buffer: each value is pushed and popped at most once, so a push costs
 * amortised O(1) and never rescans the window. The batch forms use van Herk / Gil-Werman.
 * Used by Stochastic, Williams %R, Donchian and Ichimoku.
 */

/** Rolling maximum over the last `period` values. */
export class RollingMax {
  private readonly values: Float64Array;
  private readonly positions: Float64Array;
  private front = 0;
  private size = 0;
  private position = 0;

  constructor(readonly period: number) {
    this.values = new Float64Array(period);
    this.positions = new Float64Array(period);
  }

  /** Adds `value` and returns the maximum of the window that ends with it. */
  push(value: number): number {
    const capacity = this.period;
    const values = this.values;
    let front = this.front;
    let size = this.size;
    if (size > 0 && this.positions[front] <= this.position - capacity) {
      front = front + 1 === capacity ? 0 : front + 1;
      size--;
    }
    // Older values not above the newcomer can never be the maximum again.
    while (size > 0) {
      let back = front + size - 1;
      if (back >= capacity) back -= capacity;
      if (values[back] > value) break;
      size--;
    }
    let tail = front + size;
    if (tail >= capacity) tail -= capacity;
    values[tail] = value;
    this.positions[tail] = this.position++;
    this.front = front;
    this.size = size + 1;
    return values[front];
  }

  /** Forgets every value. */
  reset(): void {
    this.front = 0;
    this.size = 0;
    this.position = 0;
  }
}

/** Rolling minimum over the last `period` values. */
export class RollingMin {
  private readonly values: Float64Array;
  private readonly positions: Float64Array;
  private front = 0;
  private size = 0;
  private position = 0;

  constructor(readonly period: number) {
    this.values = new Float64Array(period);
    this.positions = new Float64Array(period);
  }

  /** Adds `value` and returns the minimum of the window that ends with it. */
  push(value: number): number {
    const capacity = this.period;
    const values = this.values;
    let front = this.front;
    let size = this.size;
    if (size > 0 && this.positions[front] <= this.position - capacity) {
      front = front + 1 === capacity ? 0 : front + 1;
      size--;
    }
    // Older values not below the newcomer can never be the minimum again.
    while (size > 0) {
      let back = front + size - 1;
      if (back >= capacity) back -= capacity;
      if (values[back] < value) break;
      size--;
    }
    let tail = front + size;
    if (tail >= capacity) tail -= capacity;
    values[tail] = value;
    this.positions[tail] = this.position++;
    this.front = front;
    this.size = size + 1;
    return values[front];
  }

  /** Forgets every value. */
  reset(): void {
    this.front = 0;
    this.size = 0;
    this.position = 0;
  }
}

/**
 * Rolling maximum of a whole series (van Herk / Gil-Werman). The series is cut into blocks of
 * `period` bars; a window ending at offset r of a block is the larger of the running maximum of
 * the block up to r and the maximum of the previous block from offset r + 1 on (its suffix
 * maximum). Each block is read twice while it sits in cache, with branch-light comparisons and
 * O(period) scratch, instead of the deque's unpredictable pops. Maxima are exact, so the values
 * equal RollingMax's. Bars before `period − 1` hold the maximum of the values so far.
 */
export const rollingMaxSeries = (values: Float64Array, period: number): Float64Array => {
  const length = values.length;
  const output = new Float64Array(length);
  let previousSuffix = new Float64Array(period);
  let suffix = new Float64Array(period);
  for (let start = 0; start < length; start += period) {
    const size = Math.min(period, length - start);
    let running = values[start + size - 1];
    suffix[size - 1] = running;
    for (let r = size - 2; r >= 0; r--) {
      const value = values[start + r];
      running = value > running ? value : running;
      suffix[r] = running;
    }
    running = -Infinity;
    for (let r = 0; r < size; r++) {
      const value = values[start + r];
      running = value > running ? value : running;
      const older = r + 1 < period && start > 0 ? previousSuffix[r + 1] : -Infinity;
      output[start + r] = older > running ? older : running;
    }
    const swap = previousSuffix;
    previousSuffix = suffix;
    suffix = swap;
  }
  return output;
};

/** Rolling minimum of a whole series; the mirror of `rollingMaxSeries`. */
export const rollingMinSeries = (values: Float64Array, period: number): Float64Array => {
  const length = values.length;
  const output = new Float64Array(length);
  let previousSuffix = new Float64Array(period);
  let suffix = new Float64Array(period);
  for (let start = 0; start < length; start += period) {
    const size = Math.min(period, length - start);
    let running = values[start + size - 1];
    suffix[size - 1] = running;
    for (let r = size - 2; r >= 0; r--) {
      const value = values[start + r];
      running = value < running ? value : running;
      suffix[r] = running;
    }
    running = Infinity;
    for (let r = 0; r < size; r++) {
      const value = values[start + r];
      running = value < running ? value : running;
      const older = r + 1 < period && start > 0 ? previousSuffix[r + 1] : Infinity;
      output[start + r] = older < running ? older : running;
    }
    const swap = previousSuffix;
    previousSuffix = suffix;
    suffix = swap;
  }
  return output;
};

/**
 * (highest high + lowest low) / 2 of the last `period` bars, for the Ichimoku lines: the two
 * block passes of `rollingMaxSeries` / `rollingMinSeries` fused, so a line costs one output
 * array and no intermediate series.
 */
export const rollingMidpointSeries = (high: Float64Array, low: Float64Array, period: number): Float64Array => {
  const length = high.length;
  const output = new Float64Array(length);
  let previousHighs = new Float64Array(period);
  let previousLows = new Float64Array(period);
  let highs = new Float64Array(period);
  let lows = new Float64Array(period);
  for (let start = 0; start < length; start += period) {
    const size = Math.min(period, length - start);
    let highest = high[start + size - 1];
    let lowest = low[start + size - 1];
    highs[size - 1] = highest;
    lows[size - 1] = lowest;
    for (let r = size - 2; r >= 0; r--) {
      const barHigh = high[start + r];
      const barLow = low[start + r];
      highest = barHigh > highest ? barHigh : highest;
      lowest = barLow < lowest ? barLow : lowest;
      highs[r] = highest;
      lows[r] = lowest;
    }
    highest = -Infinity;
    lowest = Infinity;
    for (let r = 0; r < size; r++) {
      const barHigh = high[start + r];
      const barLow = low[start + r];
      highest = barHigh > highest ? barHigh : highest;
      lowest = barLow < lowest ? barLow : lowest;
      const spans = r + 1 < period && start > 0;
      const olderHigh = spans ? previousHighs[r + 1] : -Infinity;
      const olderLow = spans ? previousLows[r + 1] : Infinity;
      output[start + r] = ((olderHigh > highest ? olderHigh : highest) + (olderLow < lowest ? olderLow : lowest)) / 2;
    }
    let swap = previousHighs;
    previousHighs = highs;
    highs = swap;
    swap = previousLows;
    previousLows = lows;
    lows = swap;
  }
  return output;
};
