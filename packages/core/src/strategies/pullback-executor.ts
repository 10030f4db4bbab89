import { Ema } from "../indicators/ema";
import { Rsi } from "../indicators/rsi";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, emaSettle, requireBelow, settleOf, type StrategyDefinition, type Values, warnShortPeriod, wilderSettle } from "./definition";
import { BaseStrategy, type Bar, type BarContext, type Bias, type Decision, type SymbolState } from "./strategy";

interface PullbackState extends SymbolState {
  rsi: Rsi;
  trend: Ema;
}

/**
 * Lower-timeframe entries in the direction of the trend: in an uptrend it buys when RSI dips
 * below `pullback_level` and takes profit when RSI reaches `exit_level`; in a downtrend the
 * mirror (short below 100 − pullback, cover at 100 − exit). The trend is the director's bias
 * when one is given, otherwise the close against its own EMA. A position is closed as soon as
 * the trend no longer agrees with it.
 */
export class PullbackExecutor extends BaseStrategy<PullbackState> {
  constructor(values: Values) {
    super("pullback_executor", values, pullbackExecutor.warmup(values), settleOf(pullbackExecutor, values));
  }

  protected createSymbolState(): PullbackState {
    return {
      ...this.baseState(),
      rsi: new Rsi(this.parameters.rsi_period as number),
      trend: new Ema(this.parameters.trend_period as number),
      indicators: { rsi: NaN, trend_ema: NaN },
    };
  }

  protected evaluate(state: PullbackState, bar: Bar, context: BarContext): Decision | undefined {
    const value = state.rsi.update(bar.close);
    const average = state.trend.update(bar.close);
    state.indicators!.rsi = value;
    state.indicators!.trend_ema = average;
    let trend: Bias | undefined = context.bias;
    if (!trend && !Number.isNaN(average)) trend = bar.close > average ? "long" : bar.close < average ? "short" : "flat";
    if (Number.isNaN(value) || !trend) return undefined;
    const source = context.bias ? "director bias" : `close against EMA(${this.parameters.trend_period})`;
    if (state.stance === 1 && trend !== "long") return { stance: 0, reason: `trend turned ${trend} (${source})` };
    if (state.stance === -1 && trend !== "short") return { stance: 0, reason: `trend turned ${trend} (${source})` };
    const pullback = this.parameters.pullback_level as number;
    const exit = this.parameters.exit_level as number;
    const shown = value.toFixed(2);
    if (trend === "long") {
      if (state.stance === 0 && value < pullback) {
        return { stance: 1, reason: `pullback in uptrend: RSI ${shown} below ${pullback} (${source})`, strength: 0.5 + (pullback - value) / pullback };
      }
      if (state.stance === 1 && value >= exit) return { stance: 0, reason: `RSI ${shown} reached exit level ${exit}` };
    }
    if (trend === "short") {
      if (state.stance === 0 && value > 100 - pullback) {
        return {
          stance: -1,
          reason: `rally in downtrend: RSI ${shown} above ${100 - pullback} (${source})`,
          strength: 0.5 + (value - (100 - pullback)) / pullback,
        };
      }
      if (state.stance === -1 && value <= 100 - exit) return { stance: 0, reason: `RSI ${shown} reached exit level ${100 - exit}` };
    }
    return undefined;
  }
}

export const pullbackExecutor: StrategyDefinition = {
  strategy_id: "pullback_executor",
  display_name: "Pullback Executor",
  category: "multi_timeframe",
  description:
    "Enters on lower-timeframe pullbacks in the direction of the higher-timeframe trend set by a director " +
    "(or, alone, by its own EMA), exits on RSI recovery or when the trend turns.",
  risk_level: "medium",
  role: "executor",
  timeframes: ["5m", "1h", "1m"],
  parameters: [
    { name: "rsi_period", type: "integer", default: 14, min: 2, max: 50, description: "RSI window in bars" },
    {
      name: "pullback_level",
      type: "number",
      default: 40,
      min: 5,
      max: 50,
      description: "RSI below which an uptrend pullback is bought (mirrored for downtrends)",
    },
    { name: "exit_level", type: "number", default: 65, min: 50, max: 95, description: "RSI at which a long is closed (mirrored for shorts)" },
    { name: "trend_period", type: "integer", default: 50, min: 5, max: 300, description: "EMA that defines the trend when no director bias is given" },
    allowShortParameter,
  ],
  risk: { preset: "default", overrides: { stop_loss_pct: 0.03, take_profit_pct: 0.06 } },
  check(values, prefix) {
    const errors = requireBelow(values, "pullback_level", "exit_level", prefix);
    const warnings = warnShortPeriod(values, "rsi_period", 5, prefix);
    if ((values.pullback_level as number) < 20) {
      warnings.push(
        issue(
          "RARE_ENTRIES",
          joinField(prefix, "pullback_level"),
          `pullback_level ${values.pullback_level} is rarely reached inside a trend; expect few trades`,
        ),
      );
    }
    return { errors, warnings };
  },
  warmup: (values) => Math.max((values.rsi_period as number) + 1, values.trend_period as number),
  settle: (values) => Math.max(wilderSettle(values.rsi_period as number), emaSettle(values.trend_period as number)),
  create: (values) => new PullbackExecutor(values),
};
