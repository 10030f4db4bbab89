import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Library from "./index";
import { type Bars, randomBars } from "./testing/random-bars";

// Invariants that hold for any series, degenerate ones (flat runs, zero volume, ticks) included.
const SLACK = 1e-9;

const barsArbitrary = fc
  .record({
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    length: fc.integer({ min: 1, max: 300 }),
    volatility: fc.constantFrom(0.001, 0.01, 0.05),
    tick: fc.constantFrom(0, 0.01, 0.5),
    flatRunChance: fc.constantFrom(0, 0.02, 0.1),
  })
  .map(({ seed, length, ...options }) => randomBars(length, seed, options));

const period = fc.integer({ min: 1, max: 50 });

const defined = (values: Float64Array) => Array.from(values).filter((value) => !Number.isNaN(value));

const expectWithin = (values: Float64Array, lowest: number, highest: number) => {
  for (const value of defined(values)) {
    expect(value).toBeGreaterThanOrEqual(lowest - SLACK);
    expect(value).toBeLessThanOrEqual(highest + SLACK);
  }
};

const window = (values: Float64Array, end: number, length: number) => values.subarray(Math.max(0, end - length + 1), end + 1);

describe("bounded oscillators", () => {
  it("keeps RSI and MFI within [0, 100]", () => {
    fc.assert(
      fc.property(barsArbitrary, period, ({ high, low, close, volume }: Bars, p) => {
        expectWithin(Library.rsi(close, p), 0, 100);
        expectWithin(Library.mfi(high, low, close, volume, p), 0, 100);
      }),
    );
  });

  it("keeps stochastic %K and %D within [0, 100] and Williams %R within [−100, 0]", () => {
    fc.assert(
      fc.property(barsArbitrary, period, period, period, ({ high, low, close }: Bars, k, s, d) => {
        const result = Library.stochastic(high, low, close, k, s, d);
        expectWithin(result.k, 0, 100);
        expectWithin(result.d, 0, 100);
        expectWithin(Library.williamsR(high, low, close, k), -100, 0);
      }),
    );
  });

  it("keeps ADX, +DI and −DI within [0, 100]", () => {
    fc.assert(
      fc.property(barsArbitrary, period, ({ high, low, close }: Bars, p) => {
        const result = Library.adx(high, low, close, p);
        expectWithin(result.adx, 0, 100);
        expectWithin(result.plusDi, 0, 100);
        expectWithin(result.minusDi, 0, 100);
      }),
    );
  });
});

describe("averages and bands", () => {
  it("keeps SMA and WMA within the window's range and EMA within the range seen so far", () => {
    fc.assert(
      fc.property(barsArbitrary, period, ({ close }: Bars, p) => {
        const simple = Library.sma(close, p);
        const weighted = Library.wma(close, p);
        const exponential = Library.ema(close, p);
        for (let i = p - 1; i < close.length; i++) {
          const values = window(close, i, p);
          const [lowest, highest] = [Math.min(...values), Math.max(...values)];
          const relative = SLACK * highest;
          for (const value of [simple[i], weighted[i]]) {
            expect(value).toBeGreaterThanOrEqual(lowest - relative);
            expect(value).toBeLessThanOrEqual(highest + relative);
          }
          const seen = close.subarray(0, i + 1);
          expect(exponential[i]).toBeGreaterThanOrEqual(Math.min(...seen) - relative);
          expect(exponential[i]).toBeLessThanOrEqual(Math.max(...seen) + relative);
        }
      }),
    );
  });

  it("orders Bollinger and Keltner lines upper ≥ middle ≥ lower", () => {
    const multiplier = fc.double({ min: 0, max: 10, noNaN: true });
    fc.assert(
      fc.property(barsArbitrary, period, multiplier, period, ({ high, low, close }: Bars, p, k, a) => {
        for (const bands of [Library.bollingerBands(close, p, k), Library.keltnerChannels(high, low, close, p, k, a)]) {
          for (let i = 0; i < close.length; i++) {
            if (Number.isNaN(bands.middle[i])) continue;
            expect(bands.upper[i]).toBeGreaterThanOrEqual(bands.middle[i]);
            expect(bands.middle[i]).toBeGreaterThanOrEqual(bands.lower[i]);
          }
        }
      }),
    );
  });

  it("makes the Donchian channel the exact extremes of its window, containing every bar of it", () => {
    fc.assert(
      fc.property(barsArbitrary, period, ({ high, low }: Bars, p) => {
        const channel = Library.donchianChannels(high, low, p);
        for (let i = p - 1; i < high.length; i++) {
          const highs = window(high, i, p);
          const lows = window(low, i, p);
          expect(highs.every((value) => value <= channel.upper[i])).toBe(true);
          expect(lows.every((value) => value >= channel.lower[i])).toBe(true);
          expect(highs.includes(channel.upper[i]) && lows.includes(channel.lower[i])).toBe(true);
          expect(channel.lower[i] <= channel.middle[i] && channel.middle[i] <= channel.upper[i]).toBe(true);
        }
      }),
    );
  });

  it("keeps ATR non-negative and the anchored VWAP within the lows and highs seen so far", () => {
    fc.assert(
      fc.property(barsArbitrary, period, ({ high, low, close, volume }: Bars, p) => {
        expect(defined(Library.atr(high, low, close, p)).every((value) => value >= 0)).toBe(true);
        const average = Library.vwap(high, low, close, volume);
        for (let i = 0; i < close.length; i++) {
          if (Number.isNaN(average[i])) continue;
          expect(average[i]).toBeGreaterThanOrEqual(Math.min(...low.subarray(0, i + 1)) * (1 - SLACK));
          expect(average[i]).toBeLessThanOrEqual(Math.max(...high.subarray(0, i + 1)) * (1 + SLACK));
        }
      }),
    );
  });
});

