import { Rsi } from "../indicators/rsi";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, requireBelow, settleOf, type StrategyDefinition, type Values, warnShortPeriod, wilderSettle } from "./definition";
import { BaseStrategy, type Bar, type Decision, type SymbolState } from "./strategy";

interface RsiState extends SymbolState {
  rsi: Rsi;
}

/** Buys oversold readings, sells (or shorts) overbought ones, and leaves when RSI returns to the exit level. */
export class RsiMeanReversion extends BaseStrategy<RsiState> {
  constructor(values: Values) {
    super("rsi_mean_reversion", values, rsiMeanReversion.warmup(values), settleOf(rsiMeanReversion, values));
  }

  protected createSymbolState(): RsiState {
    return { ...this.baseState(), rsi: new Rsi(this.parameters.period as number), indicators: { rsi: NaN } };
  }

  protected evaluate(state: RsiState, bar: Bar): Decision | undefined {
    const value = state.rsi.update(bar.close);
    state.indicators!.rsi = value;
    if (Number.isNaN(value)) return undefined;
    const oversold = this.parameters.oversold as number;
    const overbought = this.parameters.overbought as number;
    const exit = this.parameters.exit_level as number;
    const shown = value.toFixed(2);
    if (value < oversold) {
      return { stance: 1, reason: `RSI ${shown} below oversold ${oversold}`, strength: 0.5 + (oversold - value) / oversold };
    }
    if (value > overbought) {
      return {
        stance: -1,
        reason: `RSI ${shown} above overbought ${overbought}`,
        strength: 0.5 + (value - overbought) / (100 - overbought),
      };
    }
    if (state.stance === 1 && value >= exit) return { stance: 0, reason: `RSI ${shown} back above exit level ${exit}` };
    if (state.stance === -1 && value <= exit) return { stance: 0, reason: `RSI ${shown} back below exit level ${exit}` };
    return undefined;
  }
}

export const rsiMeanReversion: StrategyDefinition = {
  strategy_id: "rsi_mean_reversion",
  display_name: "RSI Mean Reversion",
  category: "mean_reversion",
  description:
    "Buys when RSI falls below the oversold level and exits when it recovers to the exit level; " +
    "an overbought reading closes longs or, with shorts allowed, opens a short.",
  risk_level: "medium",
  role: "executor",
  timeframes: ["1d", "1h", "5m"],
  parameters: [
    { name: "period", type: "integer", default: 14, min: 2, max: 100, description: "RSI window in bars" },
    { name: "oversold", type: "number", default: 30, min: 5, max: 50, description: "RSI below this buys" },
    { name: "overbought", type: "number", default: 70, min: 50, max: 95, description: "RSI above this sells" },
    { name: "exit_level", type: "number", default: 50, min: 10, max: 90, description: "RSI at which an open position is closed" },
    allowShortParameter,
  ],
  risk: { preset: "default", overrides: { stop_loss_pct: 0.04, take_profit_pct: 0.06 } },
  check(values, prefix) {
    const errors = requireBelow(values, "oversold", "overbought", prefix);
    const exit = values.exit_level as number;
    if (errors.length === 0 && !(exit > (values.oversold as number) && exit < (values.overbought as number))) {
      errors.push(
        issue(
          "INVALID_PARAMETER_COMBINATION",
          joinField(prefix, "exit_level"),
          `${joinField(prefix, "exit_level")} (${exit}) must lie between oversold (${values.oversold}) and overbought (${values.overbought})`,
        ),
      );
    }
    const warnings = warnShortPeriod(values, "period", 5, prefix);
    if (errors.length === 0 && (values.overbought as number) - (values.oversold as number) < 20) {
      warnings.push(
        issue(
          "NARROW_THRESHOLDS",
          joinField(prefix, "oversold"),
          `oversold and overbought are less than 20 points apart; the strategy will trade on ordinary noise`,
        ),
      );
    }
    return { errors, warnings };
  },
  warmup: (values) => (values.period as number) + 1,
  // Wilder's smoothing keeps its seed's error long after the first value.
  settle: (values) => wilderSettle(values.period as number),
  create: (values) => new RsiMeanReversion(values),
};
