import { Ema } from "../indicators/ema";
import { Sma } from "../indicators/sma";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, emaSettle, requireBelow, settleOf, type StrategyDefinition, type Values } from "./definition";
import { BaseStrategy, type Bar, type Decision, type Stance, type SymbolState } from "./strategy";

interface MovingAverage {
  update(value: number): number;
}

interface DirectorState extends SymbolState {
  fast: MovingAverage;
  slow: MovingAverage;
}

/**
 * Higher-timeframe regime filter. Long when the fast average is more than `band_pct` percent
 * above the slow one and price is above the slow average; short in the mirror case; flat in
 * between. The regime is re-read on every bar, so it flips back to flat as soon as the trend
 * loses either condition.
 */
export class TrendDirector extends BaseStrategy<DirectorState> {
  constructor(values: Values) {
    super("trend_director", values, trendDirector.warmup(values), settleOf(trendDirector, values));
  }

  protected createSymbolState(): DirectorState {
    const { ma_type, fast_period, slow_period } = this.parameters;
    const make = (period: number): MovingAverage => (ma_type === "sma" ? new Sma(period) : new Ema(period));
    return { ...this.baseState(), fast: make(fast_period as number), slow: make(slow_period as number), indicators: { fast_ma: NaN, slow_ma: NaN } };
  }

  protected evaluate(state: DirectorState, bar: Bar): Decision | undefined {
    const fast = state.fast.update(bar.close);
    const slow = state.slow.update(bar.close);
    state.indicators!.fast_ma = fast;
    state.indicators!.slow_ma = slow;
    if (Number.isNaN(fast) || Number.isNaN(slow)) return undefined;
    const band = this.parameters.band_pct as number;
    const spread = (fast / slow - 1) * 100;
    let stance: Stance = 0;
    if (spread > band && bar.close > slow) stance = 1;
    else if (spread < -band && bar.close < slow) stance = -1;
    if (stance === state.stance) return undefined;
    const shown = `${spread.toFixed(2)}%`;
    const reason =
      stance === 1
        ? `uptrend: fast average ${shown} above slow, close above slow average`
        : stance === -1
          ? `downtrend: fast average ${shown} below slow, close below slow average`
          : `no trend: averages ${shown} apart, inside the ${band}% band or price across the slow average`;
    // A spread of four bands counts as full conviction.
    return { stance, reason, strength: Math.abs(spread) / (4 * Math.max(band, 0.25)) };
  }
}

export const trendDirector: StrategyDefinition = {
  strategy_id: "trend_director",
  display_name: "Trend Director",
  category: "multi_timeframe",
  description:
    "Sets the market regime on a higher timeframe from two moving averages and the price: long, short or flat. " +
    "Executors on lower timeframes trade only in its direction; run alone it holds the trend.",
  risk_level: "low",
  role: "director",
  timeframes: ["1d", "1h"],
  parameters: [
    { name: "fast_period", type: "integer", default: 50, min: 2, max: 300, description: "Bars in the fast moving average" },
    { name: "slow_period", type: "integer", default: 200, min: 3, max: 500, description: "Bars in the slow moving average" },
    { name: "ma_type", type: "enum", default: "ema", options: ["sma", "ema"], description: "Simple or exponential averages" },
    { name: "band_pct", type: "number", default: 0.5, min: 0, max: 10, description: "Spread between the averages, in percent, below which the regime is flat" },
    allowShortParameter,
  ],
  risk: { preset: "conservative", overrides: {} },
  check(values, prefix) {
    const errors = requireBelow(values, "fast_period", "slow_period", prefix);
    const warnings =
      (values.band_pct as number) === 0
        ? [issue("NO_NEUTRAL_BAND", joinField(prefix, "band_pct"), "band_pct 0 leaves no flat regime; the bias will flip on every touch of the averages")]
        : [];
    return { errors, warnings };
  },
  warmup: (values) => values.slow_period as number,
  // Simple averages settle at their warm-up; exponential ones keep their seed's error longer.
  settle: (values) => (values.ma_type === "ema" ? emaSettle(values.slow_period as number) : (values.slow_period as number)),
  create: (values) => new TrendDirector(values),
};
