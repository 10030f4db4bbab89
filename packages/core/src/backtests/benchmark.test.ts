import { describe, expect, it } from "vitest";
import { relativeFigures } from "./benchmark";

describe("benchmark-relative figures", () => {
  it("computes each formula on a small series by hand", () => {
    // r = 10 %, −10 %, 10 %; b = 4 %, 0 %, 5 % (the benchmark's first day opened at 49).
    const figures = relativeFigures([100, 110, 99, 108.9], [50, 52, 52, 54.6], 49, 252);
    // Means 1/30 and 3/100; deviations of r (2, −4, 2)/30 and of b (1, −3, 2)/100; sample moments over n − 1 = 2.
    const covariance = 0.003;
    const varianceR = 1 / 75;
    const varianceB = 0.0007;
    expect(figures.beta).toBeCloseTo(covariance / varianceB, 12);
    expect(figures.beta).toBeCloseTo(30 / 7, 12);
    // (1/30 − 30/7 × 3/100) × 252 = −2/21 × 252.
    expect(figures.alpha).toBeCloseTo(-24, 10);
    expect(figures.correlation).toBeCloseTo(covariance / Math.sqrt(varianceR * varianceB), 12);
    // Active returns r − b = 6 %, −10 %, 5 %: mean 1/300, deviations (17, −31, 14)/300, variance 1446/90000/2.
    const trackingError = Math.sqrt((723 / 90000) * 252);
    expect(figures.tracking_error).toBeCloseTo(trackingError, 12);
    expect(figures.information_ratio).toBeCloseTo(((1 / 300) * 252) / trackingError, 12);
    expect(figures.total_return).toBeCloseTo(54.6 / 49 - 1, 12);
  });

  it("gives beta 1, alpha 0, correlation 1 and no tracking error for equity proportional to the benchmark", () => {
    const closes = [100, 101.3, 99.87, 102.5, 104.01, 103.2, 107.77];
    const figures = relativeFigures(
      closes.map((c) => c * 1000),
      closes,
      99.5,
      252,
    );
    expect(Math.abs(figures.beta - 1)).toBeLessThan(1e-9);
    expect(Math.abs(figures.alpha)).toBeLessThan(1e-9);
    expect(Math.abs(figures.correlation - 1)).toBeLessThan(1e-9);
    expect(figures.tracking_error).toBeLessThan(1e-9);
    expect(figures.information_ratio).toBeNaN();
  });

  it("skips days before the benchmark's first close and leaves undefined figures NaN", () => {
    // No benchmark close on the first day: the first return is the second day's against the third.
    const late = relativeFigures([90, 100, 110, 99, 108.9], [Number.NaN, 50, 52, 52, 54.6], 49, 252);
    expect(late.beta).toBeCloseTo(30 / 7, 12);
    // A benchmark that never moves has no variance: beta, alpha and correlation are undefined.
    const flat = relativeFigures([100, 110, 99], [50, 50, 50], 50, 252);
    expect([flat.beta, flat.alpha, flat.correlation]).toEqual([Number.NaN, Number.NaN, Number.NaN]);
    expect(flat.total_return).toBe(0);
  });
});
