import { Ema } from "../indicators/ema";
import { Sma } from "../indicators/sma";
import { allowShortParameter, emaSettle, requireBelow, settleOf, type StrategyDefinition, type Values, warnShortPeriod } from "./definition";
import { issue, joinField } from "../risk/config-issue";
import { BaseStrategy, type Bar, type BarColumns, type Decision, type SymbolState } from "./strategy";

interface MovingAverage {
  update(value: number): number;
}

interface CrossoverState extends SymbolState {
  fast: MovingAverage;
  slow: MovingAverage;
  /** fast − slow on the previous bar; NaN until both averages are ready. */
  previousSpread: number;
}

const average = (type: unknown, period: number): MovingAverage => (type === "ema" ? new Ema(period) : new Sma(period));

/** Goes long when the fast average crosses above the slow one and leaves (or shorts) on the cross back. */
export class MaCrossover extends BaseStrategy<CrossoverState> {
  constructor(values: Values) {
    super("ma_crossover", values, maCrossover.warmup(values), settleOf(maCrossover, values));
  }

  protected createSymbolState(): CrossoverState {
    const { ma_type, fast_period, slow_period } = this.parameters;
    return {
      ...this.baseState(),
      fast: average(ma_type, fast_period as number),
      slow: average(ma_type, slow_period as number),
      previousSpread: NaN,
      indicators: { fast_ma: NaN, slow_ma: NaN },
    };
  }

  protected evaluate(state: CrossoverState, bar: Bar): Decision | undefined {
    const fast = state.fast.update(bar.close);
    const slow = state.slow.update(bar.close);
    state.indicators!.fast_ma = fast;
    state.indicators!.slow_ma = slow;
    const spread = fast - slow;
    const previous = state.previousSpread;
    state.previousSpread = spread;
    if (Number.isNaN(spread) || Number.isNaN(previous)) return undefined;
    // Two percent of separation counts as full conviction. Texts are built only on a cross: the bar path allocates nothing.
    if (previous <= 0 && spread > 0) return { stance: 1, reason: this.describe("above"), strength: Math.abs(spread / slow) * 50 };
    if (previous >= 0 && spread < 0) return { stance: -1, reason: this.describe("below"), strength: Math.abs(spread / slow) * 50 };
    return undefined;
  }

  /** `evaluate` over columns in one tight loop: the same updates in the same order, so the same decisions bit for bit. */
  protected override evaluateColumns(
    state: CrossoverState,
    columns: BarColumns,
    from: number,
    to: number,
    decided: (index: number, decision: Decision) => void,
  ): void {
    const close = columns.close;
    const fastAverage = state.fast;
    const slowAverage = state.slow;
    let previous = state.previousSpread;
    let fast = NaN;
    let slow = NaN;
    for (let i = from; i < to; i++) {
      const value = close[i];
      fast = fastAverage.update(value);
      slow = slowAverage.update(value);
      const spread = fast - slow;
      if (!Number.isNaN(previous) && !Number.isNaN(spread)) {
        if (previous <= 0 && spread > 0) decided(i, { stance: 1, reason: this.describe("above"), strength: Math.abs(spread / slow) * 50 });
        else if (previous >= 0 && spread < 0) decided(i, { stance: -1, reason: this.describe("below"), strength: Math.abs(spread / slow) * 50 });
      }
      previous = spread;
    }
    state.previousSpread = previous;
    if (to > from) {
      state.indicators!.fast_ma = fast;
      state.indicators!.slow_ma = slow;
    }
    state.bars += to - from;
  }

  /** The two texts a cross can give, built on the first cross (parameters never change). */
  private texts: Record<"above" | "below", string> | null = null;

  private describe(direction: "above" | "below"): string {
    if (this.texts === null) {
      const name = String(this.parameters.ma_type).toUpperCase();
      const text = (side: string) => `${name}(${this.parameters.fast_period}) crossed ${side} ${name}(${this.parameters.slow_period})`;
      this.texts = { above: text("above"), below: text("below") };
    }
    return this.texts[direction];
  }
}

export const maCrossover: StrategyDefinition = {
  strategy_id: "ma_crossover",
  display_name: "Moving Average Crossover",
  category: "trend",
  description: "Buys when the fast moving average crosses above the slow one and sells when it crosses back below. " + "Signals only on the bar of the cross.",
  risk_level: "medium",
  role: "universal",
  timeframes: ["1d", "1h", "5m", "1m"],
  parameters: [
    { name: "fast_period", type: "integer", default: 10, min: 2, max: 200, description: "Bars in the fast moving average" },
    { name: "slow_period", type: "integer", default: 30, min: 3, max: 500, description: "Bars in the slow moving average" },
    { name: "ma_type", type: "enum", default: "sma", options: ["sma", "ema"], description: "Simple or exponential averages" },
    allowShortParameter,
  ],
  risk: { preset: "default", overrides: {} },
  check(values, prefix) {
    const errors = requireBelow(values, "fast_period", "slow_period", prefix);
    const warnings = warnShortPeriod(values, "fast_period", 5, prefix);
    const ratio = (values.slow_period as number) / (values.fast_period as number);
    if (errors.length === 0 && ratio < 1.5) {
      warnings.push(
        issue(
          "PERIODS_TOO_CLOSE",
          joinField(prefix, "slow_period"),
          `slow_period is only ${ratio.toFixed(2)}x fast_period; the averages will cross back and forth often`,
        ),
      );
    }
    return { errors, warnings };
  },
  // The slow average is first defined on bar slow_period; a cross needs the bar before too.
  warmup: (values) => (values.slow_period as number) + 1,
  // Simple averages settle at their warm-up; exponential ones keep their seed's error longer.
  settle: (values) => (values.ma_type === "ema" ? emaSettle(values.slow_period as number) : (values.slow_period as number) + 1),
  create: (values) => new MaCrossover(values),
};
