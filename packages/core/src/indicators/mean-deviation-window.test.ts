import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MeanDeviationWindow } from "./mean-deviation-window";

describe("MeanDeviationWindow", () => {
  it("holds the last period values and answers their sum and Σ|x − mean| as a rescan would", () => {
    const values = fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.double({ min: -1e3, max: 1e3, noNaN: true })), {
      maxLength: 300,
    });
    fc.assert(
      fc.property(values, fc.integer({ min: 1, max: 25 }), (series, period) => {
        const window = new MeanDeviationWindow(period);
        series.forEach((value, i) => {
          window.push(value);
          const held = series.slice(Math.max(0, i - period + 1), i + 1);
          expect(window.size).toBe(held.length);
          const sum = held.reduce((total, x) => total + x, 0);
          const scale = held.reduce((total, x) => total + Math.abs(x), 0) + 1;
          expect(Math.abs(window.sum - sum)).toBeLessThanOrEqual(scale * 1e-12);
          const mean = window.sum / held.length;
          const deviation = held.reduce((total, x) => total + Math.abs(x - mean), 0);
          expect(Math.abs(window.deviationSum(mean) - deviation)).toBeLessThanOrEqual(scale * 1e-12);
        });
      }),
    );
  });

  it("stays shallow on a monotone series, where an unbalanced search tree would degenerate", () => {
    const period = 4096;
    const window = new MeanDeviationWindow(period);
    // A degenerate tree would recurse 4096 deep per push and take seconds; a treap stays ~log2(4096) deep.
    const started = performance.now();
    for (let i = 0; i < 50_000; i++) window.push(i);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(window.sum).toBe(((50_000 - period + 49_999) * period) / 2);
  });
});
