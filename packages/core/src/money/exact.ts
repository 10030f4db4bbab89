import { Dec } from "./decimal";

/**
 * Exact answers about decimal money without decimal.js on the hot path. Each function gives
 * exactly what the decimal.js expression it names gives (the engine's booked money stays in
 * decimal.js), and is cheaper because most prices are short decimals: a float64 bar price with
 * `k` decimal places is the integer `price × 10^k` over `10^k`, and integer arithmetic below
 * 2^53 is exact in float64.
 */

const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];
/** Scaled integers stay below this, so two different `k`-place decimals never round to one float64. */
const LIMIT = 2 ** 50;

/**
 * Decimal places (0–8) of `x`'s shortest decimal form (the digits `new Dec(x)` reads), or -1
 * when it has more, or is too large to scale. `x × 10^k` rounded, divided back, must give `x`:
 * then the `k`-place decimal rounds to `x`, and below 2^50 it is the shortest form that does.
 */
export function decimalPlaces(x: number): number {
  for (let k = 0; k < POW10.length; k++) {
    const scaled = Math.round(x * POW10[k]);
    if (Math.abs(scaled) >= LIMIT) return -1;
    if (scaled / POW10[k] === x) return k;
  }
  return -1;
}

/**
 * `new Dec(price).times(quantity).toNumber()` for a whole `quantity`: the scaled integer product
 * is exact below 2^53 and one float64 division rounds it correctly, as `toNumber` does.
 */
export function productNumber(price: number, quantity: number): number {
  const k = Number.isInteger(quantity) ? decimalPlaces(price) : -1;
  if (k >= 0) {
    const scaled = Math.round(price * POW10[k]) * quantity;
    if (Math.abs(scaled) <= Number.MAX_SAFE_INTEGER) return scaled / POW10[k];
  }
  return new Dec(price).times(quantity).toNumber();
}

/** `new Dec(x).toString()` (plain notation with this project's Dec) for a finite `x`. */
export function decimalText(x: number): string {
  const abs = Math.abs(x);
  // Number's own shortest form is plain notation in this range and carries the same digits.
  if ((abs >= 1e-6 && abs < 1e21) || x === 0) return Object.is(x, -0) ? "0" : String(x);
  return new Dec(x).toString();
}

/**
 * Where `a` stands against `b` when both are known only within `tolerance`: 1 surely greater,
 * -1 surely smaller, 0 too close to tell (the caller then decides in exact arithmetic).
 */
export function surely(a: number, b: number, tolerance: number): -1 | 0 | 1 {
  if (a - b > tolerance) return 1;
  if (b - a > tolerance) return -1;
  return 0;
}

/**
 * Relative error allowed for a float64 estimate of a decimal expression of a few operations:
 * each operation errs by at most 2^-53 relative, so a billion times that leaves any estimate
 * that passes far from the exact value's boundaries.
 */
export const ESTIMATE_TOLERANCE = 1e-9;
