import { describe, expect, it } from "vitest";
import { BollingerBands, bollingerBands } from "./bollinger-bands";

describe("Bollinger Bands on a flat window", () => {
  // Varied closes leave rounding residue in the sliding sums; twenty equal closes must still give width 0.
  const closes = [50, 50.26, 51.51, 50.92, 51.07, 50.44, 50.09, 51.36, 51.36, 51.87, ...Array(20).fill(51.87)];

  it("has bands of width exactly 0, streaming and batch alike", () => {
    const bands = new BollingerBands(5, 2);
    let last = bands.update(closes[0]!);
    for (const close of closes.slice(1)) last = bands.update(close);
    expect(last.upper - last.lower).toBe(0);
    expect(last.upper).toBe(last.middle);
    const batch = bollingerBands(Float64Array.from(closes), 5, 2);
    const end = closes.length - 1;
    expect(batch.upper[end]! - batch.lower[end]!).toBe(0);
    expect([batch.upper[end], batch.middle[end], batch.lower[end]]).toEqual([last.upper, last.middle, last.lower]);
  });

  it("widens again as soon as a different value enters", () => {
    const bands = new BollingerBands(5, 2);
    for (const close of closes) bands.update(close);
    const next = bands.update(52);
    expect(next.upper - next.lower).toBeGreaterThan(0.1);
  });
});
