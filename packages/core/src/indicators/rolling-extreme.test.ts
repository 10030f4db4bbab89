import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RollingMax, RollingMin, rollingMaxSeries, rollingMidpointSeries, rollingMinSeries } from "./rolling-extreme";

describe("RollingMax and RollingMin", () => {
  it("return the extremes of the last period values, as a rescan would", () => {
    const values = fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 200 });
    fc.assert(
      fc.property(values, fc.integer({ min: 1, max: 12 }), (series, period) => {
        const highest = new RollingMax(period);
        const lowest = new RollingMin(period);
        series.forEach((value, i) => {
          const window = series.slice(Math.max(0, i - period + 1), i + 1);
          expect(highest.push(value)).toBe(Math.max(...window));
          expect(lowest.push(value)).toBe(Math.min(...window));
        });
      }),
    );
  });

  it("start over after reset()", () => {
    const highest = new RollingMax(3);
    highest.push(9);
    highest.reset();
    expect(highest.push(1)).toBe(1);
  });
});

describe("rollingMaxSeries, rollingMinSeries and rollingMidpointSeries", () => {
  it("equal the streaming deques on every bar", () => {
    // `+ 0` turns −0 into 0: the forms may pick different ones of two equal extremes.
    const values = fc.array(
      fc.double({ min: -1e3, max: 1e3, noNaN: true }).map((value) => value + 0),
      { maxLength: 300 },
    );
    fc.assert(
      fc.property(values, fc.integer({ min: 1, max: 40 }), (series, period) => {
        const input = Float64Array.from(series);
        const highest = new RollingMax(period);
        const lowest = new RollingMin(period);
        const maxima = rollingMaxSeries(input, period);
        const minima = rollingMinSeries(input, period);
        const lows = input.map((value, i) => value - (i % 3));
        const midpoints = rollingMidpointSeries(input, lows, period);
        const lowestLow = new RollingMin(period);
        series.forEach((value, i) => {
          const maximum = highest.push(value);
          expect(maxima[i]).toBe(maximum);
          expect(minima[i]).toBe(lowest.push(value));
          expect(midpoints[i]).toBe((maximum + lowestLow.push(lows[i])) / 2);
        });
      }),
    );
  });
});
