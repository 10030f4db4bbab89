import { Dec } from "./decimal";
import { decimalPlaces } from "./exact";

const POW10: number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);
const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Booked money, exact: `units × 10^-scale` with `units` a safe integer (every bar price, fee
 * rate and cash amount of a normal backtest fits), or a decimal.js value when an amount does
 * not fit (then the arithmetic is decimal.js's own). Every operation gives exactly the value
 * decimal.js gives for the same operation (with the project's `Dec`, 40 significant digits:
 * safe integers have 16 at most, so decimal.js rounds nothing there either), and `toString` and
 * `toNumber` give decimal.js's text and number. It is the engine's hot-path stand-in for `Dec`:
 * integer arithmetic in float64, no digit arrays, one small object per result.
 */
export class Money {
  private constructor(
    /** Whole units of 10^-scale (0 when `big` holds the value). */
    private readonly units: number,
    private readonly scale: number,
    private readonly big: Dec | null,
  ) {}

  static readonly ZERO = new Money(0, 0, null);

  /** A decimal.js value, kept as units when it fits. */
  static fromDec(value: Dec): Money {
    const places = value.decimalPlaces();
    if (places < POW10.length && value.isFinite()) {
      const scaled = value.times(POW10[places]);
      if (scaled.abs().lte(SAFE)) return new Money(scaled.toNumber(), places, null);
    }
    return new Money(0, 0, value);
  }

  /** `new Dec(value)` for a decimal string, a number (its shortest decimal form) or a Dec. */
  static of(value: string | number | Dec): Money {
    if (typeof value === "number") {
      const places = decimalPlaces(value);
      if (places >= 0) return new Money(Math.round(value * POW10[places]), places, null);
    }
    return Money.fromDec(value instanceof Dec ? value : new Dec(value));
  }

  toDec(): Dec {
    return this.big ?? new Dec(this.units).div(POW10[this.scale]);
  }

  plus(other: Money): Money {
    if (this.big === null && other.big === null) {
      const scale = Math.max(this.scale, other.scale);
      const a = this.units * POW10[scale - this.scale];
      const b = other.units * POW10[scale - other.scale];
      const sum = a + b;
      if (Math.abs(a) <= SAFE && Math.abs(b) <= SAFE && Math.abs(sum) <= SAFE) return new Money(sum, scale, null);
    }
    return Money.fromDec(this.toDec().plus(other.toDec()));
  }

  minus(other: Money): Money {
    return this.plus(other.negated());
  }

  negated(): Money {
    return this.big === null ? new Money(-this.units, this.scale, null) : new Money(0, 0, this.big.negated());
  }

  times(other: Money): Money {
    if (this.big === null && other.big === null && this.scale + other.scale < POW10.length) {
      const product = this.units * other.units;
      if (Math.abs(product) <= SAFE) return new Money(product, this.scale + other.scale, null);
    }
    return Money.fromDec(this.toDec().times(other.toDec()));
  }

  /** Times a whole number. */
  timesInteger(factor: number): Money {
    if (this.big === null && Number.isSafeInteger(factor)) {
      const product = this.units * factor;
      if (Math.abs(product) <= SAFE) return new Money(product, this.scale, null);
    }
    return Money.fromDec(this.toDec().times(factor));
  }

  /**
   * decimal.js's `toDecimalPlaces(places, rounding)` for `ROUND_UP`, `ROUND_DOWN` and
   * `ROUND_HALF_UP` (the fee schedules' rules): integer division on the units when they fit,
   * decimal.js otherwise.
   */
  round(places: number, rounding: typeof Dec.ROUND_UP | typeof Dec.ROUND_DOWN | typeof Dec.ROUND_HALF_UP): Money {
    if (this.big === null && this.scale <= places) return this;
    if (this.big === null && this.units >= 0 && this.scale - places < POW10.length) {
      const factor = POW10[this.scale - places];
      let whole = Math.floor(this.units / factor);
      let rest = this.units - whole * factor;
      // The float quotient may round across an integer near 2^53: set it right with the exact remainder.
      if (rest < 0) (whole -= 1), (rest += factor);
      else if (rest >= factor) (whole += 1), (rest -= factor);
      const up = rounding === Dec.ROUND_UP ? rest > 0 : rounding === Dec.ROUND_HALF_UP ? rest * 2 >= factor : false;
      return new Money(up ? whole + 1 : whole, places, null);
    }
    return Money.fromDec(this.toDec().toDecimalPlaces(places, rounding));
  }

  /** The larger of two amounts (the first when equal). */
  static max(a: Money, b: Money): Money {
    return a.compare(b) >= 0 ? a : b;
  }

  /** -1, 0 or 1 as this is below, equal to or above `other`. */
  compare(other: Money): number {
    if (this.big === null && other.big === null) {
      const scale = Math.max(this.scale, other.scale);
      const a = this.units * POW10[scale - this.scale];
      const b = other.units * POW10[scale - other.scale];
      if (Math.abs(a) <= SAFE && Math.abs(b) <= SAFE) return a < b ? -1 : a > b ? 1 : 0;
    }
    return this.toDec().comparedTo(other.toDec());
  }

  isZero(): boolean {
    return this.big === null ? this.units === 0 : this.big.isZero();
  }

  /** Strictly below zero. */
  isBelowZero(): boolean {
    return this.big === null ? this.units < 0 : this.big.lt(0);
  }

  /** Strictly above zero. */
  isAboveZero(): boolean {
    return this.big === null ? this.units > 0 : this.big.gt(0);
  }

  /** decimal.js's `toNumber`: one correctly rounded division of two exact float64s is the nearest float64 to the decimal. */
  toNumber(): number {
    return this.big === null ? this.units / POW10[this.scale] : this.big.toNumber();
  }

  /** decimal.js's `toString` (plain notation, no trailing zeros, "0" for zero). */
  toString(): string {
    if (this.big !== null) return this.big.toString();
    const units = this.units;
    if (units === 0) return "0";
    const sign = units < 0 ? "-" : "";
    let digits = String(Math.abs(units));
    let scale = this.scale;
    while (scale > 0 && digits.charCodeAt(digits.length - 1) === 48) {
      digits = digits.slice(0, -1);
      scale--;
    }
    if (scale === 0) return sign + digits;
    if (digits.length <= scale) digits = "0".repeat(scale - digits.length + 1) + digits;
    return `${sign}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }

  toFixed(places: number): string {
    return this.toDec().toFixed(places);
  }

  toJSON(): string {
    return this.toString();
  }
}
