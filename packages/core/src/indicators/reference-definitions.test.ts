import { describe, expect, it } from "vitest";
import * as Library from "./index";
import { REFERENCE_SEEDS as SEEDS, referenceBars as barsFor } from "./testing/random-bars";

/*
 * Donchian Channels and SuperTrend exist in neither library; they are checked against direct,
 * unoptimised transcriptions of their definitions.
 */
describe.each(SEEDS)("on random series %i, against direct definitions", (seed) => {
  const { high, low, close } = barsFor(seed);
  const n = close.length;

  it("matches Donchian Channels computed by scanning each window", () => {
    const period = 20;
    const ours = Library.donchianChannels(high, low, period);
    for (let i = period - 1; i < n; i++) {
      const upper = Math.max(...high.subarray(i - period + 1, i + 1));
      const lower = Math.min(...low.subarray(i - period + 1, i + 1));
      expect([ours.upper[i], ours.middle[i], ours.lower[i]]).toEqual([upper, (upper + lower) / 2, lower]);
    }
  });

  it("matches SuperTrend computed as TradingView's ta.supertrend with the direction sign flipped", () => {
    // One deliberate difference: TradingView reports the first bar as a down trend even when its
    // close is above the upper band; this library starts up there (TradingView flips a bar later).
    const period = 10;
    const factor = 3;
    const ours = Library.superTrend(high, low, close, period, factor);
    const averageRange = Library.atr(high, low, close, period);
    let upperBand = NaN;
    let lowerBand = NaN;
    let superTrend = NaN;
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(averageRange[i])) continue;
      const source = (high[i] + low[i]) / 2;
      let upper = source + factor * averageRange[i];
      let lower = source - factor * averageRange[i];
      const first = Number.isNaN(superTrend);
      if (!first) {
        lower = lower > lowerBand || close[i - 1] < lowerBand ? lower : lowerBand;
        upper = upper < upperBand || close[i - 1] > upperBand ? upper : upperBand;
      }
      let tradingViewDirection: number;
      if (first) tradingViewDirection = close[i] > upper ? -1 : 1;
      else if (superTrend === upperBand) tradingViewDirection = close[i] > upper ? -1 : 1;
      else tradingViewDirection = close[i] < lower ? 1 : -1;
      superTrend = tradingViewDirection === -1 ? lower : upper;
      upperBand = upper;
      lowerBand = lower;
      expect([ours.value[i], ours.direction[i]]).toEqual([superTrend, -tradingViewDirection]);
    }
  });
});
