import { Execution, type EngineSetup } from "../setup";
import { exitsOf, limitsOf, defaults as riskDefaults } from "../../risk/risk";
import { marketOf, Markets } from "../../market/market";
import type { Timeframe } from "../../strategies/definition";

/** Test factory: a one-channel, one-strategy setup with the given overrides. */
export function singleStrategySetup(options: {
  symbols: string[];
  strategy?: string;
  parameters?: Record<string, unknown>;
  capital?: string;
  execution?: Partial<Execution>;
  risk?: EngineSetup["risk"];
  lots?: Record<string, number>;
  session_id?: string;
  timeframe?: Timeframe;
  /** The broker model's fee schedule (none: the broker model charges nothing). */
  fees?: EngineSetup["fees"];
}): EngineSetup {
  const currency = Markets[marketOf(options.symbols[0])].currency;
  const risk = options.risk === undefined ? null : options.risk;
  return {
    session_id: options.session_id ?? "s1",
    base_currency: currency,
    capital: { [currency]: options.capital ?? "100000" },
    fx: {},
    channels: [
      {
        channel_id: "main",
        channel_type: "BALANCED",
        capital_allocation: 1,
        strategies: [
          {
            strategy_name: options.strategy ?? "ma_crossover",
            parameters: options.parameters ?? { fast_period: 10, slow_period: 30 },
            weight: 1,
            symbols: options.symbols,
            timeframe: options.timeframe ?? "1d",
          },
        ],
        limits: limitsOf(risk ?? riskDefaults()),
      },
    ],
    execution: Execution.parse(options.execution ?? {}),
    risk,
    ...(risk ? { exits: exitsOf(risk) } : {}),
    lots: options.lots ?? {},
    fees: options.fees ?? null,
    trading_days_per_year: 252,
  };
}
