import { Macd } from "../indicators/macd";
import { allowShortParameter, emaSettle, requireBelow, settleOf, type StrategyDefinition, type Values, warnShortPeriod } from "./definition";
import { BaseStrategy, type Bar, type Decision, type SymbolState } from "./strategy";

interface MacdState extends SymbolState {
  macd: Macd;
  /** Histogram of the previous bar; NaN until the signal line exists. */
  previousHistogram: number;
}

/** Follows the MACD line across its signal line: long above, out (or short) below. */
export class MacdTrend extends BaseStrategy<MacdState> {
  constructor(values: Values) {
    super("macd_trend", values, macdTrend.warmup(values), settleOf(macdTrend, values));
  }

  protected createSymbolState(): MacdState {
    const { fast_period, slow_period, signal_period } = this.parameters;
    return {
      ...this.baseState(),
      macd: new Macd(fast_period as number, slow_period as number, signal_period as number),
      previousHistogram: NaN,
      indicators: { macd: NaN, signal: NaN, histogram: NaN },
    };
  }

  protected evaluate(state: MacdState, bar: Bar): Decision | undefined {
    const { macd, signal, histogram } = state.macd.update(bar.close);
    const indicators = state.indicators!;
    indicators.macd = macd;
    indicators.signal = signal;
    indicators.histogram = histogram;
    const previous = state.previousHistogram;
    state.previousHistogram = histogram;
    if (Number.isNaN(histogram) || Number.isNaN(previous)) return undefined;
    // Histogram as a share of price: 0.5% counts as full conviction.
    const strength = (Math.abs(histogram) / bar.close) * 200;
    if (previous <= 0 && histogram > 0) {
      return { stance: 1, reason: `MACD ${macd.toFixed(4)} crossed above its signal line`, strength };
    }
    if (previous >= 0 && histogram < 0) {
      return { stance: -1, reason: `MACD ${macd.toFixed(4)} crossed below its signal line`, strength };
    }
    return undefined;
  }
}

export const macdTrend: StrategyDefinition = {
  strategy_id: "macd_trend",
  display_name: "MACD Trend",
  category: "trend",
  description: "Buys when the MACD line crosses above its signal line and sells when it crosses back below. " + "Signals only on the bar of the cross.",
  risk_level: "medium",
  role: "universal",
  timeframes: ["1d", "1h", "5m", "1m"],
  parameters: [
    { name: "fast_period", type: "integer", default: 12, min: 2, max: 100, description: "Bars in the fast EMA" },
    { name: "slow_period", type: "integer", default: 26, min: 3, max: 300, description: "Bars in the slow EMA" },
    { name: "signal_period", type: "integer", default: 9, min: 2, max: 100, description: "Bars in the signal-line EMA" },
    allowShortParameter,
  ],
  risk: { preset: "default", overrides: {} },
  check(values, prefix) {
    return {
      errors: requireBelow(values, "fast_period", "slow_period", prefix),
      warnings: warnShortPeriod(values, "fast_period", 5, prefix),
    };
  },
  // MACD, signal and histogram first appear on bar slow + signal − 1; a cross needs one bar more.
  warmup: (values) => (values.slow_period as number) + (values.signal_period as number),
  // The line settles with its slow EMA (the fast one is seeded on the same bar and settles sooner); the signal EMA, fed the line, after that.
  settle: (values) => emaSettle(values.slow_period as number) + emaSettle(values.signal_period as number),
  create: (values) => new MacdTrend(values),
};
