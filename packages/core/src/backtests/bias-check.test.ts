import { afterEach, describe, expect, it } from "vitest";
import { Ema } from "../indicators/ema";
import { singleStrategySetup } from "../engine/testing/setups";
import { emaSettle, type StrategyDefinition } from "../strategies/definition";
import { Strategies } from "../strategies/index";
import { BaseStrategy, type Bar, type BarColumns, type Decision, type Strategy, type SymbolState } from "../strategies/strategy";
import { randomWalk } from "../strategies/test-bars";
import { barStore, type BiasCheckPlan, checkBias, compareSeries, spread } from "./bias-check";

const SYMBOL = "AAPL.US";
const DAY_S = 86_400;

/** A plan over `bars` daily bars of a seeded walk, the strategy alone on one symbol, no risk rules. */
function planOf(strategy: string, parameters: Record<string, unknown> = {}, overrides: Partial<BiasCheckPlan> = {}): BiasCheckPlan {
  return {
    strategy_name: strategy,
    parameters,
    setup: singleStrategySetup({ symbols: [SYMBOL], strategy, parameters, execution: { sizing: { model: "cash_fraction", fraction: 0.95 } } }),
    symbols: [SYMBOL],
    timeframe: "1d",
    window: [Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 0, 1) / 1000 + 400 * DAY_S],
    cuts: 5,
    starts: 3,
    tolerance: 0.001,
    ...overrides,
  };
}

const store = (seed = 11, length = 360) => barStore({ [SYMBOL]: randomWalk(length, seed, SYMBOL) }, "1d");

interface PeekState extends SymbolState {
  next: number;
}

/**
 * Goes long when the next bar closes higher, read from the columns it is handed: the batch path
 * a backtest feeds hands over a whole stored bucket, later bars included.
 */
class Peeking extends BaseStrategy<PeekState> {
  constructor() {
    super("peeking_test", {}, 2);
  }
  protected createSymbolState(): PeekState {
    return { next: NaN, ...this.baseState(), indicators: { next_close: NaN } };
  }
  protected evaluate(): Decision | undefined {
    return undefined;
  }
  protected override evaluateColumns(state: PeekState, columns: BarColumns, from: number, to: number, decided: (index: number, d: Decision) => void) {
    for (let i = from; i < to; i++) {
      state.bars++;
      const next = i + 1 < columns.close.length ? columns.close[i + 1]! : NaN;
      state.next = next;
      state.indicators!.next_close = next;
      if (next > columns.close[i]!) decided(i, { stance: 1, reason: "the next close is higher" });
      else if (next < columns.close[i]!) decided(i, { stance: 0, reason: "the next close is lower" });
    }
  }
}

interface ShortState extends SymbolState {
  ema: Ema;
}

/**
 * An EMA(40) reported as its indicator, its warm-up the average's lookback (40 bars); its settle
 * bars `settle`, by default the warm-up: too short for it to forget its seed.
 */
class ShortWarmup extends BaseStrategy<ShortState> {
  constructor(settle = 40) {
    super("short_warmup_test", {}, 40, settle);
  }
  protected createSymbolState(): ShortState {
    return { ...this.baseState(), ema: new Ema(40), indicators: { ema: NaN } };
  }
  protected evaluate(state: ShortState, bar: Bar): Decision | undefined {
    const value = state.ema.update(bar.close);
    state.indicators!.ema = value;
    if (Number.isNaN(value)) return undefined;
    return { stance: bar.close > value ? 1 : 0, reason: "close against EMA(40)" };
  }
}

const definitionOf = (id: string, create: () => Strategy, warmup: number): StrategyDefinition => ({
  strategy_id: id,
  display_name: id,
  category: "trend",
  description: "test strategy",
  risk_level: "low",
  role: "universal",
  timeframes: ["1d"],
  parameters: [],
  risk: { preset: "default", overrides: {} },
  check: () => ({ errors: [], warnings: [] }),
  warmup: () => warmup,
  create: () => create(),
});

let unregister: (() => void)[] = [];
afterEach(() => {
  for (const remove of unregister) remove();
  unregister = [];
});

