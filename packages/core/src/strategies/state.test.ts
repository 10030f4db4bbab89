import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { Strategies, type StrategyState } from "./index";
import { randomWalk, run } from "./test-bars";

// Short windows and shorts allowed, so a few hundred bars hold many signals of both sides.
const ACTIVE_PARAMETERS: Record<string, Record<string, unknown>> = {
  ma_crossover: { fast_period: 5, slow_period: 20, ma_type: "ema", allow_short: true },
  rsi_mean_reversion: { period: 6, allow_short: true },
  bollinger_breakout: { period: 10, std_dev: 1.5, allow_short: true },
  macd_trend: { fast_period: 6, slow_period: 13, signal_period: 5, allow_short: true },
  donchian_breakout: { entry_period: 10, exit_period: 5, allow_short: true },
  momentum: { lookback_period: 5, entry_threshold: 2, allow_short: true },
  trend_director: { fast_period: 5, slow_period: 20, band_pct: 0.2, allow_short: true },
  pullback_executor: { rsi_period: 5, trend_period: 20, allow_short: true },
  ema_trend: { fast_period: 5, slow_period: 20, atr_multiple: 2, allow_short: true },
};

/** Two symbols interleaved bar by bar. */
const series = (seed: number) => {
  const apple = randomWalk(300, seed, "AAPL.US");
  const tencent = randomWalk(300, seed + 1_000, "700.HK");
  return apple.flatMap((bar, i) => [bar, tencent[i]]);
};

describe("strategy state", () => {
  it("covers every strategy of the catalog", () => {
    expect(Object.keys(ACTIVE_PARAMETERS).sort()).toEqual(
      Strategies.list()
        .strategies.map((s) => s.strategy_id)
        .sort(),
    );
  });

  it.each(Object.entries(ACTIVE_PARAMETERS))("%s continues after save, JSON round trip and restore exactly as an uninterrupted run", (id, parameters) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 599 }), (seed, cut) => {
        const bars = series(seed);
        const reference = Strategies.create(id, parameters);
        const uninterrupted = run(reference, bars);

        const first = Strategies.create(id, parameters);
        const before = run(first, bars.slice(0, cut));
        const saved = JSON.parse(JSON.stringify(first.saveState())) as StrategyState;
        const second = Strategies.create(id, parameters);
        second.restoreState(saved);
        const after = run(second, bars.slice(cut)).map(({ index, signal }) => ({ index: index + cut, signal }));

        expect([...before, ...after]).toEqual(uninterrupted);
        expect(second.bias("AAPL.US")).toBe(reference.bias("AAPL.US"));
        expect(second.saveState()).toEqual(reference.saveState());
      }),
      { numRuns: 25 },
    );
  });

  it("produces signals in the runs the round-trip property compares", () => {
    for (const [id, parameters] of Object.entries(ACTIVE_PARAMETERS)) {
      expect(run(Strategies.create(id, parameters), series(7)).length, id).toBeGreaterThan(4);
    }
  });

  it("saves plain JSON, with NaN warm-up values encoded", () => {
    const strategy = Strategies.create("ma_crossover", { fast_period: 2, slow_period: 4 });
    strategy.onBar(randomWalk(1, 3)[0]);
    const state = strategy.saveState();
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(state).toMatchObject({ strategy_id: "ma_crossover", version: 1, parameters: { fast_period: 2, slow_period: 4 } });
    expect((state.symbols["AAPL.US"] as Record<string, unknown>).previousSpread).toEqual({ $num: "NaN" });
  });

  it("restores the director's bias along with its indicators", () => {
    const director = Strategies.create("trend_director", ACTIVE_PARAMETERS.trend_director);
    for (const bar of randomWalk(200, 5)) director.onBar(bar);
    const copy = Strategies.create("trend_director", ACTIVE_PARAMETERS.trend_director);
    copy.restoreState(director.saveState());
    expect(copy.bias("AAPL.US")).toBe(director.bias("AAPL.US"));
  });

  it("refuses a state saved by another strategy", () => {
    const state = Strategies.create("ma_crossover").saveState();
    expect(() => Strategies.create("macd_trend").restoreState(state)).toThrowError(/belongs to strategy 'ma_crossover'/);
  });

  it("refuses a state saved with different parameters, naming them", () => {
    const state = Strategies.create("ma_crossover", { fast_period: 5 }).saveState();
    try {
      Strategies.create("ma_crossover", { fast_period: 6 }).restoreState(state);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe("STRATEGY_STATE_MISMATCH");
      expect((error as DomainError).message).toContain("fast_period");
    }
  });
});
