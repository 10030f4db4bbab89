/**
 * Deterministic randomness for the simulated market. Everything is keyed: a symbol's seed is a
 * hash of its name, a trading day's stream is seeded from (symbol seed, day ordinal), so any day
 * can be generated alone, in any order, on any machine, with the same result.
 */

/** 32-bit FNV-1a of a string, finished with an avalanche mix. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Murmur3's finaliser: spreads every input bit over the output. */
export function fmix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines two 32-bit keys into one well-mixed 32-bit key. */
export function mixKeys(a: number, b: number): number {
  return fmix32((Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) | 0);
}

const TWO_POW_32 = 4294967296;

/**
 * A small sequential generator (mulberry32) for one keyed stream. Its 2^32 period is far more
 * than a trading day's few thousand draws, and it is cheap enough for millions of bars a second.
 */
export class KeyedRandom {
  private state: number;
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** Next unsigned 32-bit integer. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in (0, 1), never exactly 0 or 1 so logarithms stay finite. */
  uniform(): number {
    return (this.u32() + 0.5) / TWO_POW_32;
  }

  /** Standard normal (Box–Muller, two values per pair of uniforms). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    const radius = Math.sqrt(-2 * Math.log(this.uniform()));
    const angle = 2 * Math.PI * this.uniform();
    this.spare = radius * Math.sin(angle);
    this.hasSpare = true;
    return radius * Math.cos(angle);
  }
}

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/**
 * Quantile tables that turn random bits into draws without a transcendental call per draw:
 * the minute loop runs millions of times a second, and a 16-bit normal quantile (tails to
 * ±4.3σ) is indistinguishable from an exact draw at that scale. Built on first use, not at
 * import (70,000 quantiles are about 10 ms of a function's cold start that never simulates).
 */
export interface QuantileTables {
  /** Standard normal quantiles, 16-bit. */
  normal16: Float64Array;
  /** Unit exponential quantiles (mean 1), 12-bit. */
  exponential12: Float64Array;
  /** Lognormal factors exp(0.45·z − 0.45²/2) (mean 1), 12-bit. */
  lognormal12: Float64Array;
}

let tables: QuantileTables | undefined;

export function quantileTables(): QuantileTables {
  return (tables ??= {
    normal16: Float64Array.from({ length: 65536 }, (_, i) => normalQuantile((i + 0.5) / 65536)),
    exponential12: Float64Array.from({ length: 4096 }, (_, i) => -Math.log(1 - (i + 0.5) / 4096)),
    lognormal12: Float64Array.from({ length: 4096 }, (_, i) => Math.exp(0.45 * normalQuantile((i + 0.5) / 4096) - 0.10125)),
  });
}
