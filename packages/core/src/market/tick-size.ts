import { dayNumberOf } from "./zoned-time";
import type { Market } from "./market";

/** One band of a spread table: prices up to and including `upTo` move in steps of `tick`. */
export interface TickBand {
  upTo: number;
  tick: number;
}

// Prices are handled in integer units of 0.0001, the finest tick of any table here, so rounding
// and validity checks are exact instead of being at the mercy of binary fractions.
const UNITS = 10_000;

/**
 * A spread table (minimum price steps by price band). Band edges are multiples of the ticks on
 * both sides, so a price at an edge is valid in either band.
 */
export class TickTable {
  private readonly upToUnits: Float64Array;
  private readonly tickUnits: Float64Array;

  constructor(
    readonly name: string,
    readonly bands: readonly TickBand[],
  ) {
    this.upToUnits = Float64Array.from(bands, (b) => Math.round(b.upTo * UNITS));
    this.tickUnits = Float64Array.from(bands, (b) => Math.round(b.tick * UNITS));
  }

  /** The minimum price step for a price (the band whose range contains it). */
  tickAt(price: number): number {
    return this.tickUnits[this.bandOf(price * UNITS)] / UNITS;
  }

  /** The nearest valid price; never below the smallest tick. */
  round(price: number): number {
    const units = price * UNITS;
    const tick = this.tickUnits[this.bandOf(units)];
    const rounded = Math.round(units / tick) * tick;
    return (rounded < this.tickUnits[0] ? this.tickUnits[0] : rounded) / UNITS;
  }

  /** Whether a price lies exactly on a valid step. */
  isValid(price: number): boolean {
    const raw = price * UNITS;
    const units = Math.round(raw);
    if (Math.abs(raw - units) > 1e-6 || units <= 0) return false;
    return units % this.tickUnits[this.bandOf(units)] === 0;
  }

  /** The valid price `steps` ticks above a valid price. */
  up(price: number, steps = 1): number {
    let units = Math.round(price * UNITS);
    for (let i = 0; i < steps; i++) {
      const band = this.bandOf(units);
      const next = units < this.upToUnits[band] || band === this.tickUnits.length - 1 ? band : band + 1;
      units += this.tickUnits[next];
    }
    return units / UNITS;
  }

  /** The valid price `steps` ticks below a valid price; stops at the smallest tick. */
  down(price: number, steps = 1): number {
    let units = Math.round(price * UNITS);
    for (let i = 0; i < steps; i++) {
      const next = units - this.tickUnits[this.bandOf(units)];
      if (next < this.tickUnits[0]) break;
      units = next;
    }
    return units / UNITS;
  }

  private bandOf(units: number): number {
    const last = this.upToUnits.length - 1;
    for (let i = 0; i < last; i++) if (units <= this.upToUnits[i]) return i;
    return last;
  }
}

/** HKEX spread table for equities (Part A) before the minimum-spread reduction. */
export const HkStockTicks = new TickTable("HKEX equities", [
  { upTo: 0.25, tick: 0.001 },
  { upTo: 0.5, tick: 0.005 },
  { upTo: 10, tick: 0.01 },
  { upTo: 20, tick: 0.02 },
  { upTo: 100, tick: 0.05 },
  { upTo: 200, tick: 0.1 },
  { upTo: 500, tick: 0.2 },
  { upTo: 1000, tick: 0.5 },
  { upTo: 2000, tick: 1 },
  { upTo: 5000, tick: 2 },
  { upTo: 9995, tick: 5 },
]);

/** HKEX equities from 4 Aug 2025 (minimum-spread reduction phase 1: $10–20 → 0.01, $20–50 → 0.02). */
export const HkStockTicksPhase1 = new TickTable("HKEX equities (phase 1 reduced spreads)", [
  { upTo: 0.25, tick: 0.001 },
  { upTo: 0.5, tick: 0.005 },
  { upTo: 10, tick: 0.01 },
  { upTo: 20, tick: 0.01 },
  { upTo: 50, tick: 0.02 },
  { upTo: 100, tick: 0.05 },
  { upTo: 200, tick: 0.1 },
  { upTo: 500, tick: 0.2 },
  { upTo: 1000, tick: 0.5 },
  { upTo: 2000, tick: 1 },
  { upTo: 5000, tick: 2 },
  { upTo: 9995, tick: 5 },
]);

/** HKEX spread table for exchange-traded products (ETFs, L&I products), as HKEX publishes it. */
export const HkEtpTicks = new TickTable("HKEX exchange-traded products", [
  { upTo: 0.25, tick: 0.001 },
  { upTo: 0.5, tick: 0.005 },
  { upTo: 1, tick: 0.01 },
  { upTo: 5, tick: 0.002 },
  { upTo: 10, tick: 0.005 },
  { upTo: 20, tick: 0.01 },
  { upTo: 100, tick: 0.02 },
  { upTo: 200, tick: 0.05 },
  { upTo: 500, tick: 0.1 },
  { upTo: 1000, tick: 0.2 },
  { upTo: 2000, tick: 0.5 },
  { upTo: 5000, tick: 1 },
  { upTo: 9999, tick: 5 },
]);

/** US equities (Reg NMS Rule 612): $0.01 from $1.00 up, $0.0001 below. */
export const UsTicks = new TickTable("US equities", [
  { upTo: 1, tick: 0.0001 },
  { upTo: Number.MAX_SAFE_INTEGER / UNITS, tick: 0.01 },
]);

/** Day number on which HKEX's phase 1 reduced equity spreads took effect (2025-08-04). */
export const HK_PHASE1_DAY = dayNumberOf("2025-08-04");

/** The spread table that applies to an instrument on a day (day number; omit for today's rules). */
export function tickTableFor(market: Market, options: { etp?: boolean; dayNumber?: number } = {}): TickTable {
  if (market === "HK") {
    if (options.etp) return HkEtpTicks;
    return (options.dayNumber ?? Number.MAX_SAFE_INTEGER) >= HK_PHASE1_DAY ? HkStockTicksPhase1 : HkStockTicks;
  }
  return UsTicks;
}
