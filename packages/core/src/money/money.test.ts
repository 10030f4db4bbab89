import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Dec } from "./decimal";
import { Money } from "./money";
import { decimalText, productNumber } from "./exact";

/** Decimal amounts as decimal.js and the engine meet them: prices, rates, cash, and some too large for units. */
const amount = fc.oneof(
  fc.integer({ min: -10_000_000, max: 10_000_000 }).chain((n) => fc.integer({ min: 0, max: 6 }).map((k) => n / 10 ** k)),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 0.001, 106.93, 1e-7, 123456789.123456, 9e15, 2 ** 53 + 2, 1e20),
);

const same = (money: Money, dec: Dec) => {
  expect(money.toString()).toBe(dec.toString());
  expect(Object.is(money.toNumber(), dec.toNumber()) || (money.toNumber() === 0 && dec.toNumber() === 0)).toBe(true);
};

describe("Money gives decimal.js's results", () => {
  it("for sums, differences, products, whole multiples, comparisons, text and numbers", () => {
    fc.assert(
      fc.property(amount, amount, fc.integer({ min: -100_000, max: 100_000 }), (a, b, n) => {
        const [ma, mb, da, db] = [Money.of(a), Money.of(b), new Dec(a), new Dec(b)];
        same(ma, da);
        same(ma.plus(mb), da.plus(db));
        same(ma.minus(mb), da.minus(db));
        same(ma.times(mb), da.times(db));
        same(ma.timesInteger(n), da.times(n));
        same(ma.negated(), da.negated());
        same(Money.of(da.toString()), da);
        expect(ma.compare(mb)).toBe(da.comparedTo(db));
        expect(ma.isBelowZero()).toBe(da.lt(0));
        expect(ma.isAboveZero()).toBe(da.gt(0));
        expect(ma.toFixed(2)).toBe(da.toFixed(2));
      }),
      { numRuns: 3000, seed: 20261125 },
    );
  });

  it("for rounding to places up, down and half up (the fee schedules' rules), and the larger of two", () => {
    const places = fc.integer({ min: 0, max: 4 });
    const rule = fc.constantFrom(Dec.ROUND_UP, Dec.ROUND_DOWN, Dec.ROUND_HALF_UP);
    // Products of rates and values, as the schedules round them, and units near 2^53.
    const product = fc.oneof(
      amount.chain((a) => amount.map((b) => new Dec(a).times(b).toString())),
      fc.integer({ min: 0, max: 2 ** 53 - 1 }).chain((n) => fc.integer({ min: 0, max: 8 }).map((k) => new Dec(n).div(10 ** k).toString())),
    );
    fc.assert(
      fc.property(product, places, rule, amount, (text, p, r, other) => {
        same(Money.of(text).round(p, r), new Dec(text).toDecimalPlaces(p, r));
        same(Money.max(Money.of(text), Money.of(other)), Dec.max(text, other));
      }),
      { numRuns: 5000, seed: 20261125 },
    );
  });

  it("for the float64 shortcuts of prices", () => {
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: 1_000_000 }), (price, quantity) => {
        expect(productNumber(price, quantity)).toBe(new Dec(price).times(quantity).toNumber());
        expect(decimalText(price)).toBe(new Dec(price).toString());
      }),
      { numRuns: 3000, seed: 20261125 },
    );
  });

  it("keeps amounts too large for units in decimal.js", () => {
    const big = Money.of("123456789012345678.25");
    expect(big.plus(Money.of("0.5")).toString()).toBe("123456789012345678.75");
    expect(big.times(Money.of(3)).toString()).toBe("370370367037037034.75");
  });
});
