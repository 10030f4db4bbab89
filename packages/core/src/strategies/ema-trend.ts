import { Atr } from "../indicators/atr";
import { Ema } from "../indicators/ema";
import { issue, joinField } from "../risk/config-issue";
import { allowShortParameter, emaSettle, requireBelow, settleOf, type StrategyDefinition, type Values, wilderSettle } from "./definition";
import { BaseStrategy, type Bar, type Decision, type SymbolState } from "./strategy";

interface EmaTrendState extends SymbolState {
  fast: Ema;
  slow: Ema;
  atr: Atr;
  previousSpread: number;
  /** Best close since the position opened (highest for longs, lowest for shorts); NaN when flat. */
  extreme: number;
}

/**
 * EMA crossover with an ATR trailing stop (a chandelier exit). Usable in both roles: as a
 * director its stance is the bias; as an executor it enters on the cross only in the
 * director's direction.
 */
export class EmaTrend extends BaseStrategy<EmaTrendState> {
  constructor(values: Values) {
    super("ema_trend", values, emaTrend.warmup(values), settleOf(emaTrend, values));
  }

  protected createSymbolState(): EmaTrendState {
    const { fast_period, slow_period, atr_period } = this.parameters;
    return {
      ...this.baseState(),
      fast: new Ema(fast_period as number),
      slow: new Ema(slow_period as number),
      atr: new Atr(atr_period as number),
      previousSpread: NaN,
      extreme: NaN,
      indicators: { fast_ema: NaN, slow_ema: NaN, atr: NaN },
    };
  }

  protected evaluate(state: EmaTrendState, bar: Bar): Decision | undefined {
    const fast = state.fast.update(bar.close);
    const slow = state.slow.update(bar.close);
    const range = state.atr.update(bar.high, bar.low, bar.close);
    const indicators = state.indicators!;
    indicators.fast_ema = fast;
    indicators.slow_ema = slow;
    indicators.atr = range;
    const spread = fast - slow;
    const previous = state.previousSpread;
    state.previousSpread = spread;
    if (Number.isNaN(spread) || Number.isNaN(previous) || Number.isNaN(range)) return undefined;
    const { fast_period, slow_period } = this.parameters;
    const multiple = this.parameters.atr_multiple as number;
    const strength = Math.abs(spread / slow) * 50;
    if (previous <= 0 && spread > 0) {
      state.extreme = bar.close;
      return { stance: 1, reason: `EMA(${fast_period}) crossed above EMA(${slow_period})`, strength };
    }
    if (previous >= 0 && spread < 0) {
      state.extreme = bar.close;
      return { stance: -1, reason: `EMA(${fast_period}) crossed below EMA(${slow_period})`, strength };
    }
    if (state.stance === 1) {
      state.extreme = Math.max(state.extreme, bar.close);
      const stop = state.extreme - multiple * range;
      if (bar.close < stop) {
        state.extreme = NaN;
        return { stance: 0, reason: `trailing stop: close ${bar.close} below ${stop.toFixed(4)} (${multiple} ATR under the high close)` };
      }
    }
    if (state.stance === -1) {
      state.extreme = Math.min(state.extreme, bar.close);
      const stop = state.extreme + multiple * range;
      if (bar.close > stop) {
        state.extreme = NaN;
        return { stance: 0, reason: `trailing stop: close ${bar.close} above ${stop.toFixed(4)} (${multiple} ATR over the low close)` };
      }
    }
    return undefined;
  }
}

export const emaTrend: StrategyDefinition = {
  strategy_id: "ema_trend",
  display_name: "EMA Trend with ATR Stop",
  category: "trend",
  description:
    "Enters on a crossover of two EMAs and trails an ATR-based stop behind the best close. Works as a director " +
    "(its position is the bias) and as an executor (it takes only crossovers in the director's direction).",
  risk_level: "medium",
  role: "universal",
  timeframes: ["1h", "1d", "5m", "1m"],
  parameters: [
    { name: "fast_period", type: "integer", default: 20, min: 2, max: 200, description: "Bars in the fast EMA" },
    { name: "slow_period", type: "integer", default: 50, min: 3, max: 500, description: "Bars in the slow EMA" },
    { name: "atr_period", type: "integer", default: 14, min: 2, max: 100, description: "Bars in the ATR that scales the trailing stop" },
    { name: "atr_multiple", type: "number", default: 3, min: 0.5, max: 10, description: "Trailing stop distance in ATRs" },
    allowShortParameter,
  ],
  risk: { preset: "default", overrides: { trailing_stop_pct: 0.08, take_profit_pct: 0.2 } },
  check(values, prefix) {
    const errors = requireBelow(values, "fast_period", "slow_period", prefix);
    const warnings =
      (values.atr_multiple as number) < 1.5
        ? [issue("TIGHT_STOP", joinField(prefix, "atr_multiple"), `atr_multiple ${values.atr_multiple} stops out on ordinary volatility`)]
        : [];
    return { errors, warnings };
  },
  // A cross needs the slow EMA on the bar before; the ATR is first defined on bar atr_period + 1.
  warmup: (values) => Math.max((values.slow_period as number) + 1, (values.atr_period as number) + 1),
  settle: (values) => Math.max(emaSettle(values.fast_period as number), emaSettle(values.slow_period as number), wilderSettle(values.atr_period as number)),
  create: (values) => new EmaTrend(values),
};