describe("bias checks", () => {
  it("spreads points evenly and once each", () => {
    expect(spread(10, 100, 4)).toEqual([28, 46, 64, 82]);
    expect(spread(5, 6, 5)).toEqual([5, 6]);
    expect(spread(10, 5, 3)).toEqual([]);
  });

  it("compares an indicator relative to its mean size, from the bar given", () => {
    expect(compareSeries([100, 100, 100, 100], [null, 90, 100.05, 100], 2, 0.001)).toBeNull();
    expect(compareSeries([100, 100, 100, 100], [null, 90, 100.5, 100], 1, 0.001)).toEqual({ first: 1, last: 2, max: 0.1 });
    expect(compareSeries([1, 1, 1], [1, null, 1], 0, 0.001)).toEqual({ first: 1, last: 1, max: Infinity });
  });

  it("passes every catalog strategy's look-ahead check with its default parameters", async () => {
    for (const name of Strategies.ids()) {
      const report = await checkBias(store(), planOf(name));
      expect(report.cuts, name).toHaveLength(5);
      expect(report.lookahead.findings, name).toEqual([]);
    }
  });

  it("passes every catalog strategy's recursive check with its default parameters, compared after its declared settle bars", async () => {
    // Settle bars by strategy: the warm-up for moving windows; EMA(p) p + ceil(3.5 (p + 1)); Wilder's (p) 9p + 1.
    const settle: Record<string, number> = {
      ma_crossover: 31,
      rsi_mean_reversion: 127,
      bollinger_breakout: 20,
      macd_trend: 121 + 44,
      donchian_breakout: 21,
      momentum: 21,
      trend_director: 904,
      pullback_executor: 229,
      ema_trend: 229,
    };
    expect(Object.keys(settle).sort()).toEqual([...Strategies.ids()].sort());
    const long = store(11, 1200);
    for (const name of Strategies.ids()) {
      const report = await checkBias(long, planOf(name, {}, { window: [Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 0, 1) / 1000 + 1300 * DAY_S], cuts: 1 }));
      expect(report.settle_bars, name).toBe(settle[name]);
      expect(report.settle_bars, name).toBeGreaterThanOrEqual(report.warmup_bars);
      // Fresh starts were made and compared: the pass is not for want of bars.
      expect(report.starts[SYMBOL], name).toHaveLength(3);
      expect(report.recursive.findings, name).toEqual([]);
      expect(report.passed, name).toBe(true);
    }
  });

  it("measures the exponential and Wilder-smoothed indicators settling after their first signal's warm-up and within their declared settle bars", async () => {
    const long = store(11, 1200);
    for (const name of ["rsi_mean_reversion", "macd_trend", "ema_trend", "trend_director", "pullback_executor"]) {
      const declared = Strategies.settleBars(name);
      // The same strategy, declaring its first signal's warm-up as its settle bars.
      const probe = `${name}_probe_test`;
      unregister.push(
        Strategies.register(definitionOf(probe, () => Object.defineProperty(Strategies.create(name), "settleBars", { value: Strategies.warmupBars(name) }), 1)),
      );
      const report = await checkBias(long, planOf(probe, {}, { window: [Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 0, 1) / 1000 + 1300 * DAY_S], cuts: 1 }));
      expect(report.lookahead.passed, name).toBe(true);
      expect(report.recursive.passed, name).toBe(false);
      const measured = report.recursive.findings.filter((f) => f.bars_needed !== null).map((f) => f.bars_needed!);
      expect(measured.length, name).toBeGreaterThan(0);
      for (const finding of report.recursive.findings) {
        expect(finding.bars_after_start, name).toBe(report.warmup_bars);
        expect(finding.max_relative_difference, name).toBeGreaterThan(0.001);
      }
      // Past the warm-up, within the declared figure with room to spare.
      expect(Math.min(...measured), name).toBeGreaterThan(report.warmup_bars);
      expect(Math.max(...measured), name).toBeLessThan(declared * 0.95);
    }
  });

  it("catches a strategy that reads the next bar, at the bar of each cut, in its signals, its indicator and its orders", async () => {
    unregister.push(Strategies.register(definitionOf("peeking_test", () => new Peeking(), 2)));
    const report = await checkBias(store(), planOf("peeking_test"));
    expect(report.passed).toBe(false);
    expect(report.lookahead.passed).toBe(false);
    for (const cut of report.cuts) {
      const at = report.lookahead.findings.filter((f) => f.cut_at === cut);
      const indicator = at.find((f) => f.kind === "indicator")!;
      expect(indicator.bar_time).toBe(cut);
      expect(indicator.field).toBe("next");
      expect(typeof indicator.full_value).toBe("number");
      expect(indicator.cut_value).toBe("NaN");
    }
    const signals = report.lookahead.findings.filter((f) => f.kind === "signal");
    const orders = report.lookahead.findings.filter((f) => f.kind === "order");
    expect(signals.length).toBeGreaterThan(0);
    expect(orders.length).toBeGreaterThan(0);
    for (const finding of [...signals, ...orders]) expect(finding.bar_time >= finding.cut_at).toBe(true);
    expect(signals[0]!.bar_time).toBe(signals[0]!.cut_at);
  });

  it("reports an indicator whose declared settle bars are too short, with the bars it needs; declared right, it passes", async () => {
    unregister.push(Strategies.register(definitionOf("short_warmup_test", () => new ShortWarmup(), 40)));
    const report = await checkBias(store(), planOf("short_warmup_test"));
    expect(report.lookahead.passed).toBe(true);
    expect(report.recursive.passed).toBe(false);
    expect(report.starts[SYMBOL]).toHaveLength(3);
    for (const finding of report.recursive.findings) {
      expect(finding.indicator).toBe("ema");
      expect(finding.bars_after_start).toBe(40);
      expect(finding.full_value).not.toBe(finding.value);
      expect(finding.bars_needed === null || finding.bars_needed > 40).toBe(true);
    }
    // The first start has the range's rest to agree in; the last may still differ at the range's end (null).
    expect(report.recursive.findings[0]!.bars_needed).toBeGreaterThan(40);
    // A tolerance the seed's error is within after the warm-up reports nothing.
    const loose = await checkBias(store(), planOf("short_warmup_test", {}, { tolerance: 1 }));
    expect(loose.recursive.findings).toEqual([]);
    // Declaring an EMA's settle bars (40 + ceil(3.5 · 41) = 184) passes it at the default tolerance.
    unregister.pop()!();
    unregister.push(Strategies.register(definitionOf("short_warmup_test", () => new ShortWarmup(emaSettle(40)), 40)));
    const settled = await checkBias(store(), planOf("short_warmup_test"));
    expect(settled.settle_bars).toBe(184);
    expect(settled.starts[SYMBOL]).toHaveLength(3);
    expect(settled.recursive.findings).toEqual([]);
  });

  it("takes a registered strategy away again", () => {
    const remove = Strategies.register(definitionOf("gone_test", () => new ShortWarmup(), 40));
    expect(Strategies.exists("gone_test")).toBe(true);
    expect(Strategies.ids()).not.toContain("gone_test");
    remove();
    expect(Strategies.exists("gone_test")).toBe(false);
  });
});
