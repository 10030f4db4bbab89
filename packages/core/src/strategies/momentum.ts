import { Roc } from "../indicators/roc";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, type StrategyDefinition, type Values, warnShortPeriod } from "./definition";
import { BaseStrategy, type Bar, type Decision, type SymbolState } from "./strategy";

interface MomentumState extends SymbolState {
  roc: Roc;
}

/** Rides strong rates of change: enters past the entry threshold, exits when momentum fades below the exit threshold. */
export class Momentum extends BaseStrategy<MomentumState> {
  constructor(values: Values) {
    super("momentum", values, momentum.warmup(values));
  }

  protected createSymbolState(): MomentumState {
    return { ...this.baseState(), roc: new Roc(this.parameters.lookback_period as number), indicators: { roc: NaN } };
  }

  protected evaluate(state: MomentumState, bar: Bar): Decision | undefined {
    const change = state.roc.update(bar.close);
    state.indicators!.roc = change;
    if (Number.isNaN(change)) return undefined;
    const entry = this.parameters.entry_threshold as number;
    const exit = this.parameters.exit_threshold as number;
    const lookback = this.parameters.lookback_period as number;
    const shown = `${change.toFixed(2)}%`;
    if (change > entry) {
      return { stance: 1, reason: `${lookback}-bar rate of change ${shown} above +${entry}%`, strength: change / (2 * entry) };
    }
    if (change < -entry) {
      return { stance: -1, reason: `${lookback}-bar rate of change ${shown} below -${entry}%`, strength: -change / (2 * entry) };
    }
    if (state.stance === 1 && change < exit) return { stance: 0, reason: `${lookback}-bar rate of change ${shown} fell below ${exit}%` };
    if (state.stance === -1 && change > -exit) return { stance: 0, reason: `${lookback}-bar rate of change ${shown} rose above ${-exit}%` };
    return undefined;
  }
}

export const momentum: StrategyDefinition = {
  strategy_id: "momentum",
  display_name: "Momentum",
  category: "momentum",
  description:
    "Buys when the rate of change over lookback_period bars exceeds entry_threshold percent and exits when it " +
    "drops below exit_threshold; falling momentum past -entry_threshold closes longs or opens a short.",
  risk_level: "high",
  role: "universal",
  timeframes: ["1d", "1h", "5m"],
  parameters: [
    { name: "lookback_period", type: "integer", default: 20, min: 2, max: 250, description: "Bars over which the rate of change is measured" },
    { name: "entry_threshold", type: "number", default: 5, min: 0.1, max: 100, description: "Rate of change in percent that opens a position" },
    {
      name: "exit_threshold",
      type: "number",
      default: 0,
      min: -50,
      max: 50,
      description: "Rate of change in percent below which a long closes (above its negative a short closes)",
    },
    allowShortParameter,
  ],
  risk: { preset: "aggressive", overrides: {} },
  check(values, prefix) {
    const errors =
      (values.exit_threshold as number) < (values.entry_threshold as number)
        ? []
        : [
            issue(
              "INVALID_PARAMETER_COMBINATION",
              joinField(prefix, "exit_threshold"),
              `${joinField(prefix, "exit_threshold")} (${values.exit_threshold}) must be less than entry_threshold (${values.entry_threshold})`,
            ),
          ];
    const warnings = warnShortPeriod(values, "lookback_period", 5, prefix);
    if ((values.entry_threshold as number) < 1) {
      warnings.push(
        issue(
          "LOW_THRESHOLD",
          joinField(prefix, "entry_threshold"),
          `entry_threshold ${values.entry_threshold}% is within ordinary noise; expect frequent whipsaws`,
        ),
      );
    }
    return { errors, warnings };
  },
  warmup: (values) => (values.lookback_period as number) + 1,
  create: (values) => new Momentum(values),
};
