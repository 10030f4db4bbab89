/**
 * Monte Carlo of a finished backtest's closed trades (docs/backtests.md "Monte Carlo"): many paths
 * of the same per-trade returns, reshuffled (every path ends at the same equity, only the way there
 * differs) or drawn with replacement (bootstrap), and percentiles of what each path went through.
 * Pure: the trades in, the figures out; deterministic for a seed (its own PRNG, never Math.random).
 * The paths run in float64 over typed arrays, allocating nothing per path or per trade.
 */

export type MonteCarloMethod = "reshuffle" | "bootstrap";

/** The percentiles reported of every figure. */
export const PERCENTILES = [5, 25, 50, 75, 95] as const;
export type Percentiles = Record<"p5" | "p25" | "p50" | "p75" | "p95", number>;

/** The band of the equity path's percentiles has at most this many points (the trade indices, the first and last kept). */
export const MAX_BAND_POINTS = 200;

export interface MonteCarloInput {
  /** Equity before the first trade. */
  initial: number;
  /** Each closed trade's return on the equity before it (its P&L over that equity), in exit order. */
  returns: ArrayLike<number>;
  /** Day number (days since 1970-01-01) of each trade's exit, in the same order; step k of every path is dated as the k-th exit. */
  exitDays: ArrayLike<number>;
  /** Day number of the start (before the first trade). */
  startDay: number;
  paths: number;
  seed: number;
  method: MonteCarloMethod;
}

export interface MonteCarloFigures {
  /** Each path's final equity (float64; rounded to cents where it is reported). */
  finals: Float64Array;
  final_equity: Percentiles;
  total_return: Percentiles;
  max_drawdown: Percentiles;
  max_drawdown_trades: Percentiles;
  max_drawdown_days: Percentiles;
  /** The equity path's percentiles at a few trade indices (0 is the start). */
  bands: ({ trade: number } & Percentiles)[];
}

/**
 * xoshiro128** (Blackman and Vigna), seeded by splitmix32 from a 32-bit seed: 32-bit integer
 * arithmetic only, so every JavaScript engine gives the same sequence for the same seed.
 */
export class Xoshiro128 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  /** The next 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** An integer in [0, n), n at most 2^32 (Lemire's multiply-shift, bias below n / 2^32). */
  below(n: number): number {
    return Math.floor((this.nextUint32() * n) / 4294967296);
  }
}

const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));

/** The nearest-rank percentile `p` of ascending `sorted` (the smallest value with at least p % of them at or below it). */
export function percentileOf(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  return sorted[Math.min(n, rank) - 1]!;
}

/**
 * Moves the k-th smallest of `values[lo..hi]` to index k, the smaller ones before it and the
 * larger after (Hoare's quickselect, median-of-three pivot): linear on average, where sorting a
 * band's column of 10,000 paths at each of 200 points would take most of a run's time.
 */
function select(values: Float64Array | Float32Array, lo: number, hi: number, k: number): void {
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    const a = values[lo]!;
    const b = values[mid]!;
    const c = values[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/** The nearest-rank percentiles of `values` (reordered in place). */
function percentiles(values: Float64Array | Float32Array): Percentiles {
  const n = values.length;
  const out = { p5: 0, p25: 0, p50: 0, p75: 0, p95: 0 };
  let from = 0;
  for (const p of PERCENTILES) {
    const k = Math.max(1, Math.ceil((p / 100) * n)) - 1;
    // Everything before the last rank selected is at most it: the next rank lies after it.
    select(values, from, n - 1, k);
    out[`p${p}`] = values[k]!;
    from = k;
  }
  return out;
}

/** The trade indices the bands are reported at: every index up to `max`, else `max` of them evenly spread, first and last kept. */
export function bandIndices(trades: number, max = MAX_BAND_POINTS): Int32Array {
  const points = Math.min(trades + 1, max);
  const out = new Int32Array(points);
  if (points === 1) return out;
  const step = trades / (points - 1);
  for (let i = 0; i < points; i++) out[i] = Math.round(i * step);
  return out;
}

/**
 * Runs `paths` paths of the trades' returns and reports the percentiles of each path's final
 * equity, total return, maximum drawdown (the largest fall from a peak, as a fraction of the
 * peak) and its duration: the most trades, and calendar days, from a peak to a later step still
 * below it. Step k of every path is dated at the k-th exit (the start at `startDay`).
 */
export function simulate(input: MonteCarloInput): MonteCarloFigures {
  const { initial, paths, method } = input;
  const n = input.returns.length;
  const growth = new Float64Array(n);
  for (let i = 0; i < n; i++) growth[i] = 1 + input.returns[i]!;
  const days = new Float64Array(n + 1);
  days[0] = input.startDay;
  for (let i = 0; i < n; i++) days[i + 1] = input.exitDays[i]!;
  const order = new Float64Array(growth);
  const indices = bandIndices(n);
  const points = indices.length;
  const band = new Float32Array(points * paths);
  const finals = new Float64Array(paths);
  const drawdowns = new Float64Array(paths);
  const drawdownTrades = new Float64Array(paths);
  const drawdownDays = new Float64Array(paths);
  const random = new Xoshiro128(input.seed);
  const reshuffle = method === "reshuffle";
  for (let path = 0; path < paths; path++) {
    if (reshuffle) {
      // Fisher–Yates over the previous path's order: each path is a uniform permutation.
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor((random.nextUint32() * (i + 1)) / 4294967296);
        const t = order[i]!;
        order[i] = order[j]!;
        order[j] = t;
      }
    } else {
      for (let i = 0; i < n; i++) order[i] = growth[Math.floor((random.nextUint32() * n) / 4294967296)]!;
    }
    let equity = initial;
    let peak = initial;
    let peakStep = 0;
    let worst = 0;
    let longest = 0;
    let longestDays = 0;
    let next = 0;
    if (indices[0] === 0) band[next++ * paths + path] = equity;
    for (let step = 1; step <= n; step++) {
      equity *= order[step - 1]!;
      if (equity >= peak) {
        peak = equity;
        peakStep = step;
      } else {
        const fall = (peak - equity) / peak;
        if (fall > worst) worst = fall;
        if (step - peakStep > longest) longest = step - peakStep;
        const span = days[step]! - days[peakStep]!;
        if (span > longestDays) longestDays = span;
      }
      if (next < points && indices[next] === step) band[next++ * paths + path] = equity;
    }
    finals[path] = equity;
    drawdowns[path] = worst;
    drawdownTrades[path] = longest;
    drawdownDays[path] = longestDays;
  }
  const returns = new Float64Array(paths);
  for (let path = 0; path < paths; path++) returns[path] = finals[path]! / initial - 1;
  const bands: MonteCarloFigures["bands"] = [];
  for (let point = 0; point < points; point++) {
    bands.push({ trade: indices[point]!, ...percentiles(band.subarray(point * paths, (point + 1) * paths)) });
  }
  return {
    finals,
    final_equity: percentiles(new Float64Array(finals)),
    total_return: percentiles(returns),
    max_drawdown: percentiles(drawdowns),
    max_drawdown_trades: percentiles(drawdownTrades),
    max_drawdown_days: percentiles(drawdownDays),
    bands,
  };
}
