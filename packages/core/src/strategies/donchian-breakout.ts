import { DonchianChannels } from "../indicators/donchian-channels";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, type StrategyDefinition, type Values, warnShortPeriod } from "./definition";
import { BaseStrategy, type Bar, type Decision, type SymbolState } from "./strategy";

interface DonchianState extends SymbolState {
  entry: DonchianChannels;
  exit: DonchianChannels;
  /** Channels of the bars before the current one; NaN until ready. */
  entryUpper: number;
  entryLower: number;
  exitUpper: number;
  exitLower: number;
}

/**
 * Turtle-style breakout: a close beyond the highest high (lowest low) of the previous
 * `entry_period` bars enters; a close beyond the opposite extreme of the previous
 * `exit_period` bars exits. The current bar is compared with channels that end the bar
 * before, since a channel that includes the bar can never be broken by its close.
 */
export class DonchianBreakout extends BaseStrategy<DonchianState> {
  constructor(values: Values) {
    super("donchian_breakout", values, donchianBreakout.warmup(values));
  }

  protected createSymbolState(): DonchianState {
    return {
      ...this.baseState(),
      entry: new DonchianChannels(this.parameters.entry_period as number),
      exit: new DonchianChannels(this.parameters.exit_period as number),
      entryUpper: NaN,
      entryLower: NaN,
      exitUpper: NaN,
      exitLower: NaN,
      indicators: { entry_upper: NaN, entry_lower: NaN, exit_upper: NaN, exit_lower: NaN },
    };
  }

  protected evaluate(state: DonchianState, bar: Bar): Decision | undefined {
    const { entryUpper, entryLower, exitUpper, exitLower } = state;
    const entry = state.entry.update(bar.high, bar.low);
    const exit = state.exit.update(bar.high, bar.low);
    state.entryUpper = entry.upper;
    state.entryLower = entry.lower;
    state.exitUpper = exit.upper;
    state.exitLower = exit.lower;
    const indicators = state.indicators!;
    indicators.entry_upper = entry.upper;
    indicators.entry_lower = entry.lower;
    indicators.exit_upper = exit.upper;
    indicators.exit_lower = exit.lower;
    if (Number.isNaN(entryUpper) || Number.isNaN(exitUpper)) return undefined;
    const { entry_period, exit_period } = this.parameters;
    const range = entryUpper - entryLower || 1;
    if (bar.close > entryUpper) {
      return { stance: 1, reason: `close ${bar.close} above the ${entry_period}-bar high ${entryUpper}`, strength: 0.5 + (bar.close - entryUpper) / range };
    }
    if (bar.close < entryLower) {
      return { stance: -1, reason: `close ${bar.close} below the ${entry_period}-bar low ${entryLower}`, strength: 0.5 + (entryLower - bar.close) / range };
    }
    if (state.stance === 1 && bar.close < exitLower) {
      return { stance: 0, reason: `close ${bar.close} below the ${exit_period}-bar low ${exitLower}` };
    }
    if (state.stance === -1 && bar.close > exitUpper) {
      return { stance: 0, reason: `close ${bar.close} above the ${exit_period}-bar high ${exitUpper}` };
    }
    return undefined;
  }
}

export const donchianBreakout: StrategyDefinition = {
  strategy_id: "donchian_breakout",
  display_name: "Donchian Channel Breakout",
  category: "breakout",
  description:
    "Buys a close above the highest high of the previous entry_period bars and exits on a close below " +
    "the lowest low of the previous exit_period bars (the Turtle rules); the mirror image for shorts.",
  risk_level: "medium",
  role: "executor",
  timeframes: ["1d", "1h"],
  parameters: [
    { name: "entry_period", type: "integer", default: 20, min: 2, max: 300, description: "Bars whose high (low) a close must break to enter" },
    { name: "exit_period", type: "integer", default: 10, min: 2, max: 300, description: "Bars whose low (high) a close must break to exit" },
    allowShortParameter,
  ],
  risk: { preset: "default", overrides: { trailing_stop_pct: 0.1, take_profit_pct: 0.2 } },
  check(values, prefix) {
    const warnings = warnShortPeriod(values, "entry_period", 10, prefix);
    if ((values.exit_period as number) > (values.entry_period as number)) {
      warnings.push(
        issue(
          "EXIT_SLOWER_THAN_ENTRY",
          joinField(prefix, "exit_period"),
          `exit_period ${values.exit_period} is longer than entry_period ${values.entry_period}; exits will lag far behind entries`,
        ),
      );
    }
    return { errors: [], warnings };
  },
  // The channels of the previous bar exist from bar `period` on, so the first test is one bar later.
  warmup: (values) => Math.max(values.entry_period as number, values.exit_period as number) + 1,
  create: (values) => new DonchianBreakout(values),
};
