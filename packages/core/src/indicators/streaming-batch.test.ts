import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstDefined, indicatorCases, streamAll } from "./testing/cases";
import { randomBars } from "./testing/random-bars";

// Streaming (live sessions) and batch (backtests) must agree to the last bit, NaN positions
// included, or a strategy would trade differently in a backtest than live.
const identical = (batch: Float64Array, streamed: number[]): boolean =>
  batch.length === streamed.length && streamed.every((value, i) => Object.is(value, batch[i]));

const seriesArbitrary = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  length: fc.integer({ min: 0, max: 400 }),
  degenerate: fc.boolean(),
});

const barsFor = ({ seed, length, degenerate }: { seed: number; length: number; degenerate: boolean }) =>
  randomBars(length, seed, degenerate ? { tick: 0.05, flatRunChance: 0.03 } : {});

describe.each(indicatorCases)("$id", (indicator) => {
  it("streams exactly the values of the batch form, NaN positions included", () => {
    fc.assert(
      fc.property(indicator.parameters, seriesArbitrary, (parameters, series) => {
        const bars = barsFor(series);
        const batch = indicator.batch(bars, parameters);
        const streamed = streamAll(indicator.stream(parameters), bars);
        for (const [name, values] of Object.entries(batch)) {
          expect(
            identical(
              values,
              streamed.map((output) => output[name]),
            ),
            name,
          ).toBe(true);
        }
        expect(Object.keys(streamed[0] ?? batch).sort()).toEqual(Object.keys(batch).sort());
      }),
      { numRuns: 40 },
    );
  });

  it("replays identical values after reset()", () => {
    fc.assert(
      fc.property(indicator.parameters, seriesArbitrary, (parameters, series) => {
        const bars = barsFor(series);
        const driver = indicator.stream(parameters);
        const first = streamAll(driver, bars);
        driver.reset();
        expect(driver.isReady).toBe(false);
        const second = streamAll(driver, bars);
        expect(second.length).toBe(first.length);
        second.forEach((output, i) => {
          for (const name of Object.keys(output)) expect(Object.is(output[name], first[i][name])).toBe(true);
        });
      }),
      { numRuns: 20 },
    );
  });

  it("becomes ready on the bar where its last output is first defined", () => {
    fc.assert(
      fc.property(indicator.parameters, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (parameters, seed) => {
        const bars = randomBars(250, seed);
        const readyAt = Math.max(...Object.values(indicator.firstIndex(parameters)));
        const driver = indicator.stream(parameters);
        for (let i = 0; i < bars.close.length; i++) {
          driver.update(bars, i);
          expect(driver.isReady).toBe(i >= readyAt);
        }
      }),
      { numRuns: 20 },
    );
  });

  it("starts each output at its TA-Lib lookback and never returns NaN afterwards on ordinary bars", () => {
    fc.assert(
      fc.property(indicator.parameters, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (parameters, seed) => {
        const bars = randomBars(300, seed, { tick: 0.01 });
        const batch = indicator.batch(bars, parameters);
        for (const [name, first] of Object.entries(indicator.firstIndex(parameters))) {
          const values = batch[name];
          expect(firstDefined(values), name).toBe(first);
          expect(
            values.subarray(first).every((value) => Number.isFinite(value)),
            name,
          ).toBe(true);
        }
      }),
      { numRuns: 30 },
    );
  });
});
