import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { HK_PHASE1_DAY, HkEtpTicks, HkStockTicks, HkStockTicksPhase1, tickTableFor, UsTicks } from "./tick-size";
import { dayNumberOf } from "./zoned-time";

describe("tick tables", () => {
  it("uses the HKEX equity bands", () => {
    expect([0.2, 0.3, 5, 15, 50, 150, 300, 600, 1500, 3000, 6000].map((p) => HkStockTicks.tickAt(p))).toEqual([
      0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5,
    ]);
  });

  it("halves the $10–20 step and cuts the $20–50 step to 0.02 from 2025-08-04", () => {
    expect(HkStockTicksPhase1.tickAt(15)).toBe(0.01);
    expect(HkStockTicksPhase1.tickAt(45)).toBe(0.02);
    expect(HkStockTicksPhase1.tickAt(60)).toBe(0.05);
    expect(tickTableFor("HK", { dayNumber: dayNumberOf("2025-08-01") })).toBe(HkStockTicks);
    expect(tickTableFor("HK", { dayNumber: HK_PHASE1_DAY })).toBe(HkStockTicksPhase1);
    expect(tickTableFor("HK", { etp: true })).toBe(HkEtpTicks);
  });

  it("rounds Tencent-like prices to 0.2 and 0.5 steps", () => {
    expect(HkStockTicks.round(412.37)).toBe(412.4);
    expect(HkStockTicks.round(612.76)).toBe(613);
    expect(HkStockTicks.isValid(612.5)).toBe(true);
    expect(HkStockTicks.isValid(612.3)).toBe(false);
  });

  it("steps across band edges to the neighbouring band's tick", () => {
    expect(HkStockTicks.up(19.98)).toBe(20);
    expect(HkStockTicks.up(20)).toBe(20.05);
    expect(HkStockTicks.down(20.05)).toBe(20);
    expect(HkStockTicks.down(20)).toBe(19.98);
    expect(UsTicks.up(0.9999)).toBe(1);
    expect(UsTicks.up(1)).toBe(1.01);
    expect(UsTicks.down(1)).toBe(0.9999);
  });

  it("rounds any positive price to a valid step close to it", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 9000, noNaN: true }), fc.constantFrom(HkStockTicks, HkStockTicksPhase1, HkEtpTicks, UsTicks), (price, table) => {
        const rounded = table.round(price);
        expect(table.isValid(rounded)).toBe(true);
        expect(Math.abs(rounded - price)).toBeLessThanOrEqual(Math.max(table.tickAt(price), table.tickAt(rounded)) / 2 + 1e-9);
      }),
    );
  });

  it("keeps up and down inverse to each other on valid prices", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 9000, noNaN: true }), fc.constantFrom(HkStockTicks, HkEtpTicks, UsTicks), (price, table) => {
        const valid = table.round(price);
        const up = table.up(valid);
        expect(table.isValid(up)).toBe(true);
        expect(up).toBeGreaterThan(valid);
        expect(table.down(up)).toBe(valid);
      }),
    );
  });
});
