import { Execution, type EngineSetup } from "../setup";
import { defaults as riskDefaults, limitsOf } from "../../risk/risk";
import { randomWalk } from "../../strategies/test-bars";
import type { Bar } from "../../strategies/strategy";

/**
 * Test factory: a two-channel session over two US symbols with the default risk rules, broker
 * fees and a halting drawdown limit on the aggressive channel, so a run exercises entries, exits,
 * denials, fees, halts and day rollovers.
 */
export function twoChannelSetup(fees: EngineSetup["fees"], sessionId = "s-two"): EngineSetup {
  const risk = { ...riskDefaults(), max_position_size: 0.5, max_open_positions: 2, max_daily_trades: 3 };
  return {
    session_id: sessionId,
    base_currency: "USD",
    capital: { USD: "250000" },
    fx: {},
    channels: [
      {
        channel_id: "aggressive",
        channel_type: "AGGRESSIVE",
        capital_allocation: 0.4,
        strategies: [
          {
            strategy_name: "momentum",
            parameters: { lookback_period: 10, entry_threshold: 2, exit_threshold: 0 },
            weight: 0.5,
            symbols: ["AAPL.US", "MSFT.US"],
            timeframe: "1d",
          },
          { strategy_name: "donchian_breakout", parameters: { entry_period: 15, exit_period: 7 }, weight: 0.5, symbols: ["MSFT.US"], timeframe: "1d" },
        ],
        limits: { max_drawdown: 0.03, max_daily_loss: 0.01, max_loss_per_trade: 0.05, leverage_limit: 1.5 },
      },
      {
        channel_id: "balanced",
        channel_type: "BALANCED",
        capital_allocation: 0.6,
        strategies: [
          {
            strategy_name: "ma_crossover",
            parameters: { fast_period: 5, slow_period: 20, ma_type: "ema" },
            weight: 1,
            symbols: ["AAPL.US", "MSFT.US"],
            timeframe: "1d",
          },
        ],
        limits: limitsOf(risk),
      },
    ],
    execution: Execution.parse({ slippage_bps: 5 }),
    risk,
    lots: {},
    fees,
    trading_days_per_year: 252,
  };
}

/** Bars of two symbols interleaved in time order. */
export function interleavedBars(length: number, seed: number): Bar[] {
  const a = randomWalk(length, seed, "AAPL.US");
  const b = randomWalk(length, seed + 1, "MSFT.US");
  return a.flatMap((bar, i) => [bar, b[i]]);
}
