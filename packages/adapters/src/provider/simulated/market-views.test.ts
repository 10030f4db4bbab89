import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatPrice, isoOf } from "./market-views";
import { SimulatedUniverse } from "./universe";

describe("formatting", () => {
  it("formats instants exactly as Date#toISOString does", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2040-01-01T00:00:00Z") }), (ms) => {
        expect(isoOf(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  it("prints prices with three decimals, four for US prices under a dollar", () => {
    const us = SimulatedUniverse.find((s) => s.market === "US")!;
    const hk = SimulatedUniverse.find((s) => s.market === "HK")!;
    expect(formatPrice(us, 182.5)).toBe("182.500");
    expect(formatPrice(us, 0.5123)).toBe("0.5123");
    expect(formatPrice(hk, 0.215)).toBe("0.215");
  });
});

describe("universe", () => {
  it("has unique symbols, positive lots and prices, and HK lots that are round numbers", () => {
    const symbols = SimulatedUniverse.map((s) => s.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
    for (const spec of SimulatedUniverse) {
      expect(spec.basePrice).toBeGreaterThan(0);
      expect(spec.lotSize).toBeGreaterThan(0);
      expect(spec.symbol.endsWith(`.${spec.market}`)).toBe(true);
    }
    expect(SimulatedUniverse.find((s) => s.symbol === "700.HK")?.lotSize).toBe(100);
  });
});