describe("trend followers", () => {
  it("moves OBV by exactly the bar's volume, its negative, or nothing", () => {
    fc.assert(
      fc.property(barsArbitrary, ({ close, volume }: Bars) => {
        const values = Library.obv(close, volume);
        for (let i = 1; i < close.length; i++) {
          const step = values[i] - values[i - 1];
          const expected = close[i] > close[i - 1] ? volume[i] : close[i] < close[i - 1] ? -volume[i] : 0;
          expect(step).toBe(expected);
        }
      }),
    );
  });

  it("never places the Parabolic SAR strictly inside the bar's range", () => {
    const acceleration = fc.double({ min: 0.001, max: 0.1, noNaN: true });
    fc.assert(
      fc.property(barsArbitrary, acceleration, ({ high, low }: Bars, step) => {
        const sar = Library.parabolicSar(high, low, step, Math.min(1, step * 10));
        for (let i = 1; i < high.length; i++) expect(sar[i] <= low[i] || sar[i] >= high[i]).toBe(true);
      }),
    );
  });

  it("keeps the SuperTrend line below the close while an up trend holds and above it while a down trend holds", () => {
    // On a flip bar the ratcheted bands may have crossed, so the new line can sit on either side
    // of the close (TradingView behaves the same); the invariant is about trends that continue.
    fc.assert(
      fc.property(barsArbitrary, period, fc.double({ min: 0, max: 5, noNaN: true }), ({ high, low, close }: Bars, p, k) => {
        const { value, direction } = Library.superTrend(high, low, close, p, k);
        for (let i = 0; i < close.length; i++) {
          if (Number.isNaN(direction[i])) {
            expect(Number.isNaN(value[i])).toBe(true);
            continue;
          }
          expect(Math.abs(direction[i])).toBe(1);
          if (i > 0 && direction[i] !== direction[i - 1]) continue;
          if (direction[i] === 1) expect(value[i]).toBeLessThanOrEqual(close[i]);
          else expect(value[i]).toBeGreaterThanOrEqual(close[i]);
        }
      }),
    );
  });

  it("keeps the Ichimoku tenkan and kijun within the lows and highs of their windows", () => {
    fc.assert(
      fc.property(barsArbitrary, period, period, ({ high, low, close }: Bars, t, k) => {
        const result = Library.ichimoku(high, low, close, t, k, 52, 26);
        for (let i = 0; i < close.length; i++) {
          for (const [line, length] of [
            [result.tenkan, t],
            [result.kijun, k],
          ] as const) {
            if (Number.isNaN(line[i])) continue;
            expect(line[i]).toBeGreaterThanOrEqual(Math.min(...window(low, i, length)));
            expect(line[i]).toBeLessThanOrEqual(Math.max(...window(high, i, length)));
          }
        }
      }),
    );
  });
});
