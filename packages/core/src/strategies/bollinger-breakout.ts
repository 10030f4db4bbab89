import { BollingerBands } from "../indicators/bollinger-bands";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, type StrategyDefinition, type Values, warnShortPeriod } from "./definition";
import { BaseStrategy, type Bar, type Decision, type SymbolState } from "./strategy";

interface BollingerState extends SymbolState {
  bands: BollingerBands;
}

/** Buys a close above the upper band, sells (or shorts) one below the lower band, exits at the middle band. */
export class BollingerBreakout extends BaseStrategy<BollingerState> {
  constructor(values: Values) {
    super("bollinger_breakout", values, bollingerBreakout.warmup(values));
  }

  protected createSymbolState(): BollingerState {
    return {
      ...this.baseState(),
      bands: new BollingerBands(this.parameters.period as number, this.parameters.std_dev as number),
      indicators: { upper: NaN, middle: NaN, lower: NaN },
    };
  }

  protected evaluate(state: BollingerState, bar: Bar): Decision | undefined {
    const { upper, middle, lower } = state.bands.update(bar.close);
    const indicators = state.indicators!;
    indicators.upper = upper;
    indicators.middle = middle;
    indicators.lower = lower;
    if (Number.isNaN(middle)) return undefined;
    const halfWidth = (upper - lower) / 2;
    if (bar.close > upper) {
      return { stance: 1, reason: `close ${bar.close} above upper band ${upper.toFixed(4)}`, strength: 0.5 + (bar.close - upper) / halfWidth };
    }
    if (bar.close < lower) {
      return { stance: -1, reason: `close ${bar.close} below lower band ${lower.toFixed(4)}`, strength: 0.5 + (lower - bar.close) / halfWidth };
    }
    if (state.stance === 1 && bar.close < middle) return { stance: 0, reason: `close ${bar.close} back below middle band ${middle.toFixed(4)}` };
    if (state.stance === -1 && bar.close > middle) return { stance: 0, reason: `close ${bar.close} back above middle band ${middle.toFixed(4)}` };
    return undefined;
  }
}

export const bollingerBreakout: StrategyDefinition = {
  strategy_id: "bollinger_breakout",
  display_name: "Bollinger Band Breakout",
  category: "breakout",
  description:
    "Buys when the close breaks above the upper Bollinger band and holds until it falls back below the middle band; " +
    "a break below the lower band closes longs or, with shorts allowed, opens a short.",
  risk_level: "high",
  role: "executor",
  timeframes: ["1d", "1h", "5m"],
  parameters: [
    { name: "period", type: "integer", default: 20, min: 5, max: 200, description: "Bars in the moving average and standard deviation" },
    { name: "std_dev", type: "number", default: 2, min: 0.5, max: 5, description: "Band distance from the average, in standard deviations" },
    allowShortParameter,
  ],
  risk: { preset: "aggressive", overrides: {} },
  check(values, prefix) {
    const warnings = warnShortPeriod(values, "period", 10, prefix);
    const width = values.std_dev as number;
    if (width < 1.5) {
      warnings.push(issue("NARROW_BANDS", joinField(prefix, "std_dev"), `std_dev ${width} puts the bands close to price; many breakouts will be false`));
    }
    return { errors: [], warnings };
  },
  warmup: (values) => values.period as number,
  create: (values) => new BollingerBreakout(values),
};
